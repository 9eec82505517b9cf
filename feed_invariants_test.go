package ttldb

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// checkFeedInvariants checks the change feed's structures against the
// primary index: the order of last writes links exactly the stored
// entries, both ways, in increasing LSN order, every LSN at most the last
// given out; the fingers keep their promise; the log holds one record per
// LSN from first to last, each document carrying its LSN. Call it with
// c.mu held.
func checkFeedInvariants(t *testing.T, c *Collection) {
	t.Helper()
	f := &c.local.feed
	if !f.on {
		require.Nil(t, f.latest.head, "a feed that is off links nothing")
		return
	}
	pos := make(map[*entry]uint64)
	var prev *entry
	var last uint64
	n := 0
	for e := f.latest.head; e != nil; e = e.next {
		require.Same(t, prev, e.prev, "the links agree both ways")
		lsn := c.local.seqOf(e.doc())
		require.Greater(t, lsn, last, "the order of last writes is by increasing LSN")
		pos[e], last, prev = lsn, lsn, e
		n++
	}
	require.Same(t, prev, f.latest.tail)
	require.LessOrEqual(t, last, c.local.seq)
	require.Equal(t, c.local.prim.len(), n, "the order holds every stored entry")
	for _, e := range sortedEntries(c) {
		_, ok := pos[e]
		require.True(t, ok, "%q is in the order of last writes", e.key())
	}
	f.latest.fmu.Lock()
	for _, fg := range f.latest.fingers {
		if !fg.set || fg.e == nil {
			continue
		}
		at, ok := pos[fg.e]
		require.True(t, ok, "a finger points at a linked entry")
		require.LessOrEqual(t, at, fg.lsn, "a finger's entry was written at or before its LSN")
		require.True(t, fg.e.finger.Load(), "a finger's entry is marked")
	}
	f.latest.fmu.Unlock()

	l := &f.log
	require.Equal(t, c.local.seq, l.last, "the log has given out every LSN")
	require.LessOrEqual(t, l.first, l.last+1)
	var bytes int64
	for lsn := l.first; lsn <= l.last; lsn++ {
		r := l.at(lsn)
		require.NotNil(t, r.d, "LSN %d has a record", lsn)
		if r.op == OpDelete {
			require.Less(t, c.local.seqOf(r.d), lsn, "record %d deletes an earlier version", lsn)
		} else {
			require.Equal(t, lsn, c.local.seqOf(r.d), "record %d carries its LSN", lsn)
			require.Equal(t, r.d.TS, r.ts)
		}
		require.Equal(t, recordSize(r.d), r.size)
		bytes += int64(r.size)
	}
	require.Equal(t, bytes, l.bytes, "the log counts the bytes it keeps")
}
