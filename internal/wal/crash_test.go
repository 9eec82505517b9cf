package wal

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/vfs"
)

// TestCrashKeepsASyncedPrefix: groups written to a file that crashes at a
// random point, keeping a random prefix of what was not synced, recover to
// a prefix of the groups committed that holds every group synced, each
// whole and equal to what was written; the torn rest is reported, never an
// error (vfs.Mem keeps only what was synced, as a power loss would).
func TestCrashKeepsASyncedPrefix(t *testing.T) { // R12 (the log format's part: no synced group is lost)
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 9))
		m := &vfs.Mem{}
		require.NoError(t, m.MkdirAll("db"))
		f, err := m.Create("db/log")
		require.NoError(t, err)
		_, err = f.Write(Header())
		require.NoError(t, err)
		require.NoError(t, f.Sync())
		require.NoError(t, m.SyncDir("db"))
		w := NewWriter(f, HeaderSize)
		groups := randomGroups(rng, 1+rng.IntN(12))
		synced := 0
		for i, g := range groups {
			for _, r := range g {
				require.NoError(t, w.Add(r))
			}
			_, err := w.Commit(uint64(i + 1))
			require.NoError(t, err)
			if rng.IntN(3) == 0 {
				require.NoError(t, f.Sync())
				synced = i + 1
				size, err := f.Size()
				require.NoError(t, err)
				w.Synced(size)
			}
		}
		m.CrashKeeping(func(_ string, unsynced []byte) int { return rng.IntN(len(unsynced) + 1) })

		f, err = m.Open("db/log")
		require.NoError(t, err)
		size, err := f.Size()
		require.NoError(t, err)
		got := 0
		res, err := Scan(f, size, func(g Group) error {
			require.Equal(t, uint64(got+1), g.Tag, "seed %d", seed)
			require.Equal(t, len(groups[got]), len(g.Records), "seed %d group %d", seed, got)
			for j, r := range g.Records {
				require.True(t, bytes.Equal(groups[got][j], r), "seed %d group %d record %d", seed, got, j)
			}
			got++
			return nil
		})
		require.NoError(t, err, "seed %d: a crash leaves a torn tail at most", seed)
		require.GreaterOrEqual(t, got, synced, "seed %d: every synced group is there", seed)
		require.LessOrEqual(t, got, len(groups))
		require.Equal(t, size, res.End+res.Dropped)
		require.NoError(t, f.Truncate(res.End), "the open cuts the torn tail")
	}
}
