package local

// The engine's tests drive it through a small stand-in for ttldb's API:
// Collection, Options, Document and the calls the tests make, in the
// words of package ttldb, so that a test reads as a user's program would
// and can still look inside (c.local is the engine's machinery). The
// stand-in does what the engine needs of the API and no more: documents
// are compact JSON whose key is the partition key's string, a 0 byte and
// the id; it checks no input the engine does not. The rules the API
// states (R1-R16) are checked through the real API by the conformance
// suite (package conformance, run by the root package's tests).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"strings"
	"time"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
)

// bg is the context of the calls of tests that are not about contexts.
var bg = context.Background()

// The sentinels, under the names the API gives them.
var (
	ErrNotFound           = engine.ErrNotFound
	ErrConflict           = engine.ErrConflict
	ErrPreconditionFailed = engine.ErrPreconditionFailed
	ErrInvalidTTL         = engine.ErrInvalidTTL
	ErrInvalidOption      = engine.ErrInvalidOption
	ErrFeedTrimmed        = engine.ErrFeedTrimmed
	ErrClosed             = engine.ErrClosed
	ErrLocked             = engine.ErrLocked
	ErrCorrupt            = engine.ErrCorrupt
)

// CorruptError is the engine's report of damage.
type CorruptError = engine.CorruptError

// DefaultTTL is the engine's, built by the API's constructors.
type DefaultTTL = engine.DefaultTTL

// MaxTTL is the largest TTL in seconds.
const MaxTTL = engine.MaxTTL

func TTLOff() DefaultTTL                     { return DefaultTTL{} }
func TTLNoDefault() DefaultTTL               { return DefaultTTL{On: true, Seconds: -1} }
func TTLSeconds(n int64) DefaultTTL          { return DefaultTTL{On: true, Seconds: n} }
func TTLDuration(d time.Duration) DefaultTTL { return TTLSeconds(int64(d / time.Second)) }

// The indexing modes and sync policies, under the API's names.
const (
	IndexingConsistent = engine.Consistent
	IndexingNone       = engine.None
)

// IndexingMode is the engine's indexing mode.
type IndexingMode = engine.Indexing

// The feed's defaults, as the API sets them.
const (
	DefaultFeedBytes = 64 << 20
	MinFeedBytes     = 64 << 10
)

// FeedOptions are the feed's options: on unless Off, with a retention.
type FeedOptions struct {
	Off                  bool
	MaxRecords, MaxBytes int64
	MaxAge               time.Duration
}

// Options are the options of NewCollection that the engine takes.
type Options struct {
	Name, PartitionKeyPath string
	DefaultTTL             DefaultTTL
	Indexing               IndexingMode
	Indexes                []string
	ManualSweep            bool
	SweepBatch             int
	Now                    func() time.Time
	Feed                   FeedOptions
	Dir                    string
	Sync                   Sync
	Quota                  Quota

	fs                     vfs.FS
	compactAt              int64
	keepSettings, asStored bool
}

// Collection is a collection on the engine under test: local is its
// machinery, x the same as an [engine.Engine].
type Collection struct {
	local *collection
	x     *Engine
}

// NewCollection opens a collection on the engine, as ttldb.NewCollection
// does once it has validated its arguments.
func NewCollection(name, path string, o *Options) (*Collection, error) {
	if o == nil {
		o = &Options{}
	}
	keep := Retention{Records: o.Feed.MaxRecords, Bytes: o.Feed.MaxBytes, Age: int64(o.Feed.MaxAge / time.Second)}
	if keep.Bytes == 0 {
		keep.Bytes = DefaultFeedBytes
	}
	if name == "" && !o.asStored {
		name = o.Name
	}
	x, err := Open(Config{
		Name: name, Path: path, Documents: testDocuments,
		Now: o.Now, SweepBatch: o.SweepBatch, ManualSweep: o.ManualSweep,
		DefaultTTL: o.DefaultTTL, Indexing: o.Indexing, Indexes: o.Indexes,
		Feed: !o.Feed.Off, Keep: keep,
		Dir: o.Dir, Sync: o.Sync, AsStored: o.asStored, KeepSettings: o.keepSettings,
		FS: o.fs, CompactAt: o.compactAt, Quota: o.Quota,
	})
	if err != nil {
		return nil, err
	}
	return &Collection{local: (*collection)(x), x: x}, nil
}

// testDocuments parses the documents of a collection partitioned by path,
// a top-level member ("/pk"): the key is the member's string value (empty
// when it has none), a 0 byte, and the id.
func testDocuments(path string) (Parser, error) {
	member, ok := strings.CutPrefix(path, "/")
	if !ok || member == "" || strings.Contains(member, "/") {
		return nil, fmt.Errorf("%w: partition-key path %q: the tests take /member", ErrInvalidOption, path)
	}
	return func(buf, keyBuf, body []byte) (Parsed, error) {
		return parseTestDoc(member, buf, keyBuf, body)
	}, nil
}

