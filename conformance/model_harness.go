package conformance

// The harness of one sequence: a real collection and the model side by
// side, and how the model's keys and partition keys become the library's
// values and JSON text.

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// The harness: one sequence, a real collection and the model side by side.

type modelHarness struct {
	t          testing.TB // the sequence's subtest, for the engine's harness
	eng        Harness    // the engine under test
	seed       uint64
	running    atomic.Pointer[runningStep] // for the watchdog (model_run.go)
	r          *rand.Rand
	c          *ttldb.Collection
	m          *model
	wall       atomic.Int64      // the wall clock, Unix nanoseconds; read by the sweeper goroutine too
	background bool              // the background sweeper runs (physical deletion is then unpredictable)
	byKey      bool              // checkInvariants reads the live documents by key, not by a listing, so that only the steps that list build the key order (internal/local/order.go)
	nested     bool              // the partition-key path is /t/pk, not /pk
	idPath     bool              // the partition-key path is /id: every document's partition key is its id
	path       string            // the partition-key path: /pk, /t/pk or /id
	parts      []modelPart       // the partitions the sequence writes; with idPath, one per id of ids
	ids        []modelID         // the ids the sequence writes
	etags      map[mKey][]string // every etag each key has had, oldest first
	tokens     []modelToken      // continuation tokens kept for later steps
	kept       []keptDoc         // Documents returned earlier, which must never change
	open       []*openListing    // All iterations started in one step, finished in another
	feed       feedState         // the change feed as read so far (R11; model_feed.go)
	bodies     map[*mDoc]jv      // documents' members as queries read them (R13; model_query.go)
	log        []string
	opts       ttldb.Options // the collection's options
	durable    bool          // the collection is reopened (R12): the engine has Harness.Reopen
}

// openListing is an All iteration started in one step and finished in a
// later one: whatever happened between, it yields the collection as it was
// when it started (R4: a listing is a snapshot), or ErrClosed once the
// collection is closed.
type openListing struct {
	desc string
	next func() (ttldb.Document, error, bool)
	stop func()
	want []mKey         // the documents still to come
	docs map[mKey]*mDoc // the model's documents when it started
}

// modelToken is a continuation token and what it resumes.
type modelToken struct {
	tok    string
	last   mKey // the last document of the page that returned it
	part   *mPK
	filter int
	limit  int
}

type keptDoc struct {
	d    ttldb.Document
	json string
}

func (h *modelHarness) wallNow() time.Time { return time.Unix(0, h.wall.Load()) }
func (h *modelHarness) wallSec() int64     { return h.wallNow().Unix() }

// pkGo is the library's PartitionKey for p, built one of several ways.
func (h *modelHarness) pkGo(p mPK) ttldb.PartitionKey {
	alt := h.r.IntN(3) == 0
	var k ttldb.PartitionKey
	var err error
	switch p.kind {
	case mkNone:
		if alt {
			return ttldb.PartitionKey{}
		}
		return ttldb.NoPartitionKey()
	case mkNull:
		if alt {
			k, err = ttldb.PartitionKeyOf(nil)
		} else {
			k = ttldb.NullKey()
		}
	case mkFalse, mkTrue:
		if alt {
			k, err = ttldb.PartitionKeyOf(p.kind == mkTrue)
		} else {
			k = ttldb.BoolKey(p.kind == mkTrue)
		}
	case mkNumber:
		switch {
		case alt && p.num == 0:
			k = ttldb.NumberKey(math.Copysign(0, -1)) // -0 is the partition 0
		case alt && p.num == -3 && h.r.IntN(2) == 0:
			k, err = ttldb.PartitionKeyOf(int8(-3))
		case alt:
			k, err = ttldb.PartitionKeyOf(json.Number(strconv.FormatFloat(p.num, 'e', -1, 64)))
		default:
			k = ttldb.NumberKey(p.num)
		}
	case mkString:
		if alt {
			k, err = ttldb.PartitionKeyOf(p.str)
		} else {
			k = ttldb.StringKey(p.str)
		}
	}
	if err != nil {
		panic(err) // valid by construction
	}
	return k
}

// pkValue is p as PartitionKey.Value returns it.
func pkValue(p mPK) (any, bool) {
	switch p.kind {
	case mkNone:
		return nil, false
	case mkNull:
		return nil, true
	case mkFalse, mkTrue:
		return p.kind == mkTrue, true
	case mkNumber:
		return p.num, true
	}
	return p.str, true
}

