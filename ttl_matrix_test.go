package ttldb

// The effective TTL (R3) of every combination of DefaultTTL and document
// ttl, as the function the engine computes it with, against the table of
// R3 (internal/ref's R3, which the conformance suite's matrix reads too:
// conformance/matrix.go sees it through every operation of the public API).

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/ref"
)

// R3
func TestEffectiveTTLMatrix(t *testing.T) {
	check := func(t *testing.T, def DefaultTTL, raw string, want int64) {
		t.Helper()
		own := ttlInherit // an absent ttl is never parsed
		if raw != "" {
			v, err := parseDocTTL("d", []byte(raw))
			require.NoError(t, err)
			own = v
		}
		seconds, expires := def.engine().Expiry(own) // the engines' R3: engine.DefaultTTL.Expiry
		if want == ref.Never {
			require.False(t, expires, "never expires")
		} else {
			require.True(t, expires, "expires")
			require.Equal(t, want, seconds)
		}
		n, on := def.Seconds()
		require.Equal(t, want, ref.Lifetime(on, n, raw), "the reference's reading, ref.Lifetime")
	}
	for _, row := range ref.R3 {
		for _, col := range []struct {
			name string
			def  DefaultTTL
			want int64
		}{
			{"off", TTLOff(), row.Off},
			{"-1", TTLNoDefault(), row.NoDefault},
			{"TTLSeconds(-1)", TTLSeconds(-1), row.NoDefault}, // the same state as TTLNoDefault (R1)
			{"n=100", TTLSeconds(ref.R3N), row.N},
		} {
			t.Run("DefaultTTL="+col.name+",ttl="+row.Name, func(t *testing.T) {
				check(t, col.def, row.Raw, col.want)
			})
		}
	}
}