// parseTestDoc reads body, a JSON object with a string "id" and maybe a
// "ttl" (R2's values) and the partition-key member.
func parseTestDoc(member string, buf, keyBuf, body []byte) (Parsed, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return Parsed{}, fmt.Errorf("%w: %v", engine.ErrInvalidDocument, err)
	}
	var id, pk string
	if err := json.Unmarshal(m["id"], &id); err != nil || id == "" {
		return Parsed{}, fmt.Errorf("%w: id %s", engine.ErrInvalidID, m["id"])
	}
	if raw, ok := m[member]; ok && member != "id" {
		if err := json.Unmarshal(raw, &pk); err != nil {
			return Parsed{}, fmt.Errorf("%w: %s", engine.ErrInvalidPartitionKey, raw)
		}
	}
	ttl := engine.TTLInherit
	if raw, ok := m["ttl"]; ok && string(raw) != "null" {
		var n float64
		if err := json.Unmarshal(raw, &n); err != nil || n != math.Trunc(n) || n == 0 || n < -1 || n > MaxTTL {
			return Parsed{}, fmt.Errorf("%w: ttl %s", ErrInvalidTTL, raw)
		}
		ttl = int32(n)
	}
	var out bytes.Buffer
	out.Write(buf[:0])
	if err := json.Compact(&out, body); err != nil {
		return Parsed{}, err
	}
	key := append(append(append(keyBuf[:0], pk...), 0), id...)
	at := engine.Layout{PK: uint16(len(pk) + 1), IDAt: uint16(len(pk) + 1), IDEnd: uint16(len(key))}
	return Parsed{Key: key, Body: out.Bytes(), At: at, TTL: ttl}, nil
}

// PartitionKey is a partition key's string; NoPartitionKey is a document
// without the member.
type PartitionKey struct{ s string }

func StringKey(s string) PartitionKey { return PartitionKey{s} }
func NoPartitionKey() PartitionKey    { return PartitionKey{} }

// keyOf is the key of the document id in the partition pk.
func keyOf(pk PartitionKey, id string) []byte { return []byte(pk.s + "\x00" + id) }

// Document is a stored document.
type Document struct{ d *engine.Doc }

func (d Document) ID() string   { return d.d.ID() }
func (d Document) TS() int64    { return d.d.TS }
func (d Document) ETag() string { return d.d.ETag() }
func (d Document) JSON() string { return string(d.d.AppendJSON(nil)) }
func (d Document) Body() string { return d.d.Body() }

// PartitionKey is the document's partition key.
func (d Document) PartitionKey() PartitionKey {
	return PartitionKey{d.d.Key()[:d.d.Layout.PK-1]}
}

// doc makes the document of body, parsed as the collection's files are.
func (c *Collection) doc(body []byte) (*engine.Doc, error) {
	in, err := c.local.parser(nil, nil, body)
	if err != nil {
		return nil, err
	}
	return engine.NewDoc(in.Key, in.At, in.Body, in.TTL, 0, 0), nil
}

// WriteOption is a write's condition: IfMatch.
type WriteOption struct{ etag string }

// IfMatch makes a write conditional on the live document's etag.
func IfMatch(etag string) WriteOption { return WriteOption{etag} }

// write makes the engine's Write of op with the document body, if any.
func write(op engine.Op, d *engine.Doc, opts []WriteOption) engine.Write {
	w := engine.Write{Op: op, Doc: d}
	if len(opts) > 0 {
		w.IfMatch, w.HasIfMatch = opts[0].etag, true
	}
	return w
}

func (c *Collection) write(ctx context.Context, op engine.Op, body []byte, opts []WriteOption) (Document, error) {
	d, err := c.doc(body)
	if err != nil {
		return Document{}, err
	}
	d, err = c.x.Write(ctx, []byte(d.Key()), write(op, d, opts))
	return Document{d}, err
}

// Create, Replace and Upsert write a document, JSON text.
func (c *Collection) Create(ctx context.Context, doc []byte) (Document, error) {
	return c.write(ctx, engine.Create, doc, nil)
}
func (c *Collection) Replace(ctx context.Context, doc []byte, opts ...WriteOption) (Document, error) {
	return c.write(ctx, engine.Replace, doc, opts)
}
func (c *Collection) Upsert(ctx context.Context, doc []byte, opts ...WriteOption) (Document, error) {
	return c.write(ctx, engine.Upsert, doc, opts)
}
func (c *Collection) CreateJSON(ctx context.Context, doc []byte) (Document, error) {
	return c.Create(ctx, doc)
}
func (c *Collection) UpsertJSON(ctx context.Context, doc []byte) (Document, error) {
	return c.Upsert(ctx, doc)
}

