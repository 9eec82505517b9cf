package conformance

// A model-based randomized test. A reference model written from SPEC.md
// alone (type model) and a real Collection run the same random sequence of
// operations; after every step each return value, error class, listing and
// count of the library must be what the model predicts.
//
//	go test -run 'TestConformance/.*/Model' ./                         # the default sequences
//	TTLDB_MODEL_SEED=12345 go test -run 'TestConformance/.*/Model' ./  # replay one sequence
//	TTLDB_MODEL_SEQUENCES=20000 TTLDB_MODEL_STEPS=1000 go test -run 'TestConformance/.*/Model' ./
//
// (TestConformance is the root package's run of the suite; an engine's
// own test of the suite takes the same variables.)
//
// A failure reports the sequence's seed, the step, and the last steps run.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ttldb/ttldb"
)

// How many sequences the model check runs, each of 100 to 200 steps: fewer under
// the race detector, which makes them about eight times slower, and fewer
// in the quick form that a plain `go test ./...` runs than in the long form
// that CI runs (Long). On a 2-core machine shared with other
// work the long defaults take 10 to 14 s, and 9 to 22 s with -race, about a
// third of it for the change feed's checks (model_feed_test.go); the quick
// ones about a tenth of that. On a loaded machine the test stops starting
// sequences after its time budget, so that it stays under a minute (a
// quarter of that in the quick form).
// TTLDB_MODEL_SEQUENCES and TTLDB_MODEL_STEPS override the defaults (and
// lift the budget).
const (
	modelDefaultSequences     = 4000
	modelDefaultSequencesRace = 600
	modelTimeBudget           = 40 * time.Second
	modelQuickDivisor         = 10
)

// raceEnabled reports whether the test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && slices.ContainsFunc(bi.Settings, func(s debug.BuildSetting) bool { return s.Key == "-race" && s.Value == "true" })
}

// ---------------------------------------------------------------------------
// The reference model, from SPEC.md alone.

// Partition-key kinds, in the order listings visit them: none, null, false,
// true, numbers (ascending), strings (by bytes) (R10, Query).
const (
	mkNone = iota
	mkNull
	mkFalse
	mkTrue
	mkNumber
	mkString
)

// mPK is a partition-key value. Numbers are float64 and never -0, so that
// == is partition identity.
type mPK struct {
	kind int
	num  float64
	str  string
}

// mKey is a document's identity: (partition key, id) (R10).
type mKey struct {
	pk mPK
	id string
}

func cmpKey(a, b mKey) int {
	return cmp.Or(cmp.Compare(a.pk.kind, b.pk.kind), cmp.Compare(a.pk.num, b.pk.num),
		strings.Compare(a.pk.str, b.pk.str), strings.Compare(a.id, b.id))
}

// A document's own ttl (R2): absent, null, -1 or n seconds; lit is the JSON
// literal as written, which the library must return unchanged.
const (
	ttlAbsent = iota
	ttlNull
	ttlNever
	ttlSeconds
)

type mTTL struct {
	kind int
	n    int64
	lit  string
}

// mDefault is the collection's DefaultTTL (R1): off, or on with n == -1 or
// n >= 1 seconds.
type mDefault struct {
	on bool
	n  int64
}

func (d mDefault) String() string {
	if !d.on {
		return "off"
	}
	return strconv.FormatInt(d.n, 10)
}

// effectiveTTL is the table of R3: the seconds after _ts at which a
// document expires, and whether it expires at all.
//
//	                 | DefaultTTL off | DefaultTTL -1 | DefaultTTL n
//	ttl absent/null  | never          | never         | after n
//	ttl -1           | never          | never         | never
//	ttl m            | never          | after m       | after m
func effectiveTTL(def mDefault, ttl mTTL) (int64, bool) {
	switch {
	case !def.on:
		return 0, false
	case ttl.kind == ttlNever:
		return 0, false
	case ttl.kind == ttlSeconds:
		return ttl.n, true
	case def.n > 0: // absent or null inherits n
		return def.n, true
	}
	return 0, false // absent or null under -1
}

// mMember is a top-level member of a document: its name and its value as
// compact JSON, as written.
type mMember struct{ name, raw string }

// mDoc is a live document.
type mDoc struct {
	members []mMember // in the order the library returns them, without _ts and _etag
	ttl     mTTL
	ts      int64  // _ts: the second of the last write
	etag    string // _etag: not predictable, so taken from the library's write
	checked string // the library's JSON of this version, once checkDoc has compared it member by member
	json    string // the library's JSON of this version, as its write returned it: the change feed's (R11)
	lsn     uint64 // the LSN of this version's write, as its write returned it (R11)
}

// model is the oracle: the collection as SPEC.md describes it.
type model struct {
	docs    map[mKey]*mDoc // the live documents, and only those
	def     mDefault
	noIndex bool     // indexing mode none (R8)
	indexes []string // the secondary indexes' paths, in the order they were made (R13; model_query_test.go)
	now     int64    // whole Unix seconds; never goes backward (R4)
	closed  bool

	// Not visible to reads, only to Sweep and Stats (R5): the keys whose
	// document expired and that no sweep has deleted yet, and how many
	// documents sweeps have deleted.
	unswept map[mKey]bool
	swept   int

	hist mHistory // the change feed: every change, in order (R11; model_feed_test.go)
}

func newModel(def mDefault, noIndex bool, now int64) *model {
	return &model{docs: map[mKey]*mDoc{}, def: def, noIndex: noIndex, now: now, unswept: map[mKey]bool{}}
}

// observe moves "now" to the wall clock's second unless that is earlier: a
// wall clock stepping back moves nothing (R4). It then drops the documents
// that have expired.
//
// Dropping expired documents at once is equivalent to the spec (R4, R7).
// A document is expired when _ts + t <= now (R4), where t follows the
// DefaultTTL in force (R3). Under one setting that is monotone in now: once
// expired, a document stays expired while the setting holds. "Now" only
// moves in a clock step, which calls observe, and the setting only changes
// in SetDefaultTTL, which calls observe with the old setting before the
// change (what had expired stays gone) and with the new one after it (the
// change applies at once). So a document is dropped exactly when it has
// been expired under some setting at some instant the collection saw,
// which is R7's decision: a document that had already expired when the
// setting changed stays gone, even if it was not yet physically deleted
// and even if the new setting would keep it. Expired documents are
// invisible to every operation (R4), so no read can tell a dropped
// document from an expired one; only Stats and Sweep can (R5), and
// unswept tracks what they see.
func (m *model) observe(sec int64) {
	m.now = max(m.now, sec)
	for k, d := range m.docs {
		if t, ok := effectiveTTL(m.def, d.ttl); ok && d.ts+t <= m.now {
			delete(m.docs, k)
			m.unswept[k] = true
			m.hist.expire(k, m.now)
		}
	}
}

// Error classes: the name of the sentinel a call must match, "" for success.
const (
	okClass           = ""
	classNotFound     = "ErrNotFound"
	classConflict     = "ErrConflict"
	classPrecondition = "ErrPreconditionFailed"
	classInvalidTTL   = "ErrInvalidTTL"
	classInvalidID    = "ErrInvalidID"
	classInvalidPK    = "ErrInvalidPartitionKey"
	classInvalidDoc   = "ErrInvalidDocument"
	classTooLarge     = "ErrTooLarge"
	classInvalidOpt   = "ErrInvalidOption"
	classInvalidToken = "ErrInvalidContinuation"
	classClosed       = "ErrClosed"
	classInvalidPatch = "ErrInvalidPatch" // R14
	classInvalidBatch = "ErrInvalidBatch" // R14
	// classInvalidQuery, R13: model_query_test.go
)

// write is Create, Replace or Upsert of d at k, with an if-match etag when
// cond is not nil. Input was validated by the caller: bad input is rejected
// whatever the state (R2, R10).
func (m *model) write(op string, k mKey, d mDoc, cond *string) string {
	if m.closed {
		return classClosed
	}
	old := m.docs[k]
	switch {
	case op == "Create" && old != nil:
		return classConflict // R10; an expired document does not conflict (R4)
	case (op == "Replace" || cond != nil) && old == nil:
		return classNotFound // R4: expired is not found, also for if-match
	case cond != nil && *cond != old.etag:
		return classPrecondition // R10
	}
	d.ts = m.now // R6: every write sets _ts anew
	m.docs[k] = &d
	// R11: an upsert is the operation it performed. Over an expired
	// document no sweep has deleted, that document's delete comes first,
	// as the sweeper's.
	change := ttldb.OpReplace
	if old == nil {
		change = ttldb.OpCreate
		if m.unswept[k] {
			m.hist.sweep([]mKey{k}, m.now)
		}
	}
	m.hist.change(change, k, m.now, &d)
	delete(m.unswept, k)
	return okClass
}

// lookup is the common part of Get, Delete and Touch.
func (m *model) lookup(k mKey, cond *string) (*mDoc, string) {
	if m.closed {
		return nil, classClosed
	}
	d := m.docs[k]
	switch {
	case d == nil:
		return nil, classNotFound // R4
	case cond != nil && *cond != d.etag:
		return nil, classPrecondition // R10
	}
	return d, okClass
}

func (m *model) remove(k mKey, cond *string) string {
	_, class := m.lookup(k, cond)
	if class == okClass {
		delete(m.docs, k)
		m.hist.change(ttldb.OpDelete, k, m.now, nil)
	}
	return class
}

// touch is a write that keeps the body and the ttl (R6).
func (m *model) touch(k mKey, cond *string) string {
	d, class := m.lookup(k, cond)
	if class == okClass {
		nd := *d
		nd.ts, nd.checked, nd.json, nd.lsn = m.now, "", "", 0
		m.docs[k] = &nd
		m.hist.change(ttldb.OpReplace, k, m.now, &nd) // R11: a touch is a replace
	}
	return class
}

