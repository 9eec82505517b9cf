package conformance

// The TTL matrix of R2: the ttl is stored exactly as written.

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// R2: the ttl is stored exactly as written.

// R2: a ttl is stored and returned as written ("10.0", "1e1"), and a
// document without a ttl never gets the inherited default written into it.
func mxR2MatrixStoredTTL(t *testing.T, eng Harness) {
	cases := []struct {
		raw     string
		seconds int
		ok      bool
	}{
		{"10", 10, true},
		{"10.0", 10, true},
		{"1e1", 10, true},
		{"1E+1", 10, true},
		{"100e-1", 10, true},
		{"-1", -1, true},
		{"null", 0, false},
	}
	for _, tc := range cases {
		t.Run("ttl="+tc.raw, func(t *testing.T) {
			mxTest(t, eng, func(t *testing.T) {
				c := mxNewCollection(t, ttldb.TTLNoDefault(), false)
				written := mxCreate(t, c, mxID, "c1", mxTTL{tc.raw, tc.raw})
				got, err := c.Get(bg, mxC1, mxID)
				require.NoError(t, err)
				listed, err := c.List(bg, ttldb.Query{})
				require.NoError(t, err)
				require.Len(t, listed.Documents, 1)
				for name, d := range map[string]ttldb.Document{"Create": written, "Get": got, "List": listed.Documents[0]} {
					require.Contains(t, d.JSON(), `"ttl":`+tc.raw, name)
					require.Equal(t, tc.raw, mxTTLMember(t, d), name)
					secs, ok := d.TTL()
					require.Equal(t, tc.ok, ok, name)
					require.Equal(t, tc.seconds, secs, name)
				}
				if tc.seconds == 10 {
					mxRequireLifetime(t, c, mxID, written.TS(), 10) // R3: m = 10
				}
			})
		})
	}

	t.Run("no ttl", func(t *testing.T) {
		mxTest(t, eng, func(t *testing.T) {
			c := mxNewCollection(t, ttldb.TTLSeconds(100), false)
			written := mxCreate(t, c, mxID, "c1", mxAbsent)
			mxSleepUntil(t, written.TS()+10)
			touched, err := c.Touch(bg, mxC1, mxID)
			require.NoError(t, err)
			mxSleepUntil(t, written.TS()+20)
			replaced, err := c.Replace(bg, mxDoc(mxID, "c1", mxAbsent))
			require.NoError(t, err)
			got, err := c.Get(bg, mxC1, mxID)
			require.NoError(t, err)
			docs := map[string]ttldb.Document{"Create": written, "Touch": touched, "Replace": replaced, "Get": got}
			for d, err := range c.All(bg, ttldb.Query{}) {
				require.NoError(t, err)
				docs["All"] = d
			}
			for name, d := range docs {
				require.NotContains(t, d.JSON(), `"ttl"`, name)
				var m map[string]any
				require.NoError(t, d.Decode(&m))
				require.NotContains(t, m, "ttl", name)
				_, ok := d.TTL()
				require.False(t, ok, "%s: TTL() reports no ttl of its own", name)
			}
		})
	})
}
