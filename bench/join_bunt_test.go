package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/tidwall/buntdb"
	"github.com/tidwall/gjson"
)

// ---- BenchmarkQueryJoin's queries in buntdb ----
//
// buntdb has no query language: a program that wants these answers walks
// the items (Ascend over the keys, in a read transaction) and reads each
// value with gjson, the JSON reader buntdb itself uses for IndexJSON,
// without decoding it, then applies the query's logic in Go, as below.
// No index could serve them: a buntdb index orders items by one value of
// theirs, and these filters are on two members (the filter), on members of
// an array's elements (JOIN, EXISTS), or read every item (DISTINCT, GROUP
// BY). The comparison is of the whole read: ttldb's query engine against
// hand-written code for one query, which has no parser, no plan, no
// parameters to bind and no results to render (the results here are Go
// values: a count, a map of the distinct values, the groups' structs).

// openJoinBunt fills an in-memory buntdb with the n documents, under
// their ids, with the TTL of an hour of the harness's other buntdb stores.
func openJoinBunt(b *testing.B, n int) *joinStore {
	s := newBunt(Config{Mode: Live}).(*buntStore)
	keys := Keys(n)
	Fill(s, n, func(i int, buf []byte) (string, []byte, time.Duration) {
		return keys[i], joinDoc(buf, i), longTTL
	})
	user, qty := joinParams["user"].(string), int64(joinQtyP)
	tag, w := joinParams["tag"].(string), int64(joinWP)
	// each walks every item, in one read transaction.
	each := func(fn func(v string)) error {
		return s.db.View(func(tx *buntdb.Tx) error {
			return tx.Ascend("", func(_, v string) bool { fn(v); return true })
		})
	}
	groups := func() (map[string]joinGroup, error) {
		m := map[string]joinGroup{}
		err := each(func(v string) {
			u := gjson.Get(v, "user").Str
			g := m[u]
			g.User, g.N, g.Qty = u, g.N+1, g.Qty+gjson.Get(v, "qty").Int()
			m[u] = g
		})
		return m, err
	}
	run := func(q *joinQuery) (int, error) {
		n := 0
		var err error
		switch q.name {
		case "filter":
			err = each(func(v string) {
				if gjson.Get(v, "user").Str == user && gjson.Get(v, "qty").Int() > qty {
					n++
				}
			})
		case "join":
			err = each(func(v string) {
				gjson.Get(v, "tags").ForEach(func(_, t gjson.Result) bool {
					if t.Get("name").Str == tag && t.Get("w").Int() > w {
						n++
					}
					return true
				})
			})
		case "join-distinct":
			names := map[string]struct{}{}
			err = each(func(v string) {
				gjson.Get(v, "tags").ForEach(func(_, t gjson.Result) bool {
					if t.Get("w").Int() > w {
						names[t.Get("name").Str] = struct{}{}
					}
					return true
				})
			})
			n = len(names)
		case "distinct":
			users := map[string]struct{}{}
			err = each(func(v string) {
				if gjson.Get(v, "qty").Int() > qty {
					users[gjson.Get(v, "user").Str] = struct{}{}
				}
			})
			n = len(users)
		case "exists":
			err = each(func(v string) {
				gjson.Get(v, "tags").ForEach(func(_, t gjson.Result) bool {
					if t.Get("name").Str == tag && t.Get("w").Int() > w {
						n++
						return false
					}
					return true
				})
			})
		case "group":
			m, gerr := groups()
			n, err = len(m), gerr
		default:
			err = fmt.Errorf("buntdb: no code for the query %s", q.name)
		}
		return n, err
	}
	return &joinStore{run: run, groups: groups, close: s.Close}
}
