package ttldb

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/ttldb/ttldb/engine"
)

// Typed is a view of a [Collection] whose documents are Go values of type T,
// encoded and decoded with encoding/json: Create, Replace and Upsert take a
// T, Get returns one with the stored document's system properties, and All
// yields them. The untyped [Collection] stays usable beside it; both see the
// same documents.
//
// T is usually a struct with an `json:"id"` field, and a `json:"ttl,omitempty"`
// field of type *int when documents carry their own ttl (R2):
//
//	type Session struct {
//		ID   string `json:"id"`
//		User string `json:"user"`
//		TTL  *int   `json:"ttl,omitempty"` // nil: inherit DefaultTTL
//	}
//
// Fields tagged `json:"_ts"` and `json:"_etag"` are filled on reads; on
// writes the library ignores them and stamps its own (R10).
//
// A [Typed] is safe for concurrent use, like its [Collection]; the zero
// [Typed] is not usable. Decoding costs what encoding/json costs for the same
// bytes, plus the Get: the stored text is decoded directly, without an
// intermediate copy with system properties unless T asks for them.
type Typed[T any] struct {
	c      *Collection
	system bool // T has a field for _ts or _etag: decode the document with them
}

// Item is one typed document: the decoded Value, and the stored [Document],
// whose methods give the id, the partition key and the system properties
// (TS, ETag, TTL) without decoding anything.
type Item[T any] struct {
	Value T
	Document
}

// NewTyped returns a typed view of c. It checks T once, so that the
// mistakes encoding/json makes silently are caught before any write: a
// field that encodes as "ID" or "Id" rather than "id" (an untagged ID
// field), likewise "TTL" for "ttl", a struct without an "id" field, a
// non-pointer ttl field without omitempty, whose zero value would write
// "ttl":0 and be refused on every write (R2), and a field for _ts or _etag
// of a type that cannot hold the number or string the library writes there.
// Fields are found by encoding/json's rules for embedded structs.
//
// Errors: [ErrInvalidOption] for a T that cannot hold a document (not a
// struct, a map with string keys, or a pointer to one of those) or that
// makes one of the mistakes above; [ErrClosed] for a nil or closed c.
func NewTyped[T any](c *Collection) (*Typed[T], error) {
	if c == nil || c.unusable() {
		return nil, errorf(ErrClosed, "NewTyped on a nil or closed collection")
	}
	rt := reflect.TypeFor[T]()
	for rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	t := &Typed[T]{c: c}
	switch {
	case rt.Kind() == reflect.Map && rt.Key().Kind() == reflect.String:
		return t, nil
	case rt.Kind() != reflect.Struct:
		return nil, errorf(ErrInvalidOption, "NewTyped[%v]: a document is a JSON object, so T must be a struct or a map with string keys", reflect.TypeFor[T]())
	}
	fields := jsonFields(rt)
	for name, f := range fields {
		for _, want := range [...]string{"id", "ttl"} {
			if _, ok := fields[want]; !ok && name != want && strings.EqualFold(name, want) {
				return nil, errorf(ErrInvalidOption, "NewTyped[%v]: field %s encodes as %q, and ttldb reads %q: member names are case-sensitive; tag it `json:\"%s\"`", rt, f.Name, name, want, want)
			}
		}
	}
	if _, ok := fields["id"]; !ok {
		return nil, errorf(ErrInvalidOption, "NewTyped[%v]: no field encodes as \"id\", which every document needs (R10); tag the id field `json:\"id\"`", rt)
	}
	if f, ok := fields["ttl"]; ok && f.Type.Kind() != reflect.Pointer && f.Type.Kind() != reflect.Interface && !hasTagOption(f, "omitempty") {
		return nil, errorf(ErrInvalidOption, "NewTyped[%v]: field %s %v encodes its zero value as \"ttl\":0, which R2 refuses; use *int with `json:\"ttl,omitempty\"`", rt, f.Name, f.Type)
	}
	for _, name := range [...]string{"_ts", "_etag"} {
		if f, ok := fields[name]; ok {
			if p := systemFieldProblem(name, f); p != "" {
				return nil, errorf(ErrInvalidOption, "NewTyped[%v]: field %s, for %s, %s", rt, f.Name, name, p)
			}
			t.system = true
		}
	}
	return t, nil
}

