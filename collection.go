package ttldb

import (
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"iter"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/btree"
)

// IndexingMode is a collection's indexing mode (R8). The zero value is
// IndexingConsistent.
type IndexingMode uint8

const (
	// IndexingConsistent keeps every index up to date with every write; the
	// next call sees each change. It is the default and TTL needs it.
	IndexingConsistent IndexingMode = iota
	// IndexingNone is for a plain key-value collection. Like Cosmos DB, a
	// collection in this mode cannot have TTL: DefaultTTL must be off (R8).
	// The expiry index is still kept, so that switching back to
	// IndexingConsistent and turning TTL on cost O(1).
	IndexingNone
)

// String returns "consistent" or "none".
func (m IndexingMode) String() string {
	switch m {
	case IndexingConsistent:
		return "consistent"
	case IndexingNone:
		return "none"
	}
	return "IndexingMode(" + strconv.Itoa(int(m)) + ")"
}

func (m IndexingMode) validate() error {
	if m > IndexingNone {
		return errorf(ErrInvalidOption, "indexing mode %d: allowed are IndexingConsistent and IndexingNone (R8)", m)
	}
	return nil
}

// DefaultSweepBatch is the number of documents the sweeper deletes while it
// holds the collection's lock, when Options.SweepBatch is zero.
const DefaultSweepBatch = 256

// MaxSweepHold is about the longest the sweeper holds the collection's lock
// at once: a batch ends early when it has taken this long, so that on a
// slow or busy machine foreground calls still wait no longer (R5).
const MaxSweepHold = 100 * time.Microsecond

// MaxNameLength is the longest collection name accepted, in bytes.
const MaxNameLength = 255

// Options configures a collection. The zero value of every field means its
// default, so a nil *Options is a collection with TTL off, consistent
// indexing, the wall clock and a background sweeper.
type Options struct {
	// DefaultTTL is the collection's TTL setting (R1). Zero: off.
	DefaultTTL DefaultTTL

	// Indexing is the indexing mode (R8). Zero: IndexingConsistent.
	Indexing IndexingMode

	// Now is the clock. Zero: time.Now. A collection never lets its "now" go
	// backward, whatever the clock does (R4). It is called with the
	// collection's lock held: it must be fast and must not call the
	// collection. The background sweeper sleeps on the runtime's timers,
	// so with a simulated clock set ManualSweep and call Sweep. Times
	// more than 2^62 seconds (146 billion years) from 1970 count as that
	// bound, so that _ts + ttl never overflows.
	Now func() time.Time

	// ManualSweep turns the background sweeper off: expired documents are
	// still hidden at once (R4), and are deleted only by Sweep. Zero: the
	// sweeper runs.
	ManualSweep bool

	// SweepBatch is the most documents deleted under one hold of the lock,
	// which bounds how long a foreground call waits for the sweeper (R5): a
	// larger batch sweeps a backlog with less overhead and makes callers
	// wait longer. Whatever the batch, a hold also ends after MaxSweepHold.
	// Zero: DefaultSweepBatch.
	SweepBatch int
}