// setDefault is SetDefaultTTL: R1 (valid values), R8 (needs indexing), R7
// (applies at once; observe has already dropped what had expired).
func (m *model) setDefault(d mDefault, valid bool) string {
	switch {
	case !valid:
		return classInvalidTTL
	case m.closed:
		return classClosed
	case d.on && m.noIndex:
		return classInvalidOpt
	}
	m.observe(m.now) // R7: what had expired under the old setting stays gone
	m.def = d
	m.observe(m.now) // R7: at once, for every document written before
	return okClass
}

func (m *model) setIndexing(mode ttldb.IndexingMode) string {
	switch {
	case mode != ttldb.IndexingConsistent && mode != ttldb.IndexingNone:
		return classInvalidOpt
	case m.closed:
		return classClosed
	case mode == ttldb.IndexingNone && m.def.on:
		return classInvalidOpt // R8
	case mode == ttldb.IndexingNone && len(m.indexes) > 0:
		return classInvalidOpt // R8, R13: mode none keeps no secondary index
	}
	m.noIndex = mode == ttldb.IndexingNone
	return okClass
}

// sweep deletes every expired document, and nothing while TTL is off (R5).
func (m *model) sweep() (int, string) {
	if m.closed {
		return 0, classClosed
	}
	if !m.def.on {
		return 0, okClass
	}
	n := len(m.unswept)
	if n > 0 {
		m.hist.sweep(slices.SortedFunc(maps.Keys(m.unswept), cmpKey), m.now) // R11: one delete each
	}
	clear(m.unswept)
	m.swept += n
	return n, okClass
}

// list returns the live keys in the partition (nil: all), after the key
// after (nil: from the start), that keep selects (nil: all), in listing
// order.
func (m *model) list(part *mPK, keep func(mKey, *mDoc) bool, after *mKey) []mKey {
	var ks []mKey
	for k, d := range m.docs {
		if (part == nil || k.pk == *part) && (after == nil || cmpKey(*after, k) < 0) && (keep == nil || keep(k, d)) {
			ks = append(ks, k)
		}
	}
	slices.SortFunc(ks, cmpKey)
	return ks
}

// ---------------------------------------------------------------------------
// The key space and the values the generator draws from.

// modelPart is a partition and the JSON literals that write it.
type modelPart struct {
	pk   mPK
	lits []string
}

var modelNone = modelPart{pk: mPK{kind: mkNone}}

// modelPartitions: each sequence uses the none partition and two of these.
var modelPartitions = []modelPart{
	{mPK{kind: mkNull}, []string{"null"}},
	{mPK{kind: mkFalse}, []string{"false"}},
	{mPK{kind: mkTrue}, []string{"true"}},
	{mPK{kind: mkNumber, num: 0}, []string{"0", "-0", "0.0", "0e5"}},
	{mPK{kind: mkNumber, num: 2.5}, []string{"2.5", "25e-1", "2.50"}},
	{mPK{kind: mkNumber, num: -3}, []string{"-3", "-3.0", "-3E0"}},
	{mPK{kind: mkString, str: "a"}, []string{`"a"`, `"\u0061"`}},
	{mPK{kind: mkString, str: ""}, []string{`""`}},
	{mPK{kind: mkString, str: "a\x00b"}, []string{`"a\u0000b"`}},
	{mPK{kind: mkString, str: "é"}, []string{`"é"`, `"\u00e9"`}},
	{mPK{kind: mkString, str: "B"}, []string{`"B"`}},
}

// modelID is an id and the JSON literals that write it.
type modelID struct {
	id   string
	lits []string
}

// modelIDs are the ids, with the JSON literals that write them.
var modelIDs = []modelID{
	{"a", []string{`"a"`, `"\u0061"`}},
	{"B", []string{`"B"`}},
	{"aa", []string{`"aa"`}},
	{"é", []string{`"é"`, `"\u00e9"`}},
	{"1", []string{`"1"`}},
	{"z~", []string{`"z~"`}},
}

// modelIDPathIDs are more ids for the collections partitioned by /id,
// where an id is also a partition key (a string): each written with and
// without escapes, which must all give one id and one partition. (Not
// '<', '>' or '&', which encoding/json escapes in the Go-value payloads.)
var modelIDPathIDs = []modelID{
	{`a"b`, []string{`"a\"b"`, `"a\u0022b"`}},
	{"😀", []string{`"😀"`, `"\ud83d\ude00"`, `"\uD83D\uDE00"`}},
	{"x y", []string{`"x y"`, `"x\u0020y"`}},
	{"ÿ~", []string{`"ÿ~"`, `"\u00ff~"`, `"\u00FF\u007e"`}},
}

// Invalid values (R2, R10) and the class of error they must get.
var (
	modelBadTTLs = []string{"0", "-0", "0.0", "-2", "-5", "10.5", "1e-1", "2147483648", "2147483647.5",
		"1e10", "1e400", `"10"`, `"-1"`, "true", "false", "{}", "[]", "[5]", `{"n":5}`}
	modelBadIDLits = []string{`""`, `"a/b"`, `"a\\b"`, `"a?b"`, `"a#b"`, `"a\u0001"`, `"\u007f"`,
		`"a\u0085"`, "42", "null", "true", "{}", `["a"]`, `"` + strings.Repeat("x", ttldb.MaxIDLength+1) + `"`}
	modelBadIDs = []string{"", "a/b", `a\b`, "a?", "#", "\x01", "\x7f", "a\u0085", "\xff",
		strings.Repeat("x", ttldb.MaxIDLength+1)}
	modelBadPKLits = []string{`{"a":1}`, "[1]", "[]", "{}", `"` + strings.Repeat("p", 3000) + `"`}
	// With the path /id, the id is the partition key: values that would
	// be good or bad partition keys, none of them a good id (R10: the id
	// is a string of at most 1023 bytes).
	modelBadIDPKLits = append([]string{"42", "-3.0", "0", "null", "true", "false", `"a/b"`, `""`,
		`"` + strings.Repeat("q", ttldb.MaxIDLength+1) + `"`}, modelBadPKLits...)
	// With the path /id, values of a "pk" member, which is then ordinary
	// data, good partition key or not.
	modelOrdinaryPKs = []string{`"a"`, `"B"`, `"zz"`, "1", "-3", "null", "true", `{"pk":"a"}`,
		`{"a":1}`, "[1]", "[]", `"` + strings.Repeat("p", 3000) + `"`}
	modelBadPKs = []ttldb.PartitionKey{ttldb.NumberKey(math.NaN()), ttldb.NumberKey(math.Inf(1)),
		ttldb.StringKey("\xff"), ttldb.StringKey(strings.Repeat("p", 3000))}
	modelNotObjects = []string{"[1,2]", `"s"`, "42", "null", "true", "", "  "}
	modelBadJSON    = []string{`{"id":"a"`, `{"id":"a",}`, `{id:"a"}`, `{"id":"a"} x`, `{"id":"a","v":01}`,
		`{"id":"a","v":.5}`, `{"id":"a\x"}`, `{"id":"a","v":tru}`, "{\"id\":\"a\tb\"}", `{"id" "a"}`}
)

// modelFilters are the Query filters: each as the library runs it and as
// the model runs it.
var modelFilters = []struct {
	name  string
	lib   func(c *ttldb.Collection) func(ttldb.Document) bool
	model func(mKey, *mDoc) bool
}{
	{"none", nil, nil},
	{"id<b", func(*ttldb.Collection) func(ttldb.Document) bool {
		return func(d ttldb.Document) bool { return d.ID() < "b" }
	}, func(k mKey, _ *mDoc) bool { return k.id < "b" }},
	{"own ttl", func(*ttldb.Collection) func(ttldb.Document) bool {
		return func(d ttldb.Document) bool { _, ok := d.TTL(); return ok }
	}, func(_ mKey, d *mDoc) bool { return d.ttl.kind == ttlNever || d.ttl.kind == ttlSeconds }},
	{"even _ts", func(*ttldb.Collection) func(ttldb.Document) bool {
		return func(d ttldb.Document) bool { return d.TS()%2 == 0 }
	}, func(_ mKey, d *mDoc) bool { return d.ts%2 == 0 }},
	// A filter may call the collection (Query.Filter): every listed
	// document is live, so Get finds it.
	{"Get inside", func(c *ttldb.Collection) func(ttldb.Document) bool {
		return func(d ttldb.Document) bool { _, err := c.Get(bg, d.PartitionKey(), d.ID()); return err == nil }
	}, func(mKey, *mDoc) bool { return true }},
}

// modelSentinels are the sentinel errors; every error must match exactly one.
var modelSentinels = []struct {
	class string
	err   error
}{
	{classNotFound, ttldb.ErrNotFound}, {classConflict, ttldb.ErrConflict},
	{classPrecondition, ttldb.ErrPreconditionFailed}, {classInvalidTTL, ttldb.ErrInvalidTTL},
	{classInvalidID, ttldb.ErrInvalidID}, {classInvalidPK, ttldb.ErrInvalidPartitionKey},
	{classInvalidDoc, ttldb.ErrInvalidDocument}, {classTooLarge, ttldb.ErrTooLarge},
	{classInvalidOpt, ttldb.ErrInvalidOption}, {classInvalidToken, ttldb.ErrInvalidContinuation},
	{classClosed, ttldb.ErrClosed}, {classInvalidPatch, ttldb.ErrInvalidPatch},
	{classInvalidBatch, ttldb.ErrInvalidBatch}, {classInvalidQuery, ttldb.ErrInvalidQuery},
}

