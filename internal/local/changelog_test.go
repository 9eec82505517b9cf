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