// Collection is a named set of JSON documents that expire like Cosmos DB's
// time to live (see the package documentation and the rules R1-R10).
//
// Make a Collection with NewCollection: the zero Collection is not usable,
// and its methods report ErrClosed.
//
// A Collection is safe for concurrent use by multiple goroutines. Reads share
// a lock; writes, and each batch of the sweeper, hold it alone for O(log n)
// per document; listings work on a copy-on-write snapshot and hold no lock
// while they iterate. Close stops the sweeper and waits for it.
type Collection struct {
	name   string
	path   string
	pkPath []string
	byID   bool // the path is /id: see keyFor
	clock  func() time.Time
	batch  int

	last    atomic.Int64 // the latest "now", Unix seconds: never goes backward
	closed  atomic.Bool  // set under mu; read without it where a stale read is harmless
	waiting atomic.Int32 // foreground calls waiting for mu; the sweeper lets them go first

	mu        sync.RWMutex
	def       DefaultTTL
	mode      IndexingMode
	prim      primary
	exp       expiryIndex
	etagBase  uint64
	seq       atomic.Uint64
	swept     atomic.Uint64 // written under mu, read anywhere
	lastSweep time.Duration
	wakeAt    int64 // the instant the sweeper sleeps until; a write due earlier wakes it

	wake      chan struct{} // nil with ManualSweep
	turn      chan struct{} // a foreground call took the lock: see yield
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// NewCollection returns an empty collection named name whose documents carry
// their partition key at partitionKeyPath ("/customerId", or a nested path
// such as "/tenant/id"). A nil opts means all defaults. Unless
// opts.ManualSweep is set it starts the sweeper goroutine, which Close
// stops.
//
// Errors: ErrInvalidOption for a name that is empty, longer than
// MaxNameLength or holds '/', '\', '?', '#' or a control character, a path
// that is not of the form /a/b, an unknown indexing mode, a negative
// SweepBatch, or TTL with indexing mode none (R8); ErrInvalidTTL for a
// DefaultTTL outside R1.
func NewCollection(name, partitionKeyPath string, opts *Options) (*Collection, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if p := nameProblem(name, MaxNameLength); p != "" {
		return nil, errorf(ErrInvalidOption, "collection name %q %s", name, p)
	}
	segs, err := parsePath(partitionKeyPath)
	if err != nil {
		return nil, err
	}
	if err := o.DefaultTTL.validate(); err != nil {
		return nil, err
	}
	if err := o.Indexing.validate(); err != nil {
		return nil, err
	}
	if err := ttlNeedsIndexing(o.DefaultTTL, o.Indexing); err != nil {
		return nil, err
	}
	if o.SweepBatch < 0 {
		return nil, errorf(ErrInvalidOption, "SweepBatch %d is negative", o.SweepBatch)
	}
	if o.SweepBatch == 0 {
		o.SweepBatch = DefaultSweepBatch
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	c := &Collection{
		name:     name,
		path:     partitionKeyPath,
		pkPath:   segs,
		byID:     isIDPath(segs),
		clock:    o.Now,
		batch:    o.SweepBatch,
		def:      o.DefaultTTL,
		mode:     o.Indexing,
		prim:     newPrimary(),
		exp:      newExpiryIndex(),
		etagBase: rand.Uint64(),
		wakeAt:   math.MinInt64,
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		turn:     make(chan struct{}, 1),
	}
	c.last.Store(-maxClock) // a clock before 1970 is no less valid
	if o.ManualSweep {
		close(c.done)
	} else {
		c.wake = make(chan struct{}, 1)
		go c.run()
	}
	return c, nil
}

// parsePath splits a partition-key path "/a/b" into its segments.
func parsePath(path string) ([]string, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, errorf(ErrInvalidOption, "partition-key path %q must start with '/', as in \"/customerId\"", path)
	}
	segs := strings.Split(path[1:], "/")
	if len(segs) >= MaxDepth {
		return nil, errorf(ErrInvalidOption, "partition-key path %.40q... has %d segments, at most %d are allowed", path, len(segs), MaxDepth-1)
	}
	if segs[0] == "_ts" || segs[0] == "_etag" {
		return nil, errorf(ErrInvalidOption, "partition-key path %q names a system property, which the library writes itself", path)
	}
	for _, s := range segs {
		if p := nameProblem(s, MaxNameLength); s != "" && p != "" {
			return nil, errorf(ErrInvalidOption, "partition-key path %q: segment %q %s", path, s, p)
		}
		if s == "" {
			return nil, errorf(ErrInvalidOption, "partition-key path %q has an empty segment", path)
		}
	}
	return segs, nil
}

// nameProblem describes what is wrong with a name or an id under R10, or
// returns "" when nothing is.
func nameProblem[T string | []byte](s T, max int) string {
	if len(s) == 0 {
		return "is empty"
	}
	if len(s) > max {
		return "is " + strconv.Itoa(len(s)) + " bytes, at most " + strconv.Itoa(max) + " are allowed"
	}
	i := 0
	for i < len(s) && plainNameByte[s[i]] {
		i++
	}
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '/' || c == '\\' || c == '?' || c == '#':
				return "holds " + strconv.QuoteRune(rune(c)) + ", which is not allowed"
			case c < 0x20 || c == 0x7f:
				return "holds the control character " + strconv.QuoteRune(rune(c))
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		switch {
		case r == utf8.RuneError && n == 1:
			return "is not valid UTF-8"
		case r >= 0x80 && r <= 0x9f:
			return "holds the control character " + strconv.QuoteRune(r)
		}
		i += n
	}
	return ""
}

