package ttldb

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocMapCollisions drives a docMap whose hashes collide all the time
// (two bits of hash) against a plain map.
func TestDocMapCollisions(t *testing.T) {
	m := newDocMap()
	m.mask = 3
	want := map[string]*entry{}
	r := rand.New(rand.NewPCG(1, 2))
	for step := range 20000 {
		key := fmt.Sprintf("k%d", r.IntN(64))
		switch r.IntN(3) {
		case 0, 1:
			e := newEntry(newDoc(key, keyLayout{}, "{}", 0, int64(step), uint64(step)))
			m.put(e)
			want[key] = e
		case 2:
			_, had := want[key]
			require.Equal(t, had, m.remove(key), "remove %q at step %d", key, step)
			delete(want, key)
		}
		require.Equal(t, len(want), m.len(), "step %d", step)
		if step%100 == 0 {
			for i := range 64 {
				key := fmt.Sprintf("k%d", i)
				require.Same(t, want[key], m.get([]byte(key)), "get %q at step %d", key, step)
			}
			for k := range m.clash {
				cur := m.byHash[m.hash(k)]
				require.NotNil(t, cur, "%q is in clash while its slot is free", k)
				require.NotEqual(t, k, cur.key())
			}
		}
	}
	require.Positive(t, len(m.clash), "the test made hashes collide")
}
