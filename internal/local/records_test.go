package local

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// TestStateRecordGaps: the LSN gaps of a restored collection's restores
// survive a state record (R12, R17); a record without them is written as
// before gaps existed; gaps out of order, empty, or beyond the last LSN are
// refused.
func TestStateRecordGaps(t *testing.T) { // R12, R17
	st := savedState{name: "c", path: "/pk", seq: 100, def: engine.DefaultTTL{}, docs: 3}
	plain := appendState(nil, st)
	got, err := readState(plain[1:])
	require.NoError(t, err)
	require.Nil(t, got.gaps)

	st.gaps = []lsnGap{{5, 20}, {20, 60}, {70, 100}}
	rec := appendState(nil, st)
	require.Equal(t, plain, rec[:len(plain)], "the gaps follow what a record without them holds")
	got, err = readState(rec[1:])
	require.NoError(t, err)
	require.Equal(t, st.gaps, got.gaps)

	for _, bad := range [][]lsnGap{{{20, 60}, {5, 19}}, {{5, 5}}, {{90, 101}}} {
		st.gaps = bad
		_, err := readState(appendState(nil, st)[1:])
		require.Error(t, err, "%v", bad)
	}
	rec = appendState(nil, savedState{name: "c", path: "/pk", seq: 100, gaps: []lsnGap{{5, 20}}})
	_, err = readState(rec[1 : len(rec)-1])
	require.Error(t, err, "a gap cut short")
}