// plainNameByte holds the bytes a name may hold that need no closer look:
// printable ASCII but for / \ ? and #.
var plainNameByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '/' && c != '\\' && c != '?' && c != '#'
	}
	return t
}()

// ttlNeedsIndexing is rule R8.
func ttlNeedsIndexing(def DefaultTTL, mode IndexingMode) error {
	if def.on && mode == IndexingNone {
		return errorf(ErrInvalidOption, "DefaultTTL %v needs indexing mode consistent, and the mode is none (R8)", def)
	}
	return nil
}

// Name returns the collection's name.
func (c *Collection) Name() string { return c.name }

// PartitionKeyPath returns the collection's partition-key path.
func (c *Collection) PartitionKeyPath() string { return c.path }

// maxClock bounds a clock's Unix seconds, so that _ts + ttl and
// now - DefaultTTL stay far from overflow.
const maxClock = 1 << 62

// now returns the collection's "now" in Unix seconds, which never goes
// backward (R4).
func (c *Collection) now() int64 {
	t := min(max(c.clock().Unix(), -maxClock), maxClock)
	for {
		last := c.last.Load()
		if t <= last {
			return last
		}
		if c.last.CompareAndSwap(last, t) {
			return t
		}
	}
}

// lock takes mu for a foreground call. The sweeper, which takes mu batch
// after batch, lets such a call in before its next batch (R5).
func (c *Collection) lock() {
	c.waiting.Add(1)
	c.mu.Lock()
	c.waiting.Add(-1)
	select {
	case c.turn <- struct{}{}: // the sweeper may be waiting for it
	default:
	}
}

// limits returns which documents are expired now. Call with mu held.
func (c *Collection) limits() limits { return c.exp.limits(c.def, c.now()) }

func (c *Collection) errClosed(op string) error {
	if c.stop == nil {
		return errorf(ErrClosed, "%s on a Collection not made by NewCollection", op)
	}
	return errorf(ErrClosed, "%s on collection %q after Close", op, c.name)
}

// unusable reports whether calls must fail with ErrClosed: after Close, or
// on a Collection not made by NewCollection.
func (c *Collection) unusable() bool { return c.closed.Load() || c.stop == nil }

// WriteOption makes a write conditional. The zero value adds no condition.
type WriteOption struct {
	ifMatch string
	set     bool
}

// IfMatch makes a write succeed only if the document is live and its _etag
// is etag (R10); otherwise it fails with ErrPreconditionFailed, or with
// ErrNotFound when there is no live document (R4).
func IfMatch(etag string) WriteOption { return WriteOption{ifMatch: etag, set: true} }

// condition returns the etag the options require; the last IfMatch wins.
func condition(opts []WriteOption) (etag string, set bool) {
	for _, o := range opts {
		if o.set {
			etag, set = o.ifMatch, true
		}
	}
	return etag, set
}

type writeKind uint8

const (
	create writeKind = iota
	replace
	upsert
)

func (k writeKind) String() string { return [...]string{"Create", "Replace", "Upsert"}[k] }

// intakeBuffers recycles the buffers documents are compacted into.
var intakeBuffers = sync.Pool{New: func() any { return new([]byte) }}