// jsonFields returns the fields of struct type rt by the member names
// encoding/json encodes them under, with its rules for embedded structs: of
// the fields of one name, the least nested wins; among several at that
// depth, the one with a json tag; if that leaves several, none does.
func jsonFields(rt reflect.Type) map[string]reflect.StructField {
	type candidate struct {
		f      reflect.StructField
		depth  int
		tagged bool
	}
	type level struct {
		t     reflect.Type
		depth int
	}
	byName := make(map[string][]candidate)
	seen := make(map[reflect.Type]bool)
	for queue := []level{{rt, 0}}; len(queue) > 0; queue = queue[1:] {
		l := queue[0]
		if seen[l.t] {
			continue // a type embedded again, deeper, adds nothing
		}
		seen[l.t] = true
		for i := range l.t.NumField() {
			f := l.t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				queue = append(queue, level{ft, l.depth + 1}) // its fields are promoted
				continue
			}
			if !f.IsExported() {
				continue
			}
			byName[cmp.Or(name, f.Name)] = append(byName[cmp.Or(name, f.Name)], candidate{f, l.depth, name != ""})
		}
	}
	fields := make(map[string]reflect.StructField)
	for name, cs := range byName {
		depth := slices.MinFunc(cs, func(a, b candidate) int { return cmp.Compare(a.depth, b.depth) }).depth
		var top, tagged []candidate
		for _, c := range cs {
			if c.depth == depth {
				top = append(top, c)
				if c.tagged {
					tagged = append(tagged, c)
				}
			}
		}
		switch {
		case len(top) == 1:
			fields[name] = top[0].f
		case len(tagged) == 1:
			fields[name] = tagged[0].f
		} // else ambiguous: encoding/json encodes none of them
	}
	return fields
}

// systemFieldProblem says why field f, for the system property name (_ts
// or _etag), cannot hold what the library writes there, or returns "".
func systemFieldProblem(name string, f reflect.StructField) string {
	if hasTagOption(f, "string") {
		return "has the ,string option, and the library writes no quoted value"
	}
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) || t == reflect.TypeFor[json.Number]() {
		return ""
	}
	switch k := t.Kind(); {
	case name == "_ts" && (k >= reflect.Int && k <= reflect.Uint64 || k == reflect.Float32 || k == reflect.Float64):
		return ""
	case name == "_etag" && k == reflect.String:
		return ""
	case name == "_ts":
		return "is a " + t.String() + ", and _ts is a number (Unix seconds): use int64"
	}
	return "is a " + t.String() + ", and _etag is a string"
}

