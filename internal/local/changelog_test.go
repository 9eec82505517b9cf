package local

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// The all-versions log keeps exactly the records its Retention allows,
// each at its LSN, while its chunks are dropped and filled again many
// times; and once its size is steady, appending allocates nothing: the
// chunk it drops is the one it fills next (R11, R15).
func TestChangeLogReusesItsChunks(t *testing.T) { // R11
	const keep = 1000 // not a multiple of logChunk: chunks are dropped part-way through the window
	docs := make([]*engine.Doc, 7)
	for i := range docs {
		docs[i] = engine.NewDoc(fmt.Sprintf("k%d", i), engine.Layout{}, `{}`, 0, 0, 0)
	}
	l := newChangeLog(Retention{Records: keep})
	lsn := uint64(0)
	add := func(n int) {
		for range n {
			lsn++
			l.append(record{d: docs[lsn%7], ts: int64(lsn), op: uint8(lsn % 3)}, lsn, int64(lsn))
			if l.spare != nil && *l.spare != ([logChunk]record{}) {
				t.Fatalf("after LSN %d the spare chunk holds records", lsn)
			}
		}
	}
	check := func() {
		t.Helper()
		require.Equal(t, lsn, l.last)
		require.Equal(t, max(1, int64(lsn)-keep+1), int64(l.first), "the window after LSN %d", lsn)
		for at := l.first; at <= l.last; at++ {
			r := l.at(at)
			require.Same(t, docs[at%7], r.d, "LSN %d", at)
			require.Equal(t, int64(at), r.ts, "LSN %d", at)
			require.Equal(t, uint8(at%3), r.op, "LSN %d", at)
		}
	}
	add(keep / 2)
	check()
	for range 5 {
		add(3*logChunk + 11)
		check()
	}
	allocs := testing.AllocsPerRun(3, func() { add(5 * logChunk) })
	require.Zero(t, allocs, "appends to a log of steady size allocate nothing")
	check()

	// clear drops the records and the spare chunk; the log goes on at the
	// next LSN.
	l.clear()
	require.Nil(t, l.spare)
	require.Equal(t, lsn+1, l.first)
	add(2*logChunk + 3)
	check()
}

// A log whose Retention is an age grows by many chunks with no drop
// between them: the spare it took once must not be taken again (it would
// sit at two places of the log), and each drop leaves it all zero (R11).
func TestChangeLogGrowsAfterADrop(t *testing.T) { // R11
	d := engine.NewDoc("k", engine.Layout{}, `{}`, 0, 0, 0)
	l := newChangeLog(Retention{Age: 10})
	lsn := uint64(0)
	add := func(n int, now int64) {
		for range n {
			lsn++
			l.append(record{d: d, ts: now, op: uint8(lsn % 3)}, lsn, now)
		}
	}
	add(2*logChunk+5, 0)
	add(20*logChunk, 100) // the first records go, trimAtMost an append: the first chunks are dropped early on
	require.Greater(t, l.first, uint64(2*logChunk), "the old records are gone")
	add(5*logChunk, 100) // no drop: every record is young
	for at := l.first; at <= l.last; at++ {
		r := l.at(at)
		require.Equal(t, int64(100), r.ts, "LSN %d", at)
		require.Equal(t, uint8(at%3), r.op, "LSN %d", at)
	}
	seen := map[*[logChunk]record]bool{}
	for _, c := range l.chunks[l.head:] {
		require.False(t, seen[c], "a chunk at two places of the log")
		seen[c] = true
	}
	if l.spare != nil {
		require.False(t, seen[l.spare], "the spare chunk is also in the log")
	}
}