// Create stores a new document. doc is JSON text ([]byte or
// json.RawMessage) or any value that encoding/json encodes to a JSON object
// (a struct, a map). It must have an id and may have a ttl (R2); the
// library adds _ts and _etag. Create returns the stored document.
//
// Errors: ErrConflict when a live document has the same partition key and
// id (an expired one is replaced, R4); ErrInvalidDocument, ErrTooLarge,
// ErrInvalidID, ErrInvalidPartitionKey or ErrInvalidTTL for bad input,
// which changes nothing; ErrClosed. It takes O(log n + size of doc).
func (c *Collection) Create(doc any) (Document, error) { return c.write(create, doc, nil) }

// Replace replaces a live document with doc, which names it by its id and
// partition key. It takes the input and costs of Create.
//
// Errors: ErrNotFound when no live document has the key (R4);
// ErrPreconditionFailed when an IfMatch etag differs; and the input errors
// of Create.
func (c *Collection) Replace(doc any, opts ...WriteOption) (Document, error) {
	return c.write(replace, doc, opts)
}

// Upsert replaces the live document with doc's key, or creates it when
// there is none (or it has expired, R4). With IfMatch it acts as Replace:
// there must be a live document with that etag. It takes the input and
// costs of Create, and returns its errors but ErrConflict.
func (c *Collection) Upsert(doc any, opts ...WriteOption) (Document, error) {
	return c.write(upsert, doc, opts)
}

func (c *Collection) write(kind writeKind, v any, opts []WriteOption) (Document, error) {
	if c.unusable() {
		return Document{}, c.errClosed(kind.String())
	}
	src, err := encodeInput(v)
	if err != nil {
		return Document{}, err
	}
	bufp := intakeBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bufp) <= 64<<10 {
			intakeBuffers.Put(bufp)
		}
	}()
	var kb keyBuffer
	in, key, err := parseDocument(*bufp, kb[:0], src, c.pkPath)
	*bufp = in.out[:0]
	if err != nil {
		return Document{}, err
	}
	// Build the document before taking the lock, and stamp its _ts under
	// the lock (R4: _ts is the second of the write).
	d := newDoc(key, in.at, in.out, in.ttl, 0, c.nextETag())

	c.lock()
	defer c.mu.Unlock()
	if c.unusable() {
		return Document{}, c.errClosed(kind.String())
	}
	now := c.now()
	old := c.prim.get(key)
	live := old != nil && !c.exp.limits(c.def, now).expired(old)
	etag, cond := condition(opts)
	switch {
	case kind == create && live:
		return Document{}, errorf(ErrConflict, "%s exists", describeKey(key, in.at))
	case (kind == replace || cond) && !live:
		return Document{}, errorf(ErrNotFound, "%v: %s is not there or has expired", kind, describeKey(key, in.at))
	case cond && !old.hasETag(etag):
		return Document{}, errorf(ErrPreconditionFailed, "%v: %s has etag %q, not %q", kind, describeKey(key, in.at), old.etag(), etag)
	}
	d.ts = now // d is not yet shared
	c.store(old, d)
	return Document{d}, nil
}

// nextETag returns a fresh etag: unique within the collection, and unlikely
// to equal one of another collection.
func (c *Collection) nextETag() uint64 { return c.etagBase + c.seq.Add(1) }

// store puts d in place of old (nil when the key was free). Call with mu
// held.
func (c *Collection) store(old, d *doc) {
	if old != nil {
		c.exp.remove(old)
	}
	c.prim.put(d)
	c.exp.add(d)
	if at, ok := expiresAt(c.def, d); ok && at < c.wakeAt {
		c.poke()
	}
}