// errClass names the one sentinel err matches.
func errClass(err error) (string, error) {
	if err == nil {
		return okClass, nil
	}
	var found []string
	for _, s := range modelSentinels {
		if errors.Is(err, s.err) {
			found = append(found, s.class)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("error %q matches %d sentinels %v, want exactly one", err, len(found), found)
	}
	return found[0], nil
}

// inputClasses are errors about the input. A closed collection reports
// ErrClosed instead: every call after Close returns it, whatever its input.
var inputClasses = map[string]bool{classInvalidTTL: true, classInvalidID: true, classInvalidPK: true,
	classInvalidDoc: true, classTooLarge: true, classInvalidOpt: true, classInvalidToken: true, classInvalidQuery: true}

// ---------------------------------------------------------------------------
// The harness: one sequence, a real collection and the model side by side.

type modelHarness struct {
	t          testing.TB // the sequence's subtest, for the engine's harness
	eng        Harness    // the engine under test
	seed       uint64
	r          *rand.Rand
	c          *ttldb.Collection
	m          *model
	wall       atomic.Int64      // the wall clock, Unix nanoseconds; read by the sweeper goroutine too
	background bool              // the background sweeper runs (physical deletion is then unpredictable)
	byKey      bool              // checkInvariants reads the live documents by key, not by a listing, so that only the steps that list build the key order (order.go)
	nested     bool              // the partition-key path is /t/pk, not /pk
	idPath     bool              // the partition-key path is /id: every document's partition key is its id
	path       string            // the partition-key path: /pk, /t/pk or /id
	parts      []modelPart       // the partitions the sequence writes; with idPath, one per id of ids
	ids        []modelID         // the ids the sequence writes
	etags      map[mKey][]string // every etag each key has had, oldest first
	tokens     []modelToken      // continuation tokens kept for later steps
	kept       []keptDoc         // Documents returned earlier, which must never change
	open       []*openListing    // All iterations started in one step, finished in another
	feed       feedState         // the change feed as read so far (R11; model_feed_test.go)
	bodies     map[*mDoc]jv      // documents' members as queries read them (R13; model_query_test.go)
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

// genTTL draws a valid document ttl (R2), in one of its literal forms.
func (h *modelHarness) genTTL() mTTL {
	r := h.r
	switch r.IntN(10) {
	case 0, 1:
		return mTTL{kind: ttlAbsent}
	case 2:
		return mTTL{kind: ttlNull, lit: "null"}
	case 3:
		return mTTL{kind: ttlNever, n: -1, lit: pick(r, []string{"-1", "-1", "-1.0", "-10e-1"})}
	case 4:
		if r.IntN(3) == 0 {
			return mTTL{kind: ttlSeconds, n: ttldb.MaxTTL, lit: pick(r, []string{"2147483647", "2147483647.0"})}
		}
	}
	n := 1 + r.Int64N(8)
	s := strconv.FormatInt(n, 10)
	return mTTL{kind: ttlSeconds, n: n, lit: pick(r, []string{s, s, s + ".0", s + "e0", s + "0e-1", s + "E+0"})}
}

// docInput is what a write passes, and what the model expects of it.
type docInput struct {
	payload any
	text    string
	doc     *mDoc  // the document the library must store, nil for bad input
	class   string // the error class of bad input
	msg     string // a value the error text must name, or ""
}

// render writes members as a JSON object, with random insignificant
// whitespace between the tokens.
func (h *modelHarness) render(ms []mMember) string {
	ws := func() string {
		if h.r.IntN(8) == 0 {
			return pick(h.r, []string{" ", "\n", "\t", "\r\n  "})
		}
		return ""
	}
	var b strings.Builder
	b.WriteString(ws() + "{")
	for i, m := range ms {
		if i > 0 {
			b.WriteString(ws() + ",")
		}
		b.WriteString(ws() + strconv.Quote(m.name) + ws() + ":" + ws() + m.raw)
	}
	b.WriteString(ws() + "}" + ws())
	return b.String()
}

func setMember(ms []mMember, name, raw string) []mMember {
	for i := range ms {
		if ms[i].name == name {
			ms[i].raw = raw
			return ms
		}
	}
	return append(ms, mMember{name, raw})
}

// genDoc draws a document for key k: valid, or with exactly one defect.
func (h *modelHarness) genDoc(k mKey, valid bool) docInput {
	r := h.r
	ms := []mMember{{"id", h.idLit(k.id)}}
	if m, ok := h.pkMember(k.pk, ""); ok {
		ms = append(ms, m)
	}
	if h.idPath {
		if k != idKey(k.id) {
			panic(fmt.Sprintf("key %v in a collection partitioned by /id", k))
		}
		// With the path /id a "pk" member is ordinary data, whatever it
		// holds: it puts the document in no other partition.
		if r.IntN(3) == 0 {
			ms = append(ms, mMember{"pk", pick(r, modelOrdinaryPKs)})
		}
	}
	ttl := h.genTTL()
	if ttl.kind != ttlAbsent {
		ms = append(ms, mMember{"ttl", ttl.lit})
	}
	if r.IntN(4) > 0 {
		ms = append(ms, mMember{"v", strconv.Itoa(r.IntN(1000))})
	}
	if r.IntN(5) == 0 { // R9: a nested ttl is just data
		ms = append(ms, mMember{"sub", `{"ttl":"soon","id":7,"pk":[1],"_ts":1,"x":[1,{"ttl":0}]}`})
	}
	r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	stored := slices.Clone(ms)
	if r.IntN(6) == 0 { // the library writes _ts and _etag itself
		for _, sys := range []mMember{{"_ts", "12"}, {"_etag", `"0000000000000000"`}} {
			at := r.IntN(len(ms) + 1)
			ms = slices.Insert(ms, at, sys)
		}
	}
	in := docInput{doc: &mDoc{members: stored, ttl: ttl}}
	if valid {
		in.text = h.render(ms)
		switch r.IntN(6) {
		case 0:
			in.payload = json.RawMessage(in.text)
		case 1: // a Go value: encoding/json writes the members sorted by name
			m := map[string]any{}
			for _, x := range ms {
				m[x.name] = json.RawMessage(x.raw)
			}
			in.payload = m
			slices.SortFunc(in.doc.members, func(a, b mMember) int { return strings.Compare(a.name, b.name) })
		default:
			in.payload = []byte(in.text)
		}
		return in
	}

	in.doc = nil
	whole := false // the defect is the whole text, not a member
	switch r.IntN(10) {
	case 0, 1: // R2
		bad := pick(r, modelBadTTLs)
		ms = setMember(ms, "ttl", bad)
		in.class, in.msg = classInvalidTTL, bad
	case 2: // R10
		ms = setMember(ms, "id", pick(r, modelBadIDLits))
		in.class = classInvalidID
	case 3:
		ms = slices.DeleteFunc(ms, func(x mMember) bool { return x.name == "id" })
		in.class = classInvalidID
	case 4:
		if h.idPath { // the partition key is the id: a bad one is a bad id (R10)
			ms = setMember(ms, "id", pick(r, modelBadIDPKLits))
			in.class = classInvalidID
			break
		}
		m, _ := h.pkMember(k.pk, pick(r, modelBadPKLits))
		ms = setMember(ms, m.name, m.raw)
		in.class = classInvalidPK
	case 5:
		in.text, in.class, whole = pick(r, modelNotObjects), classInvalidDoc, true
	case 6:
		in.text, in.class, whole = pick(r, modelBadJSON), classInvalidDoc, true
	case 7:
		ms = append(ms, mMember{"deep", strings.Repeat("[", 200) + strings.Repeat("]", 200)})
		in.class = classInvalidDoc
	case 8:
		if r.IntN(40) == 0 {
			ms = append(ms, mMember{"big", `"` + strings.Repeat("b", ttldb.MaxDocumentSize) + `"`})
			in.class = classTooLarge
		} else {
			ms = setMember(ms, "ttl", "0")
			in.class, in.msg = classInvalidTTL, "0"
		}
	case 9: // Go values that are not JSON objects
		in.class = classInvalidDoc
		v := pick(r, []any{"{}", nil, []int{1}, make(chan int), 42})
		in.payload, in.text = v, fmt.Sprintf("Go value of type %T", v)
		return in
	}
	if !whole {
		in.text = h.render(ms)
	}
	in.payload = []byte(in.text)
	return in
}

// genIfMatch draws the write options: none, or an if-match etag that is
// current, stale, of another key, or made up.
func (h *modelHarness) genIfMatch(k mKey) ([]ttldb.WriteOption, *string, string) {
	r := h.r
	if r.IntN(2) == 0 {
		if r.IntN(4) == 0 {
			return []ttldb.WriteOption{{}}, nil, " opts=[zero]" // the zero WriteOption adds no condition
		}
		return nil, nil, ""
	}
	var etag, what string
	switch n := r.IntN(10); {
	case n < 5 && h.m.docs[k] != nil:
		etag, what = h.m.docs[k].etag, "current"
	case n < 8 && len(h.etags[k]) > 0:
		etag, what = pick(r, h.etags[k]), "earlier"
	case n < 9 && len(h.etags) > 0:
		keys := slices.SortedFunc(maps.Keys(h.etags), cmpKey) // sorted: a seed must replay
		e := h.etags[pick(r, keys)]
		etag, what = e[len(e)-1], "some key's last"
	}
	if what == "" {
		etag, what = pick(r, []string{"0000000000000000", "bogus", `"x"`}), "made-up"
	}
	desc := fmt.Sprintf(" IfMatch(%s %q)", what, etag)
	if r.IntN(6) == 0 { // the last IfMatch wins
		return []ttldb.WriteOption{ttldb.IfMatch("stale"), ttldb.IfMatch(etag)}, &etag, desc + " after IfMatch(stale)"
	}
	return []ttldb.WriteOption{ttldb.IfMatch(etag)}, &etag, desc
}

// checkErr compares an error with the class the model predicts; msg, when
// not empty, is a value the error text must name.
func (h *modelHarness) checkErr(op string, err error, want, msg string) error {
	got, e := errClass(err)
	if e != nil {
		return fmt.Errorf("%s: %v", op, e)
	}
	if h.m.closed && inputClasses[want] {
		want, msg = classClosed, ""
	}
	if got == want {
		if err != nil && got == want && msg != "" && !strings.Contains(err.Error(), msg) {
			return fmt.Errorf("%s: error %q does not name %q", op, err, msg)
		}
		return nil
	}
	return fmt.Errorf("%s: library says %s (%v), model says %s", op, orOK(got), err, orOK(want))
}

func orOK(class string) string {
	if class == okClass {
		return "success"
	}
	return class
}

// checkDoc compares a Document with the model's document at k.
func (h *modelHarness) checkDoc(op string, got ttldb.Document, k mKey, want *mDoc) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: document %v: %s\n  got  %.300s", op, k, fmt.Sprintf(format, args...), got.JSON())
	}
	if got.ID() != k.id {
		return fail("ID() %q, want %q", got.ID(), k.id)
	}
	if got.String() != got.JSON() || string(got.AppendJSON([]byte("x"))) != "x"+got.JSON() || got.Timestamp().Unix() != got.TS() {
		return fail("String, AppendJSON or Timestamp disagree with JSON and TS")
	}
	v, ok := got.PartitionKey().Value()
	wv, wok := pkValue(k.pk)
	if ok != wok || v != wv {
		return fail("PartitionKey() %v, want %s", got.PartitionKey(), pkName(k.pk))
	}
	if got.TS() != want.ts {
		return fail("_ts %d, want %d", got.TS(), want.ts)
	}
	n, ok := got.TTL()
	if wok := want.ttl.kind == ttlNever || want.ttl.kind == ttlSeconds; ok != wok || (ok && int64(n) != want.ttl.n) {
		return fail("TTL() %d %v, want %q", n, ok, want.ttl.lit)
	}
	if want.etag != "" && got.ETag() != want.etag {
		return fail("_etag %q, want %q (the etag of the last write)", got.ETag(), want.etag)
	}
	// The members as written, ttl exactly as written (R2), then _ts and
	// _etag last. (Parsing is slow: skip it for the JSON already compared.)
	if got.JSON() != want.checked {
		ms, err := jsonMembers(got.JSON())
		if err != nil {
			return fail("%v", err)
		}
		wantMs := append(slices.Clone(want.members),
			mMember{"_ts", strconv.FormatInt(want.ts, 10)}, mMember{"_etag", strconv.Quote(got.ETag())})
		if !slices.Equal(ms, wantMs) {
			return fail("members %v, want %v", ms, wantMs)
		}
		if want.etag != "" {
			want.checked = got.JSON()
		}
	}
	if _, live := h.m.docs[k]; !live || h.m.docs[k].etag != want.etag {
		// A version an open listing read: it may have expired since, under
		// a setting since changed, and then keeps the instant it expired at
		// (R7), which only a live document's expiry below predicts.
		return nil
	}
	at, ok := h.c.ExpiresAt(got) // R3 under the current DefaultTTL
	t, wok := effectiveTTL(h.m.def, want.ttl)
	if ok != wok || (ok && at.Unix() != want.ts+t) {
		return fail("ExpiresAt %v %v, want expires=%v at %d", at.Unix(), ok, wok, want.ts+t)
	}
	return nil
}

