package ttldb

// The effective TTL (R3) of every combination of DefaultTTL and document
// ttl, as the function the engine computes it with. The matrix tests that
// see it through the public API (R3 through every operation, R4, R6, R7,
// R8, R2) are the conformance suite's (conformance/matrix.go), which keeps
// its own copy of these tables.

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// ---------------------------------------------------------------------------
// The cells of R3.

// mxNever stands for "never expires" in the expectation tables.
const mxNever int64 = 0

// mxSetting is a DefaultTTL state of R1, with a name for subtest names.
type mxSetting struct {
	name string
	def  DefaultTTL
}

var (
	mxOff   = mxSetting{"off", TTLOff()}
	mxNoDef = mxSetting{"-1", TTLNoDefault()}
	mxDefN  = mxSetting{"n=100", TTLSeconds(100)}
)

// mxTTL is a document's ttl member as written: its raw JSON, or "" when the
// document has no ttl.
type mxTTL struct{ name, raw string }

var (
	mxAbsent = mxTTL{"absent", ""}
	mxNull   = mxTTL{"null", "null"}
	mxMinus1 = mxTTL{"-1", "-1"}
	mxOwn30  = mxTTL{"m=30", "30"}   // own ttl below n
	mxOwn250 = mxTTL{"m=250", "250"} // own ttl above n
)

// mxR3Table is the table of R3 in SPEC.md, for DefaultTTL n = 100: the
// effective TTL in seconds of each document ttl (rows) under each DefaultTTL
// (columns), or mxNever. The m = 250 row checks that an own ttl overrides a
// smaller default as well as a larger one.
var mxR3Table = []struct {
	ttl            mxTTL
	off, noDef, is int64
}{
	{mxAbsent, mxNever, mxNever, 100},
	{mxNull, mxNever, mxNever, 100},
	{mxMinus1, mxNever, mxNever, mxNever},
	{mxOwn30, mxNever, 30, 30},
	{mxOwn250, mxNever, 250, 250},
}

// mxCell is one cell of R3: a DefaultTTL, a document ttl and the expected
// effective TTL.
type mxCell struct {
	set  mxSetting
	ttl  mxTTL
	want int64
}

func (c mxCell) String() string { return "DefaultTTL=" + c.set.name + ",ttl=" + c.ttl.name }

func mxR3Cells() []mxCell {
	var cells []mxCell
	for _, row := range mxR3Table {
		cells = append(cells,
			mxCell{mxOff, row.ttl, row.off},
			mxCell{mxNoDef, row.ttl, row.noDef},
			mxCell{mxDefN, row.ttl, row.is})
	}
	return cells
}

// mxLifetime is the test's own reading of R3, for any DefaultTTL: seconds
// after _ts, or mxNever. TestEffectiveTTLMatrix checks it against mxR3Table.
func mxLifetime(s mxSetting, ttl mxTTL) int64 {
	n, on := s.def.Seconds()
	switch {
	case !on, ttl.raw == "-1":
		return mxNever
	case ttl.raw == "" || ttl.raw == "null":
		if n == -1 {
			return mxNever
		}
		return n
	}
	own, err := strconv.ParseInt(ttl.raw, 10, 64)
	if err != nil {
		panic("mxLifetime: ttl " + ttl.raw)
	}
	return own
}

// R3
func TestEffectiveTTLMatrix(t *testing.T) {
	parse := func(t *testing.T, ttl mxTTL) int32 {
		if ttl.raw == "" {
			return ttlInherit // an absent ttl is never parsed
		}
		v, err := parseDocTTL("d", []byte(ttl.raw))
		require.NoError(t, err)
		return v
	}
	check := func(t *testing.T, def DefaultTTL, ttl mxTTL, want int64) {
		seconds, expires := effectiveTTL(def, parse(t, ttl))
		if want == mxNever {
			require.False(t, expires, "never expires")
			return
		}
		require.True(t, expires, "expires")
		require.Equal(t, want, seconds)
	}
	for _, cell := range mxR3Cells() {
		t.Run(cell.String(), func(t *testing.T) {
			check(t, cell.set.def, cell.ttl, cell.want)
			require.Equal(t, cell.want, mxLifetime(cell.set, cell.ttl), "the test's own oracle mxLifetime")
		})
	}
	// TTLSeconds(-1) is the same state as TTLNoDefault (R1).
	for _, row := range mxR3Table {
		t.Run("DefaultTTL=TTLSeconds(-1),ttl="+row.ttl.name, func(t *testing.T) {
			check(t, TTLSeconds(-1), row.ttl, row.noDef)
		})
	}
}
