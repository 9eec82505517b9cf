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
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ttldb/ttldb"
)

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
	indexes []string // the secondary indexes' paths, in the order they were made (R13; model_query.go)
	now     int64    // whole Unix seconds; never goes backward (R4)
	closed  bool

	// Not visible to reads, only to Sweep and Stats (R5): the keys whose
	// document expired and that no sweep has deleted yet, and how many
	// documents sweeps have deleted.
	unswept map[mKey]bool
	swept   int

	hist mHistory // the change feed: every change, in order (R11; model_feed.go)
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
	// classInvalidQuery, R13: model_query.go
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
