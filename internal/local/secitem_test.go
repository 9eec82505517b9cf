package local

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// TestSecItemOrder: items order as their keys do, byte by byte (R13: an
// index's order is that of ORDER BY), whatever the keys share: no prefix,
// the 15 bytes the item holds, zeros where a shorter key is padded, and
// lengths on both sides of longKey; and an item gives its key back. An
// item is 32 bytes, as one with a prefix of 8 was.
func TestSecItemOrder(t *testing.T) { // R13
	require.Equal(t, 32, int(unsafe.Sizeof(secItem{})))
	r := rand.New(rand.NewPCG(31, 1))
	alphabet := []byte{0x00, 0x01, 'a', 'b', 0xFF}
	var keys []string
	for _, n := range []int{0, 1, 7, 8, 9, 14, 15, 16, 17, 30, 253, 254, 255, 256, 300} {
		for range 12 {
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			keys = append(keys, string(b))
			if n > 0 { // and keys that share all but their last byte with it
				keys = append(keys, string(b[:n-1])+"\x00", string(b[:n-1]))
			}
		}
	}
	// keys that share a long prefix, as dates of a month and values of
	// one pattern do
	for i := range 40 {
		keys = append(keys, fmt.Sprintf("\x0a2026-11-07T13:%02d:%02dZ\x00\x01p\x00d%d", i%7, i%13, i))
	}
	for _, a := range keys {
		ia := item(a, nil)
		require.Equal(t, a, ia.key())
		for _, b := range keys {
			require.Equal(t, a < b, secLess(ia, item(b, nil)), "%q < %q", a, b)
		}
	}
}

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
			v, ok := old[p]
			if old == nil || r.IntN(3) == 0 { // a third of the values change
				v, ok = value(p)
			} else {
				_, ok = old[p]
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