// hasTagOption reports whether the field's json tag has the option opt.
func hasTagOption(f reflect.StructField, opt string) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	for _, o := range strings.Split(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// Collection returns the collection the view is of.
func (t *Typed[T]) Collection() *Collection { return t.c }

// Create stores v as a new document, as [Collection.Create] does, and
// returns it with its system properties. Errors: those of
// [Collection.Create], and [ErrInvalidDocument] when v does not encode.
// When T has fields for _ts or _etag, the stored document is decoded again
// to fill them; should T's own UnmarshalJSON refuse what its MarshalJSON
// wrote, the write is done all the same, and the error, wrapping
// [ErrInvalidDocument], says so beside the Item of the stored document. The
// same holds for Replace and Upsert.
func (t *Typed[T]) Create(ctx context.Context, v T) (Item[T], error) {
	return t.written(v)(t.c.Create(ctx, v))
}

// Replace replaces the live document with v's key, as [Collection.Replace]
// does. Errors: those of [Collection.Replace].
func (t *Typed[T]) Replace(ctx context.Context, v T, opts ...WriteOption) (Item[T], error) {
	return t.written(v)(t.c.Replace(ctx, v, opts...))
}

// Upsert replaces or creates the document with v's key, as
// [Collection.Upsert] does. Errors: those of [Collection.Upsert].
func (t *Typed[T]) Upsert(ctx context.Context, v T, opts ...WriteOption) (Item[T], error) {
	return t.written(v)(t.c.Upsert(ctx, v, opts...))
}

// written makes the [Item] of a write of v: v itself, or v decoded again from
// the stored document when T has fields for the system properties.
func (t *Typed[T]) written(v T) func(Document, error) (Item[T], error) {
	return func(d Document, err error) (Item[T], error) {
		if err != nil {
			return Item[T]{}, err
		}
		if !t.system {
			return Item[T]{Value: v, Document: d}, nil
		}
		it, err := t.item(d)
		if err != nil {
			// Only a custom UnmarshalJSON that refuses what its type's
			// MarshalJSON wrote comes here: the write is done, say so.
			return Item[T]{Value: v, Document: d}, fmt.Errorf("%w: the document was stored (_ts %d), but does not decode back into its type: %w", ErrInvalidDocument, d.TS(), err)
		}
		return it, nil
	}
}

// Get returns the live document with partition key pk and id id, decoded.
// It costs [Collection.Get] plus encoding/json's decoding of the stored text.
// Errors: those of [Collection.Get], and [ErrInvalidDocument] when the document
// does not decode into a T.
func (t *Typed[T]) Get(ctx context.Context, pk PartitionKey, id string) (Item[T], error) {
	d, err := t.c.Get(ctx, pk, id)
	if err != nil {
		return Item[T]{}, err
	}
	return t.item(d)
}

// Delete deletes the live document, as [Collection.Delete] does.
func (t *Typed[T]) Delete(ctx context.Context, pk PartitionKey, id string, opts ...WriteOption) error {
	return t.c.Delete(ctx, pk, id, opts...)
}

// Touch renews the live document's _ts and _etag, as [Collection.Touch]
// does, and returns it decoded.
func (t *Typed[T]) Touch(ctx context.Context, pk PartitionKey, id string, opts ...WriteOption) (Item[T], error) {
	d, err := t.c.Touch(ctx, pk, id, opts...)
	if err != nil {
		return Item[T]{}, err
	}
	return t.item(d)
}

// Patch is [Collection.Patch], returning the patched document decoded. A
// patch whose result would not decode into T is refused, with
// [ErrInvalidDocument], and changes nothing.
func (t *Typed[T]) Patch(ctx context.Context, pk PartitionKey, id string, ops []PatchOp, opts ...WriteOption) (Item[T], error) {
	d, err := t.c.patch(ctx, pk, id, ops, opts, func(d *engine.Doc) error {
		var v T
		if err := decodeDoc(d, &v, false); err != nil {
			return fmt.Errorf("%w (the document as the patch would leave it; nothing changed)", err)
		}
		return nil
	})
	if err != nil {
		return Item[T]{}, err
	}
	return t.item(d)
}

// ExpiresAt returns when the item expires, or expired, under the
// collection's [DefaultTTL], as [Collection.ExpiresAt] does for its [Document].
func (t *Typed[T]) ExpiresAt(it Item[T]) (at time.Time, ok bool) { return t.c.ExpiresAt(it.Document) }

// All returns an iterator over the documents q selects, decoded, from one
// snapshot, as [Collection.All] does; q.Filter sees the stored [Document]. A
// document that does not decode yields its error ([ErrInvalidDocument]) with
// the zero [Item] and ends the iteration, as other errors do.
func (t *Typed[T]) All(ctx context.Context, q Query) iter.Seq2[Item[T], error] {
	return func(yield func(Item[T], error) bool) {
		for d, err := range t.c.All(ctx, q) {
			var it Item[T]
			if err == nil {
				it, err = t.item(d)
			}
			if !yield(it, err) || err != nil {
				return
			}
		}
	}
}

// List returns one page of the documents q selects, decoded, and the
// continuation for the next page, as [Collection.List] does.
func (t *Typed[T]) List(ctx context.Context, q Query) (items []Item[T], continuation string, err error) {
	page, err := t.c.List(ctx, q)
	if err != nil {
		return nil, "", err
	}
	items = make([]Item[T], 0, len(page.Documents))
	for _, d := range page.Documents {
		it, err := t.item(d)
		if err != nil {
			return nil, "", err
		}
		items = append(items, it)
	}
	return items, page.Continuation, nil
}

// Query returns one page of a query's results (R13), each decoded into a
// T, and the continuation for the next page, as [Collection.Query] does. A
// projection decodes into T like any JSON object: fields it does not name
// keep their zero values.
//
// Errors: those of [Collection.Query]; [ErrInvalidDocument], wrapping
// encoding/json's error, for a result that does not decode into T.
func (t *Typed[T]) Query(ctx context.Context, q SQL) (results []T, continuation string, err error) {
	page, err := t.c.Query(ctx, q)
	if err != nil {
		return nil, "", err
	}
	results = make([]T, len(page.Results))
	for i, res := range page.Results {
		if err := decodeResult(res, &results[i]); err != nil {
			return nil, "", err
		}
	}
	return results, page.Continuation, nil
}

// QueryAll returns an iterator over all of a query's results, decoded, from
// one snapshot, as [Collection.QueryAll] does. A result that does not
// decode yields its error ([ErrInvalidDocument]) with the zero T and ends
// the iteration, as other errors do.
func (t *Typed[T]) QueryAll(ctx context.Context, q SQL) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for res, err := range t.c.QueryAll(ctx, q) {
			var v T
			if err == nil {
				err = decodeResult(res, &v)
			}
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

func decodeResult(res []byte, v any) error {
	if err := json.Unmarshal(res, v); err != nil {
		return errorf(ErrInvalidDocument, "query result %s does not decode into %T: %w", clip(res), v, err)
	}
	return nil
}

// item decodes d into an [Item].
func (t *Typed[T]) item(d Document) (Item[T], error) {
	it := Item[T]{Document: d}
	if err := decodeDoc(d.d, &it.Value, t.system); err != nil {
		return Item[T]{}, err
	}
	return it, nil
}
