package conformance

// The TTL matrix of R8: TTL needs indexing.

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ttldb/ttldb"
)

// R8: TTL needs indexing. SetDefaultTTL(-1 or n) on a collection with
// IndexingNone fails with ErrInvalidOption and changes nothing, and so does
// SetIndexingMode(IndexingNone) on a collection with TTL.
func mxR8MatrixIndexingNone(t *testing.T, eng Harness) {
	mxTest(t, eng, func(t *testing.T) {
		_, err := mxOpen(t, "plain", "/pk", &ttldb.Options{Indexing: ttldb.IndexingNone, DefaultTTL: ttldb.TTLSeconds(10)})
		require.ErrorIs(t, err, ttldb.ErrInvalidOption, "NewCollection with TTL and IndexingNone")

		plain, err := mxOpen(t, "plain", "/pk", &ttldb.Options{Indexing: ttldb.IndexingNone})
		require.NoError(t, err)
		ids := []string{"own10", "absent"}
		mxCreate(t, plain, ids[0], "c1", mxTTL{"own=10", "10"})
		mxCreate(t, plain, ids[1], "c1", mxAbsent)
		for _, def := range []ttldb.DefaultTTL{ttldb.TTLNoDefault(), ttldb.TTLSeconds(5), ttldb.TTLSeconds(100)} {
			require.ErrorIs(t, plain.SetDefaultTTL(bg, def), ttldb.ErrInvalidOption, "SetDefaultTTL(%v) with IndexingNone", def)
			require.Equal(t, ttldb.TTLOff(), plain.DefaultTTL(), "a refused SetDefaultTTL changes nothing")
			require.Equal(t, ttldb.IndexingNone, plain.IndexingMode())
		}
		mxSleepUntil(t, mxNow(t)+20)
		mxRequireVisible(t, plain, ids, ids, "TTL is still off 20s later")
		require.NoError(t, plain.SetDefaultTTL(bg, ttldb.TTLOff()), "off is allowed with IndexingNone")

		withTTL := mxNewCollection(t, ttldb.TTLSeconds(10), false)
		d := mxCreate(t, withTTL, mxID, "c1", mxAbsent)
		require.ErrorIs(t, withTTL.SetIndexingMode(bg, ttldb.IndexingNone), ttldb.ErrInvalidOption)
		require.Equal(t, ttldb.IndexingConsistent, withTTL.IndexingMode())
		require.Equal(t, ttldb.TTLSeconds(10), withTTL.DefaultTTL())
		mxSleepUntil(t, d.TS()+9)
		mxRequireVisible(t, withTTL, []string{mxID}, []string{mxID}, "_ts+9")
		mxSleepUntil(t, d.TS()+10)
		mxRequireVisible(t, withTTL, []string{mxID}, nil, "_ts+10")
	})
}
