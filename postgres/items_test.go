package postgres

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// itemValues are values of every JSON kind for an indexed path, "" for a
// missing one: numbers equal as numbers (1, 1.0, -0, 0), strings holding
// 0x00, and strings longer than the btree's 1024 bytes that share their
// first 1100, so that items share pfx and differ beyond it.
func itemValues() []string {
	long := strings.Repeat("p", 1100)
	return []string{``, ``, `null`, `true`, `false`, `0`, `-0`, `1`, `1.0`, `-3.5`, `1e300`, `-1e300`, `5e-324`,
		`""`, `"a"`, `"a\u0000"`, `"a\u0000b"`, `"ab"`, `"\u00e9"`, `"` + long + `"`, `"` + long + `a"`,
		`"` + long + `b"`, `"` + long + `b` + strings.Repeat("q", 2000) + `"`, `"` + strings.Repeat("z", 3000) + `"`,
		`[]`, `[1,2]`, `{}`, `{"x":1}`}
}

// bodyOf returns a body whose /v is v (missing for ""), with a member
// /w/x too.
func bodyOf(v string, i int) string {
	if v == "" {
		return fmt.Sprintf(`{"w":{"x":%d}}`, i%7)
	}
	return fmt.Sprintf(`{"v":%s,"w":{"x":%d}}`, v, i%7)
}

// idOf returns the id of the i-th document: some long (a key over 1024
// bytes, so that an item's document key passes pfx).
func idOf(i int) string {
	if i%5 == 0 {
		return fmt.Sprintf("%04d", i) + strings.Repeat("k", 1019)
	}
	return fmt.Sprintf("%04d", i)
}

// wantIndexAsComputed checks that the snapshot's reads of the index on
// path, from the items on the server, give what the first version's
// computation in Go (computedItems) gives: over every item, ranges of
// items and of value keys (bounds over 1024 bytes included), ascending
// and descending, from seeks, and Count.
func wantIndexAsComputed(t *testing.T, sn engine.Snapshot, path string, rng *rand.Rand) {
	t.Helper()
	s := sn.(*snapshot)
	all, err := s.computedItems(t.Context(), path, []engine.Range{{}}, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatalf("index %s: no item at all", path)
	}
	key := func() []byte { return []byte(all[rng.IntN(len(all))].k) }
	valueKey := func() []byte { // an item's value key: a prefix of it
		k := key()
		return k[:rng.IntN(len(k)+1)]
	}
	cases := [][]engine.Range{{{}}}
	for range 6 {
		a, b := key(), key()
		if string(a) > string(b) {
			a, b = b, a
		}
		cases = append(cases, []engine.Range{{From: a, To: b}}, []engine.Range{{From: a}}, []engine.Range{{To: b}})
		v := valueKey()
		cases = append(cases, []engine.Range{{From: v, To: query.PrefixEnd(v)}})
		c, d := valueKey(), valueKey()
		if string(c) > string(d) {
			c, d = d, c
		}
		if string(b) < string(c) {
			cases = append(cases, []engine.Range{{From: a, To: b}, {From: c, To: d}})
		}
	}
	// computed is computedItems's answer, from all.
	computed := func(ranges []engine.Range, desc bool, seek string) []item {
		var w []item
		for _, x := range all {
			if inRanges([]byte(x.k), ranges) && (seek == "" || !desc && x.k > seek || desc && x.k < seek) {
				w = append(w, x)
			}
		}
		if desc {
			slices.Reverse(w)
		}
		return w
	}
	for _, ranges := range cases {
		for _, desc := range []bool{false, true} {
			want := computed(ranges, desc, "")
			seeks := []string{""}
			for range 3 {
				seeks = append(seeks, string(key()))
			}
			if len(want) > 0 {
				seeks = append(seeks, want[0].k, want[len(want)-1].k, want[len(want)/2].k)
			}
			for _, seek := range seeks {
				w := computed(ranges, desc, seek)
				var got []item
				err = sn.Index(t.Context(), path, ranges, desc, seek, func(d *engine.Doc, it string) bool {
					got = append(got, item{it, d})
					return true
				})
				if err != nil || !slices.EqualFunc(got, w, func(a, b item) bool { return a.k == b.k && a.d.Key() == b.d.Key() && a.d.Body() == b.d.Body() }) {
					t.Fatalf("index %s, ranges %q, desc %t, seek %q: Index gives %d items (%v), computed %d", path, ranges, desc, seek, len(got), err, len(w))
				}
			}
		}
		want := computed(ranges, false, "")
		for _, most := range []int{1, 7, len(want), len(want) + 1} {
			if most < 1 {
				continue
			}
			if got := sn.Count(t.Context(), path, ranges, most); got != min(len(want), most) {
				t.Fatalf("index %s, ranges %q: Count(most %d) = %d, want %d", path, ranges, most, got, min(len(want), most))
			}
		}
	}
}

