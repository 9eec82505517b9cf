package local

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// TestIndexUpkeepAfterOverwrites: after many writes that change the
// indexed values or leave them as they were, move them between types,
// remove them, and delete and create documents, each index holds one item
// per document, in the order of the values' keys, and a read of an index
// by equality, ascending and descending, gives the documents a scan finds
// with that value (R13: an index never changes a query's rows). One index
// exists from the start, one is created halfway, while documents change.
func TestIndexUpkeepAfterOverwrites(t *testing.T) { // R13
	c, err := NewCollection("upkeep", "/pk", &Options{DefaultTTL: TTLOff(), ManualSweep: true, Indexes: []string{"/v", "/d"}})
	require.NoError(t, err)
	defer c.Close()
	const ids, writes = 300, 6000
	r := rand.New(rand.NewPCG(31, 2))
	long := strings.Repeat("x", 250)
	value := func(path string) (string, bool) { // a JSON value, or none
		switch k := r.IntN(20); {
		case k == 0:
			return "", false
		case k == 1:
			return "null", true
		case k == 2:
			return "true", true
		case k < 6:
			return fmt.Sprint(r.IntN(4)), true
		case path == "/s" && k < 12: // keys across longKey
			return fmt.Sprintf(`"%s%s%d"`, long, strings.Repeat("y", r.IntN(8)), r.IntN(3)), true
		case k < 10: // dates of one month: the same first 15 bytes of key
			return fmt.Sprintf(`"2026-11-07T13:%02d:%02dZ"`, r.IntN(3), r.IntN(3)), true
		case k < 12:
			return fmt.Sprintf(`"a\u0000%d"`, r.IntN(3)), true
		default:
			return fmt.Sprintf(`"s-%07d"`, r.IntN(5)), true
		}
	}
	paths := []string{"/v", "/d", "/s"}
	model := map[string]map[string]string{} // id -> path -> JSON value
	write := func(id string) {
		vals := map[string]string{}
		old := model[id]
		var b strings.Builder
		fmt.Fprintf(&b, `{"id":%q,"pk":"p"`, id)
		for _, p := range paths {
			v, ok := old[p] // two thirds of the values stay as they are
			if old == nil || r.IntN(3) == 0 {
				v, ok = value(p)
			}
			if ok {
				vals[p] = v
				fmt.Fprintf(&b, `,%q:%s`, p[1:], v)
			}
		}
		b.WriteString("}")
		_, err := c.Upsert(bg, []byte(b.String()))
		require.NoError(t, err, b.String())
		model[id] = vals
	}
	check := func(indexes []string) {
		t.Helper()
		s, err := c.x.Snapshot(bg, indexes, false)
		require.NoError(t, err)
		defer s.Release()
		require.ElementsMatch(t, indexes, s.Indexes())
		for _, p := range indexes {
			// every item, in the order of the keys the model gives
			var want []string
			byKey := map[string]string{}
			for id, vals := range model {
				v := query.Value{}
				if raw, ok := vals[p]; ok {
					v, ok = query.FromJSON(raw)
					require.True(t, ok, raw)
				}
				k := string(query.AppendKey(nil, v)) + string(keyOf(StringKey("p"), id))
				want = append(want, k)
				byKey[k] = id
			}
			slices.Sort(want)
			var got, gotIDs []string
			require.NoError(t, s.Index(bg, p, []engine.Range{{}}, false, "", func(d *engine.Doc, k string) bool {
				got, gotIDs = append(got, k), append(gotIDs, d.ID())
				return true
			}))
			require.Equal(t, want, got, "the items of %s, in order", p)
			for i, k := range want {
				require.Equal(t, byKey[k], gotIDs[i])
			}
			var down []string
			require.NoError(t, s.Index(bg, p, []engine.Range{{}}, true, "", func(_ *engine.Doc, k string) bool {
				down = append(down, k)
				return true
			}))
			slices.Reverse(down)
			require.Equal(t, want, down, "the items of %s, descending", p)
			// a read by equality of each value: the documents a scan finds
			seen := map[string]bool{}
			for _, vals := range model {
				raw, ok := vals[p]
				if !ok || seen[raw] {
					continue
				}
				seen[raw] = true
				v, _ := query.FromJSON(raw)
				from := query.AppendKey(nil, v)
				var eq []string
				require.NoError(t, s.Index(bg, p, []engine.Range{{From: from, To: query.PrefixEnd(from)}}, false, "", func(d *engine.Doc, _ string) bool {
					eq = append(eq, d.ID())
					return true
				}))
				var scan []string
				for id, vals := range model {
					if w, ok := vals[p]; ok && w == raw {
						scan = append(scan, id)
					}
				}
				slices.Sort(scan)
				require.Equal(t, scan, eq, "%s = %s", p, raw)
			}
		}
		checkInvariants(t, c)
	}
	for i := range writes {
		id := fmt.Sprintf("d%04d", r.IntN(ids))
		switch {
		case i == writes/2:
			require.NoError(t, c.CreateIndex(bg, "/s"))
			check(paths)
		case r.IntN(10) == 0 && model[id] != nil:
			require.NoError(t, c.Delete(bg, StringKey("p"), id))
			delete(model, id)
		default:
			write(id)
		}
		if i%1000 == 999 {
			if i < writes/2 {
				check(paths[:2])
			} else {
				check(paths)
			}
		}
	}
	check(paths)
}

// TestIndexedWriteAllocates: a write that changes the values of three
// indexes allocates one key per index beyond what the same write makes
// without them (R13; issue 31: the upkeep of indexes is a write's cost).
func TestIndexedWriteAllocates(t *testing.T) { // R13
	const n = 1000
	allocs := func(indexes []string) float64 {
		c, err := NewCollection("allocs", "/pk", &Options{DefaultTTL: TTLOff(), ManualSweep: true, Indexes: indexes, Feed: FeedOptions{Off: true}})
		require.NoError(t, err)
		defer c.Close()
		docs := make([][]byte, 2*n) // two versions of each document, with other values at every path
		for i := range docs {
			docs[i] = []byte(fmt.Sprintf(`{"id":"d%05d","pk":"p","v":%d,"d":"2026-11-%02dT13:00:%02dZ","s":"s-%07d"}`, i%n, i, i%28+1, i%60, i))
		}
		k := 0
		write := func() {
			if _, err := c.Upsert(bg, docs[k%len(docs)]); err != nil {
				t.Fatal(err)
			}
			k++
		}
		for range len(docs) {
			write()
		}
		return testing.AllocsPerRun(2*n, write)
	}
	none := allocs(nil)
	three := allocs([]string{"/v", "/d", "/s"})
	require.LessOrEqual(t, three, none+3.5, "a write without an index makes %.1f allocations, with three %.1f", none, three)
}