func pkName(p mPK) string {
	switch p.kind {
	case mkNone:
		return "none"
	case mkNull:
		return "null"
	case mkFalse:
		return "false"
	case mkTrue:
		return "true"
	case mkNumber:
		return strconv.FormatFloat(p.num, 'g', -1, 64)
	}
	return strconv.Quote(p.str)
}

func (k mKey) String() string { return pkName(k.pk) + "/" + strconv.Quote(k.id) }

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// pickKey draws a key: mostly a live one, sometimes one that has just
// expired, otherwise any key of the sequence's small key space.
func (h *modelHarness) pickKey() mKey {
	switch n := h.r.IntN(20); {
	case n < 11 && len(h.m.docs) > 0:
		return pick(h.r, h.m.list(nil, nil, nil))
	case n < 14 && len(h.m.unswept) > 0:
		ks := make([]mKey, 0, len(h.m.unswept))
		for k := range h.m.unswept {
			ks = append(ks, k)
		}
		slices.SortFunc(ks, cmpKey)
		return pick(h.r, ks)
	}
	id := pick(h.r, h.ids).id
	if h.idPath {
		return idKey(id)
	}
	return mKey{pick(h.r, h.parts).pk, id}
}

// idKey is the key of the document with this id in a collection
// partitioned by /id: its partition key is the id itself, a string.
func idKey(id string) mKey { return mKey{mPK{kind: mkString, str: id}, id} }

// otherPK draws a partition key that is not the id, for a lookup of id in
// a collection partitioned by /id: such a lookup finds nothing (R10: the
// key is (partition key, id), and no document has that key).
func (h *modelHarness) otherPK(id string) mPK {
	for {
		var p mPK
		switch h.r.IntN(6) {
		case 0: // another id's partition, maybe a live document's
			if live := h.m.list(nil, nil, nil); len(live) > 0 && h.r.IntN(2) == 0 {
				p = pick(h.r, live).pk
			} else {
				p = pick(h.r, h.parts).pk
			}
		case 1: // any kind
			p = pick(h.r, append([]modelPart{modelNone}, modelPartitions...)).pk
		case 2: // the id as another kind, or a near miss of it
			n, err := strconv.ParseFloat(id, 64)
			switch h.r.IntN(4) {
			case 0:
				if err == nil {
					p = mPK{kind: mkNumber, num: n}
				} else {
					p = mPK{kind: mkNumber, num: 1}
				}
			case 1:
				p = mPK{kind: mkString, str: id + "\x00"}
			case 2:
				p = mPK{kind: mkString, str: strings.ToUpper(id) + "x"}
			default:
				rs := []rune(id) // a prefix of the id, still valid UTF-8
				p = mPK{kind: mkString, str: string(rs[:len(rs)-1])}
			}
		default:
			p = pick(h.r, []mPK{{kind: mkNone}, {kind: mkNull}, {kind: mkTrue}, {kind: mkNumber, num: 1}, {kind: mkString, str: "zz"}})
		}
		if p != idKey(id).pk {
			return p
		}
	}
}

func (h *modelHarness) idLit(id string) string {
	for _, x := range h.ids {
		if x.id == id {
			return pick(h.r, x.lits)
		}
	}
	panic("unknown id " + id)
}

func (h *modelHarness) pkLit(p mPK) string {
	for _, x := range modelPartitions {
		if x.pk == p {
			return pick(h.r, x.lits)
		}
	}
	panic("unknown partition")
}

// pkMember is the member that puts a document in partition p, at the
// path /pk or /t/pk; ok is false when there is none. bad, when not
// empty, is the literal to put at the path instead. With the path /id
// there is none: the id member is the partition key.
func (h *modelHarness) pkMember(p mPK, bad string) (m mMember, ok bool) {
	if h.idPath {
		return mMember{}, false
	}
	lit := bad
	if lit == "" && p.kind != mkNone {
		lit = h.pkLit(p)
	}
	if !h.nested {
		return mMember{"pk", lit}, lit != ""
	}
	inner := []string{`"x":1`}
	if lit != "" {
		inner = append(inner, `"pk":`+lit)
	}
	switch {
	case lit == "" && h.r.IntN(3) == 0: // no partition key: no "t" at all
		return mMember{}, false
	case lit == "" && h.r.IntN(2) == 0:
		inner = nil
	}
	h.r.Shuffle(len(inner), func(i, j int) { inner[i], inner[j] = inner[j], inner[i] })
	return mMember{"t", "{" + strings.Join(inner, ",") + "}"}, true
}