// Get reads a live document.
func (c *Collection) Get(ctx context.Context, pk PartitionKey, id string) (Document, error) {
	d, err := c.x.Get(ctx, keyOf(pk, id))
	if err == nil && d == nil {
		err = fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return Document{d}, err
}

// Delete deletes a live document; Touch writes it again as it is.
func (c *Collection) Delete(ctx context.Context, pk PartitionKey, id string) error {
	_, err := c.x.Write(ctx, keyOf(pk, id), engine.Write{Op: engine.Delete})
	return err
}
func (c *Collection) Touch(ctx context.Context, pk PartitionKey, id string) (Document, error) {
	d, err := c.x.Write(ctx, keyOf(pk, id), engine.Write{Op: engine.Touch})
	return Document{d}, err
}

// Query selects documents for List and Count: of a partition, those
// Filter keeps, Limit at most a page.
type Query struct {
	Partition    *PartitionKey
	Filter       func(Document) bool
	Limit        int
	Continuation string
}

// Page is a page of a listing; Continuation is the key after which the
// next page starts.
type Page struct {
	Documents    []Document
	Continuation string
}

// List reads a page of the documents q selects, from one snapshot.
func (c *Collection) List(ctx context.Context, q Query) (Page, error) {
	var page Page
	err := c.scan(ctx, q, func(d Document) bool {
		if q.Limit > 0 && len(page.Documents) == q.Limit {
			page.Continuation = page.Documents[q.Limit-1].d.Key()
			return false
		}
		page.Documents = append(page.Documents, d)
		return true
	})
	return page, err
}

// Count counts the documents q selects.
func (c *Collection) Count(ctx context.Context, q Query) (int, error) {
	if q.Partition == nil && q.Filter == nil {
		st, err := c.x.Stats(ctx)
		return st.Live, err
	}
	n := 0
	err := c.scan(ctx, Query{Partition: q.Partition, Filter: q.Filter}, func(Document) bool { n++; return true })
	return n, err
}

func (c *Collection) scan(ctx context.Context, q Query, fn func(Document) bool) error {
	s, err := c.x.Snapshot(ctx, nil, true)
	if err != nil {
		return err
	}
	defer s.Release()
	prefix := ""
	if q.Partition != nil {
		prefix = q.Partition.s + "\x00"
	}
	return s.Scan(ctx, prefix, q.Continuation, q.Continuation != "", func(d *engine.Doc) bool {
		if q.Filter != nil && !q.Filter(Document{d}) {
			return true
		}
		return fn(Document{d})
	})
}

// All iterates over the documents q selects, from one snapshot, ending
// with ErrClosed when the collection is closed meanwhile.
func (c *Collection) All(ctx context.Context, q Query) iter.Seq2[Document, error] {
	return func(yield func(Document, error) bool) {
		n, stopped := 0, false
		err := c.scan(ctx, q, func(d Document) bool {
			n++
			if c.x.Unusable() { // closed since the iteration began, as the API reports it
				stopped = true
				yield(Document{}, c.x.ErrClosed("All"))
				return false
			}
			if !yield(d, nil) || q.Limit > 0 && n == q.Limit {
				stopped = true
				return false
			}
			return true
		})
		if err != nil && !stopped {
			yield(Document{}, err)
		}
	}
}

// Stats are the engine's.
type Stats = engine.Stats

// MaxFeedLimit is the most changes a page of the feed holds.
const MaxFeedLimit = 10_000

// The engine's other calls, as the API makes them.
func (c *Collection) Sweep(ctx context.Context) (int, error) { return c.x.Sweep(ctx) }
func (c *Collection) Compact(ctx context.Context) error      { return c.x.Compact(ctx) }
func (c *Collection) Close() error                           { return c.x.Close() }
func (c *Collection) LastLSN() uint64                        { return c.x.LastLSN() }
func (c *Collection) Recovery() engine.Recovery              { return c.x.Recovery() }
func (c *Collection) Stats(ctx context.Context) (engine.Stats, error) {
	return c.x.Stats(ctx)
}
func (c *Collection) SetDefaultTTL(ctx context.Context, d DefaultTTL) error {
	return c.x.SetDefaultTTL(ctx, d)
}
func (c *Collection) SetIndexingMode(ctx context.Context, m IndexingMode) error {
	return c.x.SetIndexing(ctx, m)
}
func (c *Collection) DefaultTTL() DefaultTTL     { return c.x.Settings().DefaultTTL }
func (c *Collection) IndexingMode() IndexingMode { return c.x.Settings().Indexing }
func (c *Collection) CreateIndex(ctx context.Context, path string) error {
	return c.x.CreateIndex(ctx, path)
}
func (c *Collection) DropIndex(ctx context.Context, path string) error {
	return c.x.DropIndex(ctx, path)
}

// ExpiresAt says when a document expires, as the API does.
func (c *Collection) ExpiresAt(d Document) (time.Time, bool) {
	if d.d == nil {
		return time.Time{}, false
	}
	at, ok := c.x.ExpiresAt(d.d)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(at, 0), true
}