// jsonMembers splits a JSON object into its members, values compacted.
func jsonMembers(s string) ([]mMember, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	var ms []mMember
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return nil, err
		}
		ms = append(ms, mMember{t.(string), b.String()})
	}
	return ms, nil
}

// written records the etag of a successful write: new for the key (R10),
// and what later reads must return.
func (h *modelHarness) written(op string, k mKey, got ttldb.Document) error {
	e := got.ETag()
	if e == "" || slices.Contains(h.etags[k], e) {
		return fmt.Errorf("%s: document %v: etag %q is empty or was used before by the key (R10: _etag changes on every write)", op, k, e)
	}
	h.etags[k] = append(h.etags[k], e)
	h.m.docs[k].etag = e
	if err := h.feedWritten(op, k, got); err != nil {
		return err
	}
	if len(h.kept) < 6 || h.r.IntN(4) == 0 {
		if len(h.kept) == 6 {
			h.kept = h.kept[1:]
		}
		h.kept = append(h.kept, keptDoc{got, got.JSON()})
	}
	return h.checkDoc(op, got, k, h.m.docs[k])
}

// ---------------------------------------------------------------------------
// The steps.

// modelStep is one operation: what it does, and a run that performs it on
// the library and the model and returns a short result or the first
// disagreement.
type modelStep struct {
	desc string
	run  func() (string, error)
}

// modelOps is the table of operation generators and their weights.
var modelOps = []struct {
	name   string
	weight int
	gen    func(h *modelHarness) modelStep
}{
	{"Create", 12, func(h *modelHarness) modelStep { return h.genWrite("Create") }},
	{"Replace", 7, func(h *modelHarness) modelStep { return h.genWrite("Replace") }},
	{"Upsert", 7, func(h *modelHarness) modelStep { return h.genWrite("Upsert") }},
	{"Delete", 5, func(h *modelHarness) modelStep { return h.genKeyOp("Delete") }},
	{"Touch", 5, func(h *modelHarness) modelStep { return h.genKeyOp("Touch") }},
	{"Get", 8, func(h *modelHarness) modelStep { return h.genKeyOp("Get") }},
	{"List", 4, (*modelHarness).genList},
	{"Resume", 2, (*modelHarness).genResume},
	{"All", 3, (*modelHarness).genAll},
	{"OpenListing", 2, (*modelHarness).genOpenListing},
	{"FinishListing", 2, (*modelHarness).genFinishListing},
	{"Count", 3, (*modelHarness).genCount},
	{"SetDefaultTTL", 5, (*modelHarness).genSetDefault},
	{"SetIndexingMode", 2, (*modelHarness).genSetIndexing},
	{"Clock", 14, (*modelHarness).genClock},
	{"Sweep", 3, (*modelHarness).genSweep},
	{"Reopen", 2, (*modelHarness).genReopen},
	{"Compact", 1, (*modelHarness).genCompact},
	{"Patch", 8, (*modelHarness).genPatch},        // R14 (model_patch_test.go)
	{"ExecuteBatch", 5, (*modelHarness).genBatch}, // R14 (model_patch_test.go)
	{"Query", 4, (*modelHarness).genSQL},          // R13 (model_query_test.go)
	{"CreateIndex", 2, func(h *modelHarness) modelStep { return h.genIndexOp(true) }},
	{"DropIndex", 1, func(h *modelHarness) modelStep { return h.genIndexOp(false) }},
}

// genReopen closes a durable collection and opens its directory again.
// The options are the collection wanted (R12): half the time they ask for
// the settings it has, and the open changes nothing (Recovery.Changed is
// empty); otherwise for another DefaultTTL or indexing mode, which the open
// applies as SetDefaultTTL and SetIndexingMode would right after it (R7's
// cut-offs at the open's instant; R8's order), listing each change in
// Recovery.Changed. The collection has everything else it had, its indexes
// included, and adds those of Options.Indexes it has not (R13). Only its
// count of swept documents starts again. A collection in memory reads a
// document instead.
func (h *modelHarness) genReopen() modelStep {
	if !h.durable || len(h.open) > 0 || h.m.closed {
		return h.genKeyOp("Get")
	}
	md, none := h.m.def, h.m.noIndex
	if h.r.IntN(2) == 0 { // another DefaultTTL
		switch n := h.r.IntN(4); {
		case n == 0:
			md = mDefault{}
		case n == 1:
			md = mDefault{true, -1}
		default:
			md = mDefault{true, 1 + h.r.Int64N(100)}
		}
	}
	if h.r.IntN(4) == 0 && (none || len(h.m.indexes) == 0) { // another mode: none keeps no index, which the open would refuse
		none = !none
	}
	if md.on && none { // R8, which NewCollection checks of the options first
		md = mDefault{}
	}
	return modelStep{fmt.Sprintf("Reopen DefaultTTL=%v none=%v", md, none), func() (string, error) {
		if err := h.c.Close(); err != nil {
			return "", fmt.Errorf("Close: %v", err)
		}
		o := h.opts
		o.DefaultTTL, o.Indexing = ttldb.TTLOff(), ttldb.IndexingConsistent
		if md.on {
			o.DefaultTTL = ttldb.TTLSeconds(md.n)
		}
		if none {
			o.Indexing = ttldb.IndexingNone
		}
		// Under indexing mode none the options declare no index: the open
		// would be refused (R8).
		o.Indexes = nil
		if !none {
			o.Indexes = h.drawIndexes()
		}
		c, err := h.eng.Reopen(h.t, h.c, &o)
		if err != nil {
			return "", fmt.Errorf("reopen: %v", err)
		}
		h.c = c
		h.m.swept = 0
		// The changes the open made, in its order (R8): mode consistent
		// before TTL on, TTL off before mode none.
		var want []string
		oldDef, oldMode := h.m.def, modeOf(h.m.noIndex)
		setDef := func() {
			if md != oldDef {
				h.m.setDefault(md, true)
				want = append(want, fmt.Sprintf("DefaultTTL: %v → %v", ttlOf(oldDef), o.DefaultTTL))
			}
		}
		setMode := func() {
			if o.Indexing != oldMode {
				h.m.setIndexing(o.Indexing)
				want = append(want, fmt.Sprintf("Indexing: %v → %v", oldMode, o.Indexing))
			}
		}
		if none {
			setDef()
			setMode()
		} else {
			setMode()
			setDef()
		}
		before := slices.Clone(h.m.indexes)
		for _, p := range o.Indexes {
			if !slices.Contains(h.m.indexes, p) {
				h.m.indexes = append(h.m.indexes, p)
			}
		}
		if len(h.m.indexes) > len(before) {
			want = append(want, fmt.Sprintf("Indexes: %v → %v", before, h.m.indexes))
		}
		rec := c.Recovery()
		var got []string
		for _, ch := range rec.Changed {
			got = append(got, ch.String())
		}
		if !slices.Equal(got, want) {
			return "", fmt.Errorf("reopen: Recovery.Changed %q, want %q", got, want)
		}
		// (The background sweeper may delete what expired while closed as
		// soon as the collection opens, after the last change recovered.)
		if lsn := c.LastLSN(); rec.Truncated != "" || lsn < rec.LastLSN || lsn > rec.LastLSN && !h.background {
			return "", fmt.Errorf("reopen after Close: Recovery %+v, LastLSN %d", rec, c.LastLSN())
		}
		if err := h.reopened(); err != nil {
			return "", err
		}
		return fmt.Sprintf("ok, %d changes replayed, Options.Indexes %q, changed %q", rec.Changes, o.Indexes, got), nil
	}}
}

