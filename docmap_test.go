package ttldb

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocMapCollisions drives a docMap whose hashes collide all the time
// (two bits of hash) against a plain map.
func TestDocMapCollisions(t *testing.T) {
	m := newDocMap(maphash.MakeSeed())
	m.mask = 3
	want := map[string]slot{}
	r := rand.New(rand.NewPCG(1, 2))
	for step := range 20000 {
		key := fmt.Sprintf("k%d", r.IntN(64))
		switch r.IntN(3) {
		case 0, 1:
			d := newDoc(key, keyLayout{}, "{}", 0, int64(step), uint64(step))
			s := slot{d, newEntry(d)}
			if r.IntN(2) == 0 {
				_, had := want[key]
				require.Equal(t, had, m.replace(m.hash(key), s), "replace %q at step %d", key, step)
				if !had {
					break
				}
			} else {
				m.put(m.hash(key), s)
			}
			want[key] = s
		case 2:
			_, had := want[key]
			require.Equal(t, had, m.remove(m.hash(key), key), "remove %q at step %d", key, step)
			delete(want, key)
		}
		require.Equal(t, len(want), m.len(), "step %d", step)
		if step%100 == 0 {
			for i := range 64 {
				key := fmt.Sprintf("k%d", i)
				require.Equal(t, want[key], m.get(m.hash(key), []byte(key)), "get %q at step %d", key, step)
			}
			for k := range m.clash {
				cur := m.byHash[m.hash(k)&m.mask]
				require.NotNil(t, cur.d, "%q is in clash while its slot is free", k)
				require.NotEqual(t, k, cur.d.key())
			}
		}
	}
	require.Positive(t, len(m.clash), "the test made hashes collide")
}