// poke wakes the sweeper to plan its sleep again. Call with mu held.
func (c *Collection) poke() {
	if c.wake == nil {
		return
	}
	c.wakeAt = math.MinInt64 // no more pokes until the sweeper has planned
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// keyBuffer is large enough for most keys, so that building one for a
// lookup does not allocate.
type keyBuffer [192]byte

// lookupKey validates a partition key and id given by a caller and appends
// the document key they make to buf.
func (c *Collection) lookupKey(buf []byte, pk PartitionKey, id string) ([]byte, error) {
	if pk.kind == pkString && pk.s == id {
		// A valid id is a valid string key: check the string once, and
		// report a bad one as a bad partition key first, as below.
		if err := validateID(id); err != nil {
			if perr := pk.validate(); perr != nil {
				return nil, perr
			}
			return nil, err
		}
		return keyFor(buf, pk, id, c.byID), nil
	}
	if err := pk.validate(); err != nil {
		return nil, err
	}
	if err := validateID(id); err != nil {
		return nil, err
	}
	return keyFor(buf, pk, id, c.byID), nil
}

// live returns the live document stored under key, or nil. Call with mu
// held.
func (c *Collection) live(key []byte) *doc {
	d := c.prim.get(key)
	if d == nil || c.limits().expired(d) {
		return nil
	}
	return d
}

// Get returns the live document with partition key pk and id id. It takes
// O(1) on average and does not allocate when it finds the document.
//
// Errors: ErrNotFound when there is none or it has expired (R4);
// ErrInvalidPartitionKey or ErrInvalidID for a bad key; ErrClosed.
func (c *Collection) Get(pk PartitionKey, id string) (Document, error) {
	if c.unusable() {
		return Document{}, c.errClosed("Get")
	}
	var buf keyBuffer
	key, err := c.lookupKey(buf[:0], pk, id)
	if err != nil {
		return Document{}, err
	}
	c.mu.RLock()
	if c.unusable() {
		c.mu.RUnlock()
		return Document{}, c.errClosed("Get")
	}
	d := c.live(key)
	c.mu.RUnlock()
	if d == nil {
		return Document{}, errorf(ErrNotFound, "document %q in partition %v is not there or has expired", id, pk)
	}
	return Document{d}, nil
}

// Delete deletes the live document with partition key pk and id id. It
// takes O(log n).
//
// Errors: ErrNotFound when there is none or it has expired (R4);
// ErrPreconditionFailed when an IfMatch etag differs; ErrInvalidPartitionKey
// or ErrInvalidID for a bad key; ErrClosed.
func (c *Collection) Delete(pk PartitionKey, id string, opts ...WriteOption) error {
	_, err := c.modify("Delete", pk, id, opts, func(old *doc) *doc {
		c.prim.remove(old)
		c.exp.remove(old)
		return nil
	})
	return err
}

// Touch renews the live document's _ts and _etag and changes nothing else:
// a write that restarts its countdown (R6), for sliding expiry. It takes
// O(log n + size of the document) and returns the document as stored.
//
// Errors: those of Delete.
func (c *Collection) Touch(pk PartitionKey, id string, opts ...WriteOption) (Document, error) {
	return c.modify("Touch", pk, id, opts, func(old *doc) *doc {
		d := newDoc(old.key(), old.at, old.body(), old.ttl, c.now(), c.nextETag())
		c.store(old, d)
		return d
	})
}

// modify runs change on the live document with the key, under the lock and
// the write's condition.
func (c *Collection) modify(op string, pk PartitionKey, id string, opts []WriteOption, change func(old *doc) *doc) (Document, error) {
	if c.unusable() {
		return Document{}, c.errClosed(op)
	}
	var buf keyBuffer
	key, err := c.lookupKey(buf[:0], pk, id)
	if err != nil {
		return Document{}, err
	}
	c.lock()
	defer c.mu.Unlock()
	if c.unusable() {
		return Document{}, c.errClosed(op)
	}
	old := c.live(key)
	etag, cond := condition(opts)
	switch {
	case old == nil:
		return Document{}, errorf(ErrNotFound, "%s: document %q in partition %v is not there or has expired", op, id, pk)
	case cond && !old.hasETag(etag):
		return Document{}, errorf(ErrPreconditionFailed, "%s: document %q in partition %v has etag %q, not %q", op, id, pk, old.etag(), etag)
	}
	return Document{change(old)}, nil
}

// ExpiresAt returns the instant d expires, or expired, under the
// collection's DefaultTTL (R3, R4): its _ts plus its effective TTL. A
// document that expired under an earlier DefaultTTL keeps the instant it
// expired at, whatever the setting now (R7). ok is false when d does not
// expire. It answers for the Document given, even if the collection has
// since replaced or deleted it; the zero Document, and any after Close,
// give ok false. The answer follows changes of DefaultTTL, which is why it
// is asked of the collection and not of the document. It takes O(1).
func (c *Collection) ExpiresAt(d Document) (at time.Time, ok bool) {
	if d.d == nil || c.unusable() {
		return time.Time{}, false
	}
	c.mu.RLock()
	sec, ok := c.exp.expiry(c.def, c.limits(), d.d)
	c.mu.RUnlock()
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(sec, 0), true
}

// SetDefaultTTL changes the collection's DefaultTTL. The change applies at
// once to every document, written before or after (R7), and costs O(1)
// whatever the number of documents: nothing is rebuilt. A document that had
// already expired stays gone, even if the new setting would keep it (R7).
//
// Errors: ErrInvalidTTL for a value outside R1; ErrInvalidOption when the
// indexing mode is none and d is not off (R8); ErrClosed. An error changes
// nothing.
func (c *Collection) SetDefaultTTL(d DefaultTTL) error {
	if c.unusable() {
		return c.errClosed("SetDefaultTTL")
	}
	if err := d.validate(); err != nil {
		return err
	}
	c.lock()
	defer c.mu.Unlock()
	if c.unusable() {
		return c.errClosed("SetDefaultTTL")
	}
	if err := ttlNeedsIndexing(d, c.mode); err != nil {
		return err
	}
	c.exp.freeze(c.def, c.limits())
	c.def = d
	c.poke()
	return nil
}

// DefaultTTL returns the collection's DefaultTTL.
func (c *Collection) DefaultTTL() DefaultTTL {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.def
}

// SetIndexingMode changes the indexing mode in O(1).
//
// Errors: ErrInvalidOption for an unknown mode, or for IndexingNone while
// DefaultTTL is not off (R8); ErrClosed. An error changes nothing.
func (c *Collection) SetIndexingMode(m IndexingMode) error {
	if c.unusable() {
		return c.errClosed("SetIndexingMode")
	}
	if err := m.validate(); err != nil {
		return err
	}
	c.lock()
	defer c.mu.Unlock()
	if c.unusable() {
		return c.errClosed("SetIndexingMode")
	}
	if err := ttlNeedsIndexing(c.def, m); err != nil {
		return err
	}
	c.mode = m
	return nil
}

// IndexingMode returns the collection's indexing mode.
func (c *Collection) IndexingMode() IndexingMode {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.mode
}

// Query selects documents for List, All and Count. The zero Query selects
// every live document, in key order: by partition key (none, null, false,
// true, numbers, strings), then by id.
type Query struct {
	// Partition restricts the query to one partition. Nil: all of them.
	Partition *PartitionKey

	// Filter, when not nil, keeps the documents for which it returns true.
	// It runs on a snapshot, outside the collection's lock, so it may call
	// the collection.
	Filter func(Document) bool

	// Limit is the most documents List returns in one page, or All yields.
	// Zero: no limit. Count ignores it.
	Limit int

	// Continuation resumes a listing after the last document of the page
	// that returned it. Empty: from the start. Count ignores it.
	Continuation string
}

// Page is one page of a listing.
type Page struct {
	// Documents are the page's documents, in key order.
	Documents []Document
	// Continuation is the token for the next page, or empty when there are
	// no more documents.
	Continuation string
}

// plan is a validated Query: the key prefix of its partition and the key to
// resume after.
type plan struct {
	prefix string
	after  string
	resume bool
}

func (c *Collection) plan(op string, q Query) (plan, error) {
	var p plan
	if c.unusable() {
		return p, c.errClosed(op)
	}
	if q.Limit < 0 {
		return p, errorf(ErrInvalidOption, "query limit %d is negative", q.Limit)
	}
	if q.Partition != nil {
		if err := q.Partition.validate(); err != nil {
			return p, err
		}
		p.prefix = string(q.Partition.appendEncoded(nil))
	}
	if q.Continuation != "" {
		key, err := decodeToken(q.Continuation)
		if err != nil {
			return p, err
		}
		if !strings.HasPrefix(key, p.prefix) {
			return p, errorf(ErrInvalidContinuation, "token %.40q belongs to another partition than %v", q.Continuation, *q.Partition)
		}
		p.after, p.resume = key, true
	}
	return p, nil
}

// A continuation token is the base64url encoding of a version byte, the key
// of the last document returned, and the CRC-32 of both.
const tokenVersion = 1

func encodeToken(key string) string {
	b := make([]byte, 0, 1+len(key)+4)
	b = append(b, tokenVersion)
	b = append(b, key...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeToken(tok string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) < 1+4 || b[0] != tokenVersion {
		return "", errorf(ErrInvalidContinuation, "token %.40q was not issued by ttldb", tok)
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return "", errorf(ErrInvalidContinuation, "token %.40q is damaged", tok)
	}
	key := string(body[1:])
	enc, id, ok := splitKey(key)
	var pk PartitionKey
	if ok {
		pk, ok = decodePartitionKey(enc)
	}
	if ok && id == "" && pk.kind == pkString {
		id = pk.s // a key of a collection partitioned by /id: see keyFor
	}
	if !ok || pk.validate() != nil || validateID(id) != nil {
		return "", errorf(ErrInvalidContinuation, "token %.40q holds no document key", tok)
	}
	return key, nil
}

// snapshot is a consistent view of the collection: its documents and
// which of them were expired at one instant.
type snapshot struct {
	tree *btree.BTreeG[*doc]
	lim  limits
}

// snapshot takes a snapshot in O(1): google/btree's Clone is copy-on-write.
func (c *Collection) snapshot(op string) (snapshot, error) {
	c.lock() // Clone writes to the tree's copy-on-write state
	defer c.mu.Unlock()
	if c.unusable() {
		return snapshot{}, c.errClosed(op)
	}
	return snapshot{tree: c.prim.tree.Clone(), lim: c.limits()}, nil
}

// scan calls fn for each live document of p, in key order, until fn returns
// false.
func (s snapshot) scan(p plan, fn func(*doc) bool) {
	pivot := keyDoc(p.prefix)
	if p.resume {
		pivot = keyDoc(p.after)
	}
	s.tree.AscendGreaterOrEqual(pivot, func(d *doc) bool {
		switch {
		case !strings.HasPrefix(d.key(), p.prefix):
			return false
		case p.resume && d.key() == p.after, s.lim.expired(d):
			return true
		}
		return fn(d)
	})
}

// List returns one page of the documents q selects, from a snapshot taken
// when it is called: expired documents never appear (R4). It takes
// O(log n + k) for the k documents it visits, and blocks no writer while it
// runs.
//
// Errors: ErrInvalidContinuation for a token List did not issue for this
// partition; ErrInvalidOption for a negative Limit; ErrInvalidPartitionKey;
// ErrClosed.
func (c *Collection) List(q Query) (Page, error) {
	p, err := c.plan("List", q)
	if err != nil {
		return Page{}, err
	}
	s, err := c.snapshot("List")
	if err != nil {
		return Page{}, err
	}
	var page Page
	s.scan(p, func(d *doc) bool {
		if q.Filter != nil && !q.Filter(Document{d}) {
			return true
		}
		if q.Limit > 0 && len(page.Documents) == q.Limit {
			page.Continuation = encodeToken(page.Documents[q.Limit-1].d.key())
			return false
		}
		page.Documents = append(page.Documents, Document{d})
		return true
	})
	return page, nil
}

// All returns an iterator over the documents q selects, all from one
// snapshot taken when the iteration starts, so a long iteration sees one
// consistent state and blocks no writer. It honours q.Continuation and
// q.Limit. An error (those of List, or ErrClosed when the collection is
// closed during the iteration) is yielded once, with a zero Document, and
// ends the iteration.
func (c *Collection) All(q Query) iter.Seq2[Document, error] {
	return func(yield func(Document, error) bool) {
		p, err := c.plan("All", q)
		if err != nil {
			yield(Document{}, err)
			return
		}
		s, err := c.snapshot("All")
		if err != nil {
			yield(Document{}, err)
			return
		}
		n := 0
		s.scan(p, func(d *doc) bool {
			if c.unusable() {
				yield(Document{}, c.errClosed("All"))
				return false
			}
			if q.Filter != nil && !q.Filter(Document{d}) {
				return true
			}
			if q.Limit > 0 && n == q.Limit {
				return false
			}
			n++
			return yield(Document{d}, nil)
		})
	}
}

// Count returns how many live documents q selects; expired documents are
// never counted (R4). Without Partition and Filter it takes
// O(log n + e) for the e expired documents the sweeper has not yet deleted;
// otherwise it scans like List. It blocks no writer while it counts.
//
// Errors: those of List.
func (c *Collection) Count(q Query) (int, error) {
	q.Limit, q.Continuation = 0, ""
	p, err := c.plan("Count", q)
	if err != nil {
		return 0, err
	}
	if q.Partition == nil && q.Filter == nil {
		st, err := c.census("Count")
		return st.Live, err
	}
	s, err := c.snapshot("Count")
	if err != nil {
		return 0, err
	}
	n := 0
	s.scan(p, func(d *doc) bool {
		if q.Filter == nil || q.Filter(Document{d}) {
			n++
		}
		return true
	})
	return n, nil
}

// census returns the collection's Stats, all read at one instant. A
// backlog of expired documents of at most DefaultSweepBatch is counted under
// the read lock; a larger one on a copy-on-write snapshot of the expiry index,
// outside the lock. (A snapshot costs writers: each node a write then
// touches is copied once, so it is kept for backlogs worth it.)
func (c *Collection) census(op string) (Stats, error) {
	c.mu.RLock()
	if c.unusable() {
		c.mu.RUnlock()
		return Stats{}, c.errClosed(op)
	}
	total, lim := c.prim.len(), c.limits()
	st := Stats{Swept: c.swept.Load(), LastSweep: c.lastSweep}
	expired, all := c.exp.countExpired(lim, DefaultSweepBatch)
	c.mu.RUnlock()
	if !all {
		c.lock()
		if c.unusable() {
			c.mu.Unlock()
			return Stats{}, c.errClosed(op)
		}
		total, lim = c.prim.len(), c.limits()
		st = Stats{Swept: c.swept.Load(), LastSweep: c.lastSweep}
		x := c.exp.clone()
		c.mu.Unlock()
		expired, _ = x.countExpired(lim, -1)
	}
	st.Expired, st.Live = expired, total-expired
	return st, nil
}

// Stats describes a collection at one instant.
type Stats struct {
	// Live is the number of documents that have not expired.
	Live int
	// Expired is the number of expired documents the sweeper has not yet
	// deleted. They are invisible to every call (R4).
	Expired int
	// Swept is the number of documents the sweeper (and Sweep) deleted.
	Swept uint64
	// LastSweep is how long the last sweep took, from its first batch to
	// its last.
	LastSweep time.Duration
}

// Stats returns the collection's statistics, all at one instant, in
// O(log n + e) for the e expired documents not yet deleted. It blocks no
// writer for longer than one sweep batch.
//
// Errors: ErrClosed.
func (c *Collection) Stats() (Stats, error) { return c.census("Stats") }

// Close stops the sweeper, waits for it to return, and releases the
// documents. Every later call returns ErrClosed; an iteration of All in
// progress ends with ErrClosed. Close is idempotent and safe to call from
// several goroutines at once: each call returns nil once the collection is
// closed.
func (c *Collection) Close() error {
	if c.stop == nil {
		return nil // not made by NewCollection: nothing to stop
	}
	c.closeOnce.Do(func() {
		c.lock()
		c.closed.Store(true)
		c.mu.Unlock()
		close(c.stop)
		<-c.done
		c.mu.Lock()
		c.prim, c.exp = primary{}, expiryIndex{}
		c.mu.Unlock()
	})
	return nil
}