// ttlOf is the library's value of the model's DefaultTTL.
func ttlOf(d mDefault) ttldb.DefaultTTL {
	if !d.on {
		return ttldb.TTLOff()
	}
	return ttldb.TTLSeconds(d.n)
}

// modeOf is the indexing mode the model's noIndex stands for.
func modeOf(none bool) ttldb.IndexingMode {
	if none {
		return ttldb.IndexingNone
	}
	return ttldb.IndexingConsistent
}

// genCompact compacts a durable collection (R12): nothing it holds changes,
// and the next Reopen reads the snapshot it wrote, its all-versions feed
// starting after the snapshot (reopened). A collection in memory reads a
// document instead.
func (h *modelHarness) genCompact() modelStep {
	if !h.durable || h.m.closed {
		return h.genKeyOp("Get")
	}
	return modelStep{"Compact", func() (string, error) {
		lo := h.c.LastLSN()
		if err := h.c.Compact(context.Background()); err != nil {
			return "", fmt.Errorf("Compact: %v", err)
		}
		h.feed.compacted(lo, h.c.LastLSN())
		return "ok", nil
	}}
}

func (h *modelHarness) genWrite(op string) modelStep {
	k := h.pickKey()
	in := h.genDoc(k, h.r.IntN(7) > 0)
	var opts []ttldb.WriteOption
	var cond *string
	var condDesc string
	if op != "Create" {
		opts, cond, condDesc = h.genIfMatch(k)
	}
	return modelStep{op + " " + in.text + condDesc, func() (string, error) {
		var got ttldb.Document
		var err error
		switch op {
		case "Create":
			got, err = h.c.Create(bg, in.payload)
		case "Replace":
			got, err = h.c.Replace(bg, in.payload, opts...)
		case "Upsert":
			got, err = h.c.Upsert(bg, in.payload, opts...)
		}
		want := in.class
		if want == okClass {
			want = h.m.write(op, k, *in.doc, cond)
		}
		msg := in.msg
		if want == classNotFound || want == classConflict || want == classPrecondition {
			msg = strconv.Quote(k.id)
		}
		if e := h.checkErr(op, err, want, msg); e != nil || err != nil {
			return orOK(want), e
		}
		return fmt.Sprintf("ok _ts=%d", got.TS()), h.written(op, k, got)
	}}
}

// nameKey draws how a step names the key k: mostly as it is; 1 in 16 with
// a bad id, 1 in 16 with a bad partition key (R10); with partitions and a
// path other than /id, 1 in 16 in a partition maybe never written; with
// the path /id, n < otherBelow of 16 with a partition key that is not the
// id, which no document has. It returns the key named, as the model sees
// it, and as the library is given it, with the error class expected.
func (h *modelHarness) nameKey(k mKey, partitions bool, otherBelow int) (mKey, ttldb.PartitionKey, string, string) {
	pk, id, class := h.pkGo(k.pk), k.id, okClass
	switch n := h.r.IntN(16); {
	case n == 0:
		id, class = pick(h.r, modelBadIDs), classInvalidID
		if h.idPath && utf8.ValidString(id) && h.r.IntN(2) == 0 {
			pk = ttldb.StringKey(id) // a good partition key, but a bad id (R10)
		}
	case n == 1:
		pk, class = pick(h.r, modelBadPKs), classInvalidPK
	case n == 2 && partitions && !h.idPath: // maybe a partition the sequence never writes
		k.pk = pick(h.r, modelPartitions).pk
		pk = h.pkGo(k.pk)
	case n < otherBelow && h.idPath: // a partition key that is not the id: no document has this key
		k.pk = h.otherPK(k.id)
		pk = h.pkGo(k.pk)
	}
	return k, pk, id, class
}

// genKeyOp is Get, Delete or Touch of a key, sometimes a bad one.
func (h *modelHarness) genKeyOp(op string) modelStep {
	drawn := h.pickKey() // with the path /id, its etags go with the lookups by another partition key
	k, pk, id, class := h.nameKey(drawn, true, 6)
	var opts []ttldb.WriteOption
	var cond *string
	var condDesc string
	if op != "Get" && h.idPath {
		opts, cond, condDesc = h.genIfMatch(drawn)
	} else if op != "Get" {
		opts, cond, condDesc = h.genIfMatch(k)
	}
	desc := fmt.Sprintf("%s(%.40v, %.40q)%s", op, pk, id, condDesc)
	return modelStep{desc, func() (string, error) {
		var got ttldb.Document
		var err error
		switch op {
		case "Get":
			got, err = h.c.Get(bg, pk, id)
		case "Delete":
			err = h.c.Delete(bg, pk, id, opts...)
		case "Touch":
			got, err = h.c.Touch(bg, pk, id, opts...)
		}
		want := class
		if want == okClass {
			switch op {
			case "Get":
				_, want = h.m.lookup(k, nil)
			case "Delete":
				want = h.m.remove(k, cond)
			case "Touch":
				want = h.m.touch(k, cond)
			}
		}
		msg := ""
		if want == classNotFound || want == classPrecondition {
			msg = strconv.Quote(id)
		}
		if e := h.checkErr(op, err, want, msg); e != nil || err != nil {
			return orOK(want), e
		}
		switch op {
		case "Get":
			return fmt.Sprintf("ok _ts=%d", got.TS()), h.checkDoc(op, got, k, h.m.docs[k])
		case "Touch":
			return fmt.Sprintf("ok _ts=%d", got.TS()), h.written(op, k, got)
		}
		return "ok", nil
	}}
}

// modelQuery is a Query, with the model's view of it.
type modelQuery struct {
	q      ttldb.Query
	part   *mPK
	filter int
	class  string // the error the query's input must get, for List and All
	desc   string
}

// genQuery draws a Query: a partition or none (sometimes an unused or a bad
// one), a filter, a limit (sometimes negative).
func (h *modelHarness) genQuery() modelQuery {
	r := h.r
	var mq modelQuery
	var pdesc string
	switch n := r.IntN(20); {
	case n < 9:
		pdesc = "all"
	case n < 17:
		p := pick(r, h.parts).pk
		if live := h.m.list(nil, nil, nil); h.idPath && len(live) > 0 && r.IntN(2) == 0 {
			p = pick(r, live).pk // an id in use
		}
		pk := h.pkGo(p)
		mq.q.Partition, mq.part, pdesc = &pk, &p, fmt.Sprintf("%.40s", pkName(p))
	case n < 19:
		p := pick(r, []mPK{{kind: mkString, str: "zz"}, {kind: mkNumber, num: 99}, pick(r, modelPartitions).pk})
		if h.idPath && r.IntN(2) == 0 { // a partition key that is near an id but none
			p = h.otherPK(pick(r, h.ids).id)
		}
		pk := h.pkGo(p)
		mq.q.Partition, mq.part, pdesc = &pk, &p, fmt.Sprintf("%.40s (maybe unused)", pkName(p))
	default:
		pk := pick(r, modelBadPKs)
		mq.q.Partition, mq.class, pdesc = &pk, classInvalidPK, fmt.Sprintf("%.20v (bad)", pk)
	}
	mq.filter = r.IntN(len(modelFilters))
	if r.IntN(2) == 0 {
		mq.filter = 0
	}
	if f := modelFilters[mq.filter].lib; f != nil {
		mq.q.Filter = f(h.c)
	}
	switch n := r.IntN(20); {
	case n < 9:
	case n < 19:
		mq.q.Limit = 1 + r.IntN(4)
	default:
		if mq.class == okClass {
			mq.q.Limit, mq.class = -1, classInvalidOpt
		}
	}
	mq.desc = fmt.Sprintf("partition=%s filter=%s limit=%d", pdesc, modelFilters[mq.filter].name, mq.q.Limit)
	return mq
}

// listPages follows a listing to its end, page by page, starting from
// mq.q.Continuation, and compares each page with want.
func (h *modelHarness) listPages(op string, mq modelQuery, want []mKey) (string, error) {
	q := mq.q
	for page := 0; ; page++ {
		got, err := h.c.List(bg, q)
		if e := h.checkErr(op, err, mq.class, ""); e != nil || err != nil {
			return orOK(mq.class), e
		}
		n := len(want)
		if q.Limit > 0 {
			n = min(n, q.Limit)
		}
		if err := h.checkDocs(fmt.Sprintf("%s page %d", op, page), got.Documents, want[:n]); err != nil {
			return "", err
		}
		want = want[n:]
		if (got.Continuation != "") != (len(want) > 0) {
			return "", fmt.Errorf("%s page %d: continuation %q, but %d documents remain", op, page, got.Continuation, len(want))
		}
		if got.Continuation == "" {
			return fmt.Sprintf("ok %d pages", page+1), nil
		}
		if h.r.IntN(3) == 0 && len(h.tokens) < 8 {
			h.tokens = append(h.tokens, modelToken{got.Continuation, h.keyOf(got.Documents[n-1]), mq.part, mq.filter, q.Limit})
		}
		q.Continuation = got.Continuation
	}
}

func (h *modelHarness) keyOf(d ttldb.Document) mKey {
	if h.idPath { // checkDocs has compared its partition key with the id
		return idKey(d.ID())
	}
	v, ok := d.PartitionKey().Value()
	for _, p := range h.parts {
		if w, wok := pkValue(p.pk); ok == wok && v == w {
			return mKey{p.pk, d.ID()}
		}
	}
	panic("document in an unknown partition")
}