// fillItems writes n documents of varied values at /v by batches, some
// expired (a ttl of 1 second, the clock moved past it).
func fillItems(t *testing.T, h *handle, n int) {
	t.Helper()
	vals := itemValues()
	var steps []engine.Step
	for i := range n {
		ttl := int32(0)
		if i%11 == 0 {
			ttl = 1
		}
		id := idOf(i)
		steps = append(steps, put(engine.Create, id, bodyOf(vals[i%len(vals)], i), ttl))
		if len(steps) == 100 || i == n-1 {
			if _, err := h.batch(steps...); err != nil {
				t.Fatal(err)
			}
			steps = nil
		}
	}
}

func TestIndexItemsAsComputed(t *testing.T) { // R13: an index read from its items gives what the documents give
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{Indexes: []string{"/v", "/_ts"}})
	rng := rand.New(rand.NewPCG(1, 2))
	fillItems(t, h, 600) // over pageSize, and over buildBatch for the index made after
	h.clock.set(t0 + 5)  // the documents of ttl 1 expired: still in the index
	if err := h.e.CreateIndex(t.Context(), "/w/x"); err != nil {
		t.Fatal(err)
	}
	// Changes, each keeping the items: a value changed, one unchanged (a
	// Touch, a change elsewhere), deletes, a write over an expired
	// document, a batch of each.
	vals := itemValues()
	for i := range 60 {
		id := idOf(i * 7)
		k, _ := key(id)
		switch i % 6 {
		case 0:
			h.mustPut(engine.Upsert, id, bodyOf(vals[(i*13)%len(vals)], i+1), 0)
		case 1:
			if _, err := h.e.Write(t.Context(), k, engine.Write{Op: engine.Touch}); err != nil && !errors.Is(err, engine.ErrNotFound) {
				t.Fatal(err)
			}
		case 2:
			if _, err := h.e.Write(t.Context(), k, engine.Write{Op: engine.Delete}); err != nil && !errors.Is(err, engine.ErrNotFound) {
				t.Fatal(err)
			}
		case 3:
			h.mustPut(engine.Upsert, id, bodyOf(`"changed"`, i), 0)
		case 4:
			h.mustPut(engine.Upsert, fmt.Sprint("new", i), bodyOf(vals[i%len(vals)], i), 0)
		case 5:
			n := idOf(i*7 + 1)
			_, err := h.batch(
				put(engine.Upsert, id, bodyOf(`"batch"`, i), 0),
				put(engine.Upsert, fmt.Sprint("b", i), bodyOf(`7`, i), 0),
				on(engine.Delete, n),
			)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_items_1 WHERE ix = 1`); got != s.count(`SELECT count(*) FROM `+s.ident()+`.ttldb_docs_1`) {
		t.Errorf("index /v holds %d items, want one per document", got)
	}
	sn := h.snap([]string{"/v", "/w/x", "/_ts"}, false)
	for _, p := range []string{"/v", "/w/x", "/_ts"} {
		wantIndexAsComputed(t, sn, p, rng)
	}
}