// checkDocs compares a listing with the model's keys, in order.
func (h *modelHarness) checkDocs(op string, got []ttldb.Document, want []mKey) error {
	if len(got) != len(want) {
		ids := make([]string, len(got))
		for i, d := range got {
			ids[i] = d.PartitionKey().String() + "/" + strconv.Quote(d.ID())
		}
		return fmt.Errorf("%s: %d documents %v, model has %d %v", op, len(got), ids, len(want), want)
	}
	for i, d := range got {
		if err := h.checkDoc(fmt.Sprintf("%s #%d", op, i), d, want[i], h.m.docs[want[i]]); err != nil {
			return err
		}
	}
	return nil
}

func (h *modelHarness) genList() modelStep {
	mq := h.genQuery()
	return modelStep{"List " + mq.desc, func() (string, error) {
		var want []mKey
		if !h.m.closed {
			want = h.m.list(mq.part, modelFilters[mq.filter].model, nil)
		} else if mq.class == okClass {
			mq.class = classClosed
		}
		return h.listPages("List", mq, want)
	}}
}

// genResume resumes a listing with a token kept from an earlier step, with
// its own query or another partition, or with a damaged or made-up token.
func (h *modelHarness) genResume() modelStep {
	if len(h.tokens) == 0 {
		return h.genList()
	}
	i := h.r.IntN(len(h.tokens))
	t := h.tokens[i]
	h.tokens = slices.Delete(h.tokens, i, i+1)
	mq := modelQuery{part: t.part, filter: t.filter}
	mq.q.Limit = t.limit
	if f := modelFilters[t.filter].lib; f != nil {
		mq.q.Filter = f(h.c)
	}
	mq.q.Continuation = t.tok
	how := "same query"
	switch h.r.IntN(6) {
	case 0: // a query of a partition: the token must be one issued for it
		p := pick(h.r, h.parts).pk
		pk := h.pkGo(p)
		mq.q.Partition, mq.part, how = &pk, &p, "partition "+pkName(p)
		if t.part == nil || h.pkGo(*t.part) != pk {
			mq.class = classInvalidToken
		}
	case 1: // a query of all partitions: likewise
		mq.q.Partition, mq.part, how = nil, nil, "all partitions"
		if t.part != nil {
			mq.class = classInvalidToken
		}
	case 2:
		first := "A"
		if t.tok[0] == 'A' {
			first = "B"
		}
		mq.q.Continuation, mq.class, how = first+t.tok[1:], classInvalidToken, "damaged token"
	case 3:
		mq.q.Continuation, mq.class, how = pick(h.r, []string{"x", "AAAAAAAA", "not a token!"}), classInvalidToken, "made-up token"
	}
	if mq.part != nil {
		pk := h.pkGo(*mq.part)
		mq.q.Partition = &pk
	}
	useAll := h.r.IntN(3) == 0
	desc := fmt.Sprintf("Resume after %v (%s) filter=%s limit=%d all=%v", t.last, how, modelFilters[t.filter].name, t.limit, useAll)
	return modelStep{desc, func() (string, error) {
		var want []mKey
		if h.m.closed {
			if mq.class == okClass {
				mq.class = classClosed
			}
		} else if mq.class == okClass {
			want = h.m.list(mq.part, modelFilters[mq.filter].model, &t.last)
		}
		if useAll {
			if mq.q.Limit > 0 && len(want) > mq.q.Limit {
				want = want[:mq.q.Limit]
			}
			return h.iterate("Resume All", mq, want, -1)
		}
		return h.listPages("Resume List", mq, want)
	}}
}

// iterate runs All(mq.q), stopping after stop documents when stop >= 0,
// and compares what it yields with want.
func (h *modelHarness) iterate(op string, mq modelQuery, want []mKey, stop int) (string, error) {
	var docs []ttldb.Document
	var errs []error
	for d, err := range h.c.All(bg, mq.q) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if stop >= 0 && len(docs) == stop {
			break
		}
		docs = append(docs, d)
	}
	if mq.class != okClass {
		if len(errs) != 1 || len(docs) != 0 {
			return "", fmt.Errorf("%s: yielded %d documents and errors %v, want one error %s", op, len(docs), errs, mq.class)
		}
		return mq.class, h.checkErr(op, errs[0], mq.class, "")
	}
	if len(errs) > 0 {
		return "", h.checkErr(op, errs[0], okClass, "")
	}
	if stop >= 0 && len(want) > stop {
		want = want[:stop]
	}
	return fmt.Sprintf("ok %d documents", len(docs)), h.checkDocs(op, docs, want)
}

func (h *modelHarness) genAll() modelStep {
	mq := h.genQuery()
	stop := -1
	if h.r.IntN(5) == 0 {
		stop = h.r.IntN(3)
	}
	return modelStep{fmt.Sprintf("All %s stop=%d", mq.desc, stop), func() (string, error) {
		var want []mKey
		if h.m.closed {
			if mq.class == okClass {
				mq.class = classClosed
			}
		} else {
			want = h.m.list(mq.part, modelFilters[mq.filter].model, nil)
			if mq.q.Limit > 0 && len(want) > mq.q.Limit {
				want = want[:mq.q.Limit]
			}
		}
		return h.iterate("All", mq, want, stop)
	}}
}

// genOpenListing starts an All iteration, takes its first document, and
// keeps it open for genFinishListing. Its filter, if any, reads only the
// document: one that calls the collection would see the collection of the
// later step.
func (h *modelHarness) genOpenListing() modelStep {
	if len(h.open) >= 3 {
		return h.genFinishListing()
	}
	mq := h.genQuery()
	if modelFilters[mq.filter].name == "Get inside" {
		mq.filter, mq.q.Filter = 0, nil
	}
	return modelStep{"OpenListing " + mq.desc, func() (string, error) {
		if h.m.closed && mq.class == okClass {
			mq.class = classClosed
		}
		if mq.class != okClass {
			return h.iterate("OpenListing", mq, nil, -1) // refused at once: nothing to keep open
		}
		want := h.m.list(mq.part, modelFilters[mq.filter].model, nil)
		if mq.q.Limit > 0 && len(want) > mq.q.Limit {
			want = want[:mq.q.Limit]
		}
		ol := &openListing{desc: mq.desc, want: want, docs: make(map[mKey]*mDoc, len(want))}
		for _, k := range want {
			d := *h.m.docs[k] // a copy: the model's document may change later
			ol.docs[k] = &d
		}
		ol.next, ol.stop = iter.Pull2(h.c.All(bg, mq.q))
		d, err, ok := ol.next() // the snapshot is taken now
		switch {
		case len(want) == 0:
			ol.stop()
			if ok {
				return "", fmt.Errorf("OpenListing: yielded %v, %v; the model has no document", d.JSON(), err)
			}
			return "ok 0 documents", nil
		case !ok || err != nil:
			ol.stop()
			return "", fmt.Errorf("OpenListing: first document: ok=%v err=%v; the model has %v", ok, err, want[0])
		}
		if err := h.checkDoc("OpenListing #0", d, want[0], ol.docs[want[0]]); err != nil {
			ol.stop()
			return "", err
		}
		ol.want = want[1:]
		h.open = append(h.open, ol)
		return fmt.Sprintf("ok, open with %d to come", len(ol.want)), nil
	}}
}

// genFinishListing finishes a listing genOpenListing opened some steps
// before, and checks that it yields what the model had then.
func (h *modelHarness) genFinishListing() modelStep {
	if len(h.open) == 0 {
		return h.genOpenListing()
	}
	i := h.r.IntN(len(h.open))
	ol := h.open[i]
	h.open = slices.Delete(h.open, i, i+1)
	return modelStep{"FinishListing " + ol.desc, func() (string, error) {
		defer ol.stop()
		if h.m.closed && len(ol.want) > 0 { // closed since it started: the rest is one ErrClosed
			_, err, ok := ol.next()
			if !ok || !errors.Is(err, ttldb.ErrClosed) {
				return "", fmt.Errorf("FinishListing after Close: ok=%v err=%v, want ErrClosed", ok, err)
			}
			if d, err, ok := ol.next(); ok {
				return "", fmt.Errorf("FinishListing after Close: then %v, %v; want the end", d.JSON(), err)
			}
			return classClosed, nil
		}
		for j, k := range ol.want {
			d, err, ok := ol.next()
			if !ok || err != nil {
				return "", fmt.Errorf("FinishListing #%d: ok=%v err=%v; the model had %v when it started", j+1, ok, err, k)
			}
			if err := h.checkDoc(fmt.Sprintf("FinishListing #%d", j+1), d, k, ol.docs[k]); err != nil {
				return "", err
			}
		}
		if d, err, ok := ol.next(); ok {
			return "", fmt.Errorf("FinishListing: then %v, %v; the model had no more when it started", d.JSON(), err)
		}
		return fmt.Sprintf("ok %d more documents, as when it started", len(ol.want)), nil
	}}
}

func (h *modelHarness) genCount() modelStep {
	mq := h.genQuery()
	if mq.class == classInvalidOpt {
		mq.class = okClass // Count ignores Limit and Continuation
	}
	if h.r.IntN(5) == 0 {
		mq.q.Continuation = "ignored"
	}
	return modelStep{fmt.Sprintf("Count %s continuation=%q", mq.desc, mq.q.Continuation), func() (string, error) {
		n, err := h.c.Count(bg, mq.q)
		want := mq.class
		if want == okClass && h.m.closed {
			want = classClosed
		}
		if e := h.checkErr("Count", err, want, ""); e != nil || err != nil {
			return orOK(want), e
		}
		if w := len(h.m.list(mq.part, modelFilters[mq.filter].model, nil)); n != w {
			return "", fmt.Errorf("Count: %d, model counts %d (R4: expired documents are never counted)", n, w)
		}
		return fmt.Sprintf("ok %d", n), nil
	}}
}

// genSetDefault is SetDefaultTTL with a valid (R1) or an invalid value.
func (h *modelHarness) genSetDefault() modelStep {
	r := h.r
	var d ttldb.DefaultTTL
	var md mDefault
	valid := true
	switch n := r.IntN(20); {
	case n < 4:
		d, md = ttldb.TTLOff(), mDefault{}
	case n < 7:
		d, md = ttldb.TTLNoDefault(), mDefault{true, -1}
	case n < 8:
		d, md = ttldb.TTLSeconds(-1), mDefault{true, -1}
	case n < 16:
		s := 1 + r.Int64N(20)
		d, md = ttldb.TTLSeconds(s), mDefault{true, s}
	case n < 17:
		d, md = ttldb.TTLSeconds(ttldb.MaxTTL), mDefault{true, ttldb.MaxTTL}
	default:
		s := pick(r, []int64{0, -2, -5, ttldb.MaxTTL + 1, 1 << 40, math.MinInt64})
		d, valid = ttldb.TTLSeconds(s), false
	}
	desc := "SetDefaultTTL(" + d.String() + ")"
	msg := ""
	if !valid {
		msg = d.String() // R1: the error names the value
	}
	// Sometimes the setting comes from JSON, as Cosmos DB writes it: null,
	// -1 or n. A bad literal is refused by UnmarshalJSON, with ErrInvalidTTL.
	var lit string
	if r.IntN(4) == 0 {
		switch {
		case !md.on && valid:
			lit = "null"
		case valid:
			lit = pick(r, []string{strconv.FormatInt(md.n, 10), strconv.FormatInt(md.n, 10) + ".0"})
		default:
			lit = pick(r, []string{"0", "-2", "10.5", "2147483648", `"5"`, "true", "{}", "[]", `"off"`})
			msg = lit
		}
		desc = "SetDefaultTTL(json " + lit + ")"
	}
	return modelStep{desc, func() (string, error) {
		var err error
		if lit != "" {
			d = ttldb.TTLSeconds(12345) // UnmarshalJSON must leave it unchanged on error
			if err = json.Unmarshal([]byte(lit), &d); err != nil {
				if n, on := d.Seconds(); !on || n != 12345 {
					return "", fmt.Errorf("UnmarshalJSON(%s) failed with %v but changed the value to %v", lit, err, d)
				}
				// Not a call of the collection: the input error, closed or not.
				if !errors.Is(err, ttldb.ErrInvalidTTL) || !strings.Contains(err.Error(), msg) {
					return "", fmt.Errorf("UnmarshalJSON(%s): %v, want ErrInvalidTTL naming %s", lit, err, msg)
				}
				return classInvalidTTL, nil
			}
		}
		err = h.c.SetDefaultTTL(bg, d)
		want := h.m.setDefault(md, valid)
		return orOK(want), h.checkErr("SetDefaultTTL", err, want, msg)
	}}
}

// genSetIndexing is SetIndexingMode, which R8 refuses for none while TTL
// is on.
func (h *modelHarness) genSetIndexing() modelStep {
	mode := pick(h.r, []ttldb.IndexingMode{ttldb.IndexingConsistent, ttldb.IndexingNone, ttldb.IndexingNone, ttldb.IndexingMode(2 + h.r.IntN(9))})
	return modelStep{"SetIndexingMode(" + mode.String() + ")", func() (string, error) {
		err := h.c.SetIndexingMode(bg, mode)
		want := h.m.setIndexing(mode)
		return orOK(want), h.checkErr("SetIndexingMode", err, want, "")
	}}
}

// genClock moves the wall clock: forward by 0 to 25 seconds or by a
// fraction of one, or backward, which must change nothing (R4).
func (h *modelHarness) genClock() modelStep {
	r := h.r
	var d time.Duration
	switch r.IntN(10) {
	case 0:
	case 1, 2, 3:
		d = time.Second
	case 4, 5:
		d = time.Duration(r.IntN(6)) * time.Second
	case 6:
		d = time.Duration(r.IntN(26)) * time.Second
	case 7:
		d = time.Duration(r.IntN(1000)) * time.Millisecond
	case 8:
		d = -time.Duration(1+r.IntN(30)) * time.Second
	case 9:
		d = -time.Duration(r.IntN(1000)) * time.Millisecond
	}
	return modelStep{fmt.Sprintf("Clock %+v", d), func() (string, error) {
		h.wall.Add(int64(d))
		h.m.observe(h.wallSec())
		return fmt.Sprintf("wall %d, now %d", h.wallSec(), h.m.now), nil
	}}
}

// genSweep deletes the expired documents now (R5).
func (h *modelHarness) genSweep() modelStep {
	return modelStep{"Sweep", func() (string, error) {
		n, err := h.c.Sweep(bg)
		want, class := h.m.sweep()
		if e := h.checkErr("Sweep", err, class, ""); e != nil || err != nil {
			return orOK(class), e
		}
		if !h.background && n != want {
			return "", fmt.Errorf("Sweep: deleted %d, model says %d expired documents await deletion", n, want)
		}
		return fmt.Sprintf("ok %d", n), nil
	}}
}

// checkInvariants runs after every step: the count, the statistics, the
// whole listing, the settings, and the Documents returned earlier.
func (h *modelHarness) checkInvariants() error {
	for _, k := range h.kept {
		if k.d.JSON() != k.json {
			return fmt.Errorf("a Document returned earlier changed from %s to %s", k.json, k.d.JSON())
		}
	}
	if n, on := h.c.DefaultTTL().Seconds(); on != h.m.def.on || (on && n != h.m.def.n) {
		return fmt.Errorf("DefaultTTL() %v, model %v", h.c.DefaultTTL(), h.m.def)
	}
	if b, err := json.Marshal(h.c.DefaultTTL()); err != nil || string(b) != strings.Replace(h.m.def.String(), "off", "null", 1) {
		return fmt.Errorf("DefaultTTL() as JSON: %s, %v; model %v", b, err, h.m.def)
	}
	if mode := h.c.IndexingMode(); (mode == ttldb.IndexingNone) != h.m.noIndex {
		return fmt.Errorf("IndexingMode() %v, model none=%v", mode, h.m.noIndex)
	}
	if err := h.checkFeed(); err != nil { // R11
		return err
	}
	if h.m.closed {
		_, err := h.c.Count(bg, ttldb.Query{})
		_, err2 := h.c.Stats(bg)
		if !errors.Is(err, ttldb.ErrClosed) || !errors.Is(err2, ttldb.ErrClosed) {
			return fmt.Errorf("after Close: Count %v, Stats %v, want ErrClosed", err, err2)
		}
		return nil
	}
	live := len(h.m.docs)
	n, err := h.c.Count(bg, ttldb.Query{})
	if err != nil || n != live {
		return fmt.Errorf("Count(Query{}) = %d, %v; model has %d live documents (R4)", n, err, live)
	}
	st, err := h.c.Stats(bg)
	if err != nil || st.Live != live {
		return fmt.Errorf("Stats() = %+v, %v; model has %d live documents", st, err, live)
	}
	if !h.background && (st.Expired != len(h.m.unswept) || st.Swept != uint64(h.m.swept)) {
		return fmt.Errorf("Stats() = %+v; model: %d expired awaiting deletion, %d swept", st, len(h.m.unswept), h.m.swept)
	}
	if got := h.c.Indexes(); !slices.Equal(got, h.m.indexes) { // R13, in the order they were made
		return fmt.Errorf("Indexes() = %q, model has %q", got, h.m.indexes)
	}
	if h.byKey {
		for _, k := range h.m.list(nil, nil, nil) {
			got, err := h.c.Get(bg, h.pkGo(k.pk), k.id)
			if err != nil {
				return fmt.Errorf("Get(%v) of a live document: %v", k, err)
			}
			if err := h.checkDoc("Get", got, k, h.m.docs[k]); err != nil {
				return err
			}
		}
		return nil
	}
	_, err = h.iterate("All(Query{})", modelQuery{}, h.m.list(nil, nil, nil), -1)
	return err
}

// ---------------------------------------------------------------------------
// Running sequences.

// newModelHarness sets up a sequence: its partition-key path (/pk, /t/pk,
// or, one sequence in four, /id, where every document's partition key is
// its id), its partitions, its collection's options, and the model.
func newModelHarness(t testing.TB, eng Harness, seed uint64) (*modelHarness, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	h := &modelHarness{t: t, eng: eng, seed: seed, r: r, etags: map[mKey][]string{}, byKey: seed%2 == 1}
	h.feed.init(seed)
	h.wall.Store((1_700_000_000+r.Int64N(1_000_000))*int64(time.Second) + r.Int64N(int64(time.Second)))
	others := slices.Clone(modelPartitions)
	r.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	h.parts = []modelPart{modelNone, others[0], others[1]}
	if r.IntN(4) == 0 { // more kinds side by side, for the listing order
		h.parts = append(h.parts, others[2], others[3])
	}
	h.background = r.IntN(8) == 0
	h.ids = modelIDs
	switch r.IntN(4) {
	case 0: // every document's partition key is its id
		h.idPath, h.path = true, "/id"
		h.ids = slices.Clone(modelIDs)
		for _, x := range modelIDPathIDs {
			if r.IntN(2) == 0 {
				h.ids = append(h.ids, x)
			}
		}
		if r.IntN(3) == 0 { // the longest id (R10), as a partition key too
			long := strings.Repeat("L", ttldb.MaxIDLength)
			h.ids = append(h.ids, modelID{long, []string{strconv.Quote(long)}})
		}
		h.parts = nil
		for _, x := range h.ids {
			h.parts = append(h.parts, modelPart{pk: idKey(x.id).pk})
		}
	case 1:
		h.nested, h.path = true, "/t/pk"
	default:
		h.path = "/pk"
	}
	path := h.path

	// Bad options first, sometimes: each must be refused (R1, R8).
	if r.IntN(4) == 0 {
		bad := []struct {
			name, path string
			opts       ttldb.Options
			class      string
		}{
			{"m", "/pk", ttldb.Options{DefaultTTL: ttldb.TTLSeconds(0)}, classInvalidTTL},
			{"m", "/pk", ttldb.Options{DefaultTTL: ttldb.TTLSeconds(ttldb.MaxTTL + 1)}, classInvalidTTL},
			{"m", "/pk", ttldb.Options{DefaultTTL: ttldb.TTLSeconds(5), Indexing: ttldb.IndexingNone}, classInvalidOpt},
			{"m", "/pk", ttldb.Options{DefaultTTL: ttldb.TTLNoDefault(), Indexing: ttldb.IndexingNone}, classInvalidOpt},
			{"m", "/pk", ttldb.Options{Indexing: ttldb.IndexingMode(7)}, classInvalidOpt},
			{"m", "/pk", ttldb.Options{SweepBatch: -1}, classInvalidOpt},
			{"", "/pk", ttldb.Options{}, classInvalidOpt},
			{"m", "pk", ttldb.Options{}, classInvalidOpt},
			{"m", "id", ttldb.Options{}, classInvalidOpt},
			{"m", "/pk", ttldb.Options{Indexes: []string{"/v", "v"}}, classInvalidOpt},                          // R13
			{"m", "/pk", ttldb.Options{Indexes: []string{"/v", "/v"}}, classInvalidOpt},                         // R13
			{"m", "/pk", ttldb.Options{Indexes: []string{"/v"}, Indexing: ttldb.IndexingNone}, classInvalidOpt}, // R8
		}
		b := pick(r, bad)
		b.opts.ManualSweep, b.opts.Now = true, h.wallNow
		c, err := eng.Open(t, b.name, b.path, &b.opts)
		if c != nil {
			c.Close()
		}
		if got, _ := errClass(err); got != b.class {
			return nil, fmt.Errorf("NewCollection(%q, %q, %+v): %v, want %s", b.name, b.path, b.opts, err, b.class)
		}
	}

	var def ttldb.DefaultTTL
	var md mDefault
	switch r.IntN(4) {
	case 1:
		def, md = ttldb.TTLNoDefault(), mDefault{true, -1}
	case 2, 3:
		s := 1 + r.Int64N(10)
		def, md = ttldb.TTLSeconds(s), mDefault{true, s}
	}
	mode := ttldb.IndexingConsistent
	if !md.on && r.IntN(3) == 0 {
		mode = ttldb.IndexingNone
	}
	h.opts = ttldb.Options{
		DefaultTTL: def, Indexing: mode, Now: h.wallNow,
		ManualSweep: !h.background, SweepBatch: r.IntN(4),
	}
	if mode != ttldb.IndexingNone { // R13
		h.opts.Indexes = h.drawIndexes()
	}
	if eng.Reopen != nil && r.IntN(3) == 0 { // reopened and compacted (R12)
		h.durable, h.opts.Sync = true, ttldb.SyncPolicy(r.IntN(3))
	}
	c, err := eng.Open(t, "model", path, &h.opts)
	if err != nil {
		return nil, err
	}
	if c.Name() != "model" || c.PartitionKeyPath() != path {
		return nil, fmt.Errorf("NewCollection: Name %q, PartitionKeyPath %q", c.Name(), c.PartitionKeyPath())
	}
	h.c = c
	h.m = newModel(md, mode == ttldb.IndexingNone, h.wallSec())
	h.m.indexes = slices.Clone(h.opts.Indexes)
	parts := make([]string, len(h.parts))
	for i, p := range h.parts {
		parts[i] = fmt.Sprintf("%.30s", pkName(p.pk))
	}
	// The collection's "now" is what it has seen of the clock (R4). Let it
	// see the clock at once, as the model does; a forward step nobody
	// observes before the clock steps back is unknowable, and every step
	// below is observed by checkInvariants.
	if err := h.checkInvariants(); err != nil {
		return nil, err
	}
	h.log = append(h.log, fmt.Sprintf("   0 NewCollection path=%s DefaultTTL=%v indexing=%v indexes=%q background sweeper=%v partitions=%v wall=%v durable=%v sync=%v",
		path, def, mode, h.opts.Indexes, h.background, parts, h.wallNow().UTC().Format(time.RFC3339Nano), h.durable, h.opts.Sync))
	return h, nil
}

// runModelSequence runs one sequence of steps and returns its collection's
// partition-key path and the report of the first disagreement, or nil.
func runModelSequence(t testing.TB, eng Harness, seed uint64, steps int) (path string, err error) {
	h, err := newModelHarness(t, eng, seed)
	if err != nil {
		return "", fmt.Errorf("seed %d: set-up: %v", seed, err)
	}
	path = h.path
	defer func() {
		h.c.Close() // the last collection: Reopen replaces it; the harness removes what it kept
	}()
	defer func() {
		for _, ol := range h.open {
			ol.stop()
		}
	}()
	total := 0
	for _, op := range modelOps {
		total += op.weight
	}
	closeAt := -1
	if h.r.IntN(10) == 0 { // close near the end; every call must then fail with ErrClosed
		closeAt = steps*3/4 + h.r.IntN(steps/4+1)
	}
	feedFullAt := 1 + h.feed.r.IntN(steps)
	step := 0
	defer func() {
		if p := recover(); p != nil {
			err = h.report(step, fmt.Errorf("panic: %v", p))
		}
	}()
	for step = 1; step <= steps; step++ {
		var s modelStep
		if step == closeAt || step == feedFullAt {
			// R11: the change feed read from everywhere, also in the middle
			// of the sequence, and before Close ends the reads.
			if err := h.checkFeedFull(); err != nil {
				return path, h.report(step-1, err)
			}
		}
		if step == closeAt {
			s = modelStep{"Close", func() (string, error) {
				h.m.closed = true
				if err := h.c.Close(); err != nil {
					return "", fmt.Errorf("Close: %v", err)
				}
				return "ok", h.c.Close() // idempotent
			}}
		} else {
			n := h.r.IntN(total)
			for _, op := range modelOps {
				if n -= op.weight; n < 0 {
					s = op.gen(h)
					break
				}
			}
		}
		h.m.observe(h.wallSec())
		res, err := s.run()
		h.log = append(h.log, fmt.Sprintf("%4d %.200s -> %s", step, s.desc, res))
		if err == nil {
			err = h.checkInvariants()
		}
		if err != nil {
			return path, h.report(step, err)
		}
	}
	if err := h.checkFeedFull(); err != nil { // R11, at the end of the sequence
		return path, h.report(steps, err)
	}
	return path, nil
}

// report describes a failure: the seed, the step, the disagreement and the
// last 20 steps. A seed replays the same operations, and, with ManualSweep,
// the same results; with the background sweeper, when it deletes is up to
// the runtime's timers, which only a library bug can make visible.
func (h *modelHarness) report(step int, err error) error {
	from := max(0, len(h.log)-20)
	sweeper := "ManualSweep"
	if h.background {
		sweeper = "background sweeper, whose timing does not replay"
	}
	return fmt.Errorf("seed %d (rerun with TTLDB_MODEL_SEED=%d; path %s; %s), step %d: %v\nlast steps (model now=%d, DefaultTTL=%v):\n%s",
		h.seed, h.seed, h.path, sweeper, step, err, h.m.now, h.m.def, strings.Join(h.log[from:], "\n"))
}

func envInt(t *testing.T, name string, def uint64) uint64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return n
}

// checkModel runs random sequences of every operation against collections
// of the engine and the reference model, and compares them after every step
// (R1-R10). Listings are also opened in one step and finished steps later,
// to check that they read the collection as it was when they started. The
// change feed (R11) is read after every step, and from everywhere at the end
// of the sequence (model_feed.go). Patches and transactional batches (R14)
// are among the operations (model_patch.go), and so are queries in Cosmos
// SQL and secondary indexes (R13, model_query.go); with Harness.Reopen,
// reopening and compacting are too (R12). Each sequence is a subtest named
// by its seed, so that what its collection kept goes when it ends.
func checkModel(t *testing.T, eng Harness) {
	def := uint64(modelDefaultSequences)
	if raceEnabled() {
		def = modelDefaultSequencesRace
	}
	budget := modelTimeBudget
	if !Long() {
		def /= modelQuickDivisor
		budget /= 8
	}
	sequences := envInt(t, "TTLDB_MODEL_SEQUENCES", def)
	deadline := time.Now().Add(budget)
	if os.Getenv("TTLDB_MODEL_SEQUENCES") != "" || os.Getenv("TTLDB_MODEL_SEED") != "" {
		deadline = time.Time{} // what was asked for, all of it
	}
	if d, ok := t.Deadline(); ok && (deadline.IsZero() || d.Add(-10*time.Second).Before(deadline)) {
		deadline = d.Add(-10 * time.Second)
	}
	fixedSteps := int(envInt(t, "TTLDB_MODEL_STEPS", 0))
	var seeds []uint64
	if os.Getenv("TTLDB_MODEL_SEED") != "" {
		seeds = []uint64{envInt(t, "TTLDB_MODEL_SEED", 0)}
	} else {
		for range sequences {
			seeds = append(seeds, rand.Uint64())
		}
	}
	steps := func(seed uint64) int {
		if fixedSteps > 0 {
			return fixedSteps
		}
		return 100 + int(seed%101)
	}

	// The sequences are independent: run them on every CPU, and stop at
	// the first failure.
	var (
		wg     sync.WaitGroup
		next   atomic.Int64
		ran    atomic.Int64
		ranID  atomic.Int64 // of which with the partition-key path /id
		failed atomic.Bool
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1)) - 1
				if i >= len(seeds) || (i > 0 && !deadline.IsZero() && time.Now().After(deadline)) {
					return
				}
				ran.Add(1)
				seed := seeds[i]
				t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
					path, err := runModelSequence(t, eng, seed, steps(seed))
					if path == "/id" {
						ranID.Add(1)
					}
					if err != nil {
						failed.Store(true)
						t.Error(err)
					}
				})
			}
		})
	}
	wg.Wait()
	if !failed.Load() {
		t.Logf("%d of %d sequences passed, %d of them with the partition-key path /id", ran.Load(), len(seeds), ranID.Load())
		if int(ran.Load()) < len(seeds) {
			t.Logf("stopped at the time budget; set TTLDB_MODEL_SEQUENCES to run them all")
		}
	}
}

// bg is the context of the model's calls (R16 is not what it tests).
var bg = context.Background()
