package ttldbotel

import (
	"context"
	"errors"
	"io"

	"github.com/ttldb/ttldb"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Collection is a [ttldb.Collection] whose calls that take a context and
// return once done make a span each, a child of the context's span: named
// "ttldb.<Call>" ("ttldb.Get"), of kind internal, with the attributes
// db.system.name "ttldb", db.collection.name and db.operation.name (the
// call), and the error of a call that failed as the span's status. A read
// that finds nothing (ErrNotFound from Get) is an answer, not a failure:
// its span has the attribute ttldb.found false and no error status.
//
// The calls traced are Get, Create, Replace, Upsert, their JSON forms,
// Delete, Touch, Patch, ExecuteBatch, Query, List, Count, ReadFeed,
// Sweep, Compact and Backup. Every other method is the embedded
// collection's, untraced: the iterators (All, QueryAll, WatchFeed), whose
// work happens as the caller ranges over them, so a span would measure
// the caller; OpenQuery's cursor; the setters and Close. The wrapper
// changes nothing in the core: ttldb has no hook for it, and needs none.
//
// The zero value is not usable: make one with [Trace].
type Collection struct {
	*ttldb.Collection
	tracer trace.Tracer
	attrs  []attribute.KeyValue
}

// Trace returns c with its calls traced by tp's tracer of [ScopeName]
// (for the global provider, pass otel.GetTracerProvider()). It costs an
// allocation; closing either closes both.
//
// Errors: a nil c or tp, named.
func Trace(c *ttldb.Collection, tp trace.TracerProvider) (*Collection, error) {
	switch {
	case c == nil:
		return nil, errors.New("ttldbotel.Trace: a nil collection")
	case tp == nil:
		return nil, errors.New("ttldbotel.Trace: a nil TracerProvider (pass otel.GetTracerProvider() for the global one)")
	}
	return &Collection{
		Collection: c,
		tracer:     tp.Tracer(ScopeName),
		attrs:      []attribute.KeyValue{attribute.String("db.system.name", "ttldb"), attribute.String(AttrCollection, c.Name())},
	}, nil
}

// start starts the span of call op.
func (t *Collection) start(ctx context.Context, op string) (context.Context, trace.Span) {
	ctx, span := t.tracer.Start(ctx, "ttldb."+op, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(t.attrs...))
	span.SetAttributes(attribute.String("db.operation.name", op))
	return ctx, span
}

// end ends span with the call's error.
func end(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// Get is [ttldb.Collection.Get], traced.
func (t *Collection) Get(ctx context.Context, pk ttldb.PartitionKey, id string) (ttldb.Document, error) {
	ctx, span := t.start(ctx, "Get")
	d, err := t.Collection.Get(ctx, pk, id)
	if errors.Is(err, ttldb.ErrNotFound) {
		span.SetAttributes(attribute.Bool("ttldb.found", false))
		span.End()
		return d, err
	}
	end(span, err)
	return d, err
}

// Create is [ttldb.Collection.Create], traced.
func (t *Collection) Create(ctx context.Context, doc any) (ttldb.Document, error) {
	ctx, span := t.start(ctx, "Create")
	d, err := t.Collection.Create(ctx, doc)
	end(span, err)
	return d, err
}

// Replace is [ttldb.Collection.Replace], traced.
func (t *Collection) Replace(ctx context.Context, doc any, opts ...ttldb.WriteOption) (ttldb.Document, error) {
	ctx, span := t.start(ctx, "Replace")
	d, err := t.Collection.Replace(ctx, doc, opts...)
	end(span, err)
	return d, err
}

// Upsert is [ttldb.Collection.Upsert], traced.
func (t *Collection) Upsert(ctx context.Context, doc any, opts ...ttldb.WriteOption) (ttldb.Document, error) {
	ctx, span := t.start(ctx, "Upsert")
	d, err := t.Collection.Upsert(ctx, doc, opts...)
	end(span, err)
	return d, err
}

// CreateJSON is [ttldb.Collection.CreateJSON], traced.
func (t *Collection) CreateJSON(ctx context.Context, doc []byte) (ttldb.Document, error) {
	ctx, span := t.start(ctx, "CreateJSON")
	d, err := t.Collection.CreateJSON(ctx, doc)
	end(span, err)
	return d, err
}

// ReplaceJSON is [ttldb.Collection.ReplaceJSON], traced.
func (t *Collection) ReplaceJSON(ctx context.Context, doc []byte, opts ...ttldb.WriteOption) (ttldb.Document, error) {
	ctx, span := t.start(ctx, "ReplaceJSON")
	d, err := t.Collection.ReplaceJSON(ctx, doc, opts...)
	end(span, err)
	return d, err
}

// UpsertJSON is [ttldb.Collection.UpsertJSON], traced.
func (t *Collection) UpsertJSON(ctx context.Context, doc []byte, opts ...ttldb.WriteOption) (ttldb.Document, error) {
	ctx, span := t.start(ctx, "UpsertJSON")
	d, err := t.Collection.UpsertJSON(ctx, doc, opts...)
	end(span, err)
	return d, err
}

// Delete is [ttldb.Collection.Delete], traced.
func (t *Collection) Delete(ctx context.Context, pk ttldb.PartitionKey, id string, opts ...ttldb.WriteOption) error {
	ctx, span := t.start(ctx, "Delete")
	err := t.Collection.Delete(ctx, pk, id, opts...)
	end(span, err)
	return err
}

// Touch is [ttldb.Collection.Touch], traced.
func (t *Collection) Touch(ctx context.Context, pk ttldb.PartitionKey, id string, opts ...ttldb.WriteOption) (ttldb.Document, error) {
	ctx, span := t.start(ctx, "Touch")
	d, err := t.Collection.Touch(ctx, pk, id, opts...)
	end(span, err)
	return d, err
}

// Patch is [ttldb.Collection.Patch], traced.
func (t *Collection) Patch(ctx context.Context, pk ttldb.PartitionKey, id string, ops []ttldb.PatchOp, opts ...ttldb.WriteOption) (ttldb.Document, error) {
	ctx, span := t.start(ctx, "Patch")
	d, err := t.Collection.Patch(ctx, pk, id, ops, opts...)
	end(span, err)
	return d, err
}

// ExecuteBatch is [ttldb.Collection.ExecuteBatch], traced; the span has
// the attribute ttldb.batch.operations.
func (t *Collection) ExecuteBatch(ctx context.Context, b *ttldb.Batch) ([]ttldb.Document, error) {
	ctx, span := t.start(ctx, "ExecuteBatch")
	docs, err := t.Collection.ExecuteBatch(ctx, b)
	if b != nil {
		span.SetAttributes(attribute.Int("ttldb.batch.operations", b.Len()))
	}
	end(span, err)
	return docs, err
}

// Query is [ttldb.Collection.Query], traced (a page: each page a span).
func (t *Collection) Query(ctx context.Context, q ttldb.SQL) (ttldb.QueryPage, error) {
	ctx, span := t.start(ctx, "Query")
	p, err := t.Collection.Query(ctx, q)
	end(span, err)
	return p, err
}

// List is [ttldb.Collection.List], traced (a page: each page a span).
func (t *Collection) List(ctx context.Context, q ttldb.Query) (ttldb.Page, error) {
	ctx, span := t.start(ctx, "List")
	p, err := t.Collection.List(ctx, q)
	end(span, err)
	return p, err
}

// Count is [ttldb.Collection.Count], traced.
func (t *Collection) Count(ctx context.Context, q ttldb.Query) (int, error) {
	ctx, span := t.start(ctx, "Count")
	n, err := t.Collection.Count(ctx, q)
	end(span, err)
	return n, err
}

// ReadFeed is [ttldb.Collection.ReadFeed], traced (a page: each page a
// span).
func (t *Collection) ReadFeed(ctx context.Context, q ttldb.FeedQuery) (ttldb.FeedPage, error) {
	ctx, span := t.start(ctx, "ReadFeed")
	p, err := t.Collection.ReadFeed(ctx, q)
	end(span, err)
	return p, err
}

// Sweep is [ttldb.Collection.Sweep], traced; the span has the attribute
// ttldb.swept, the documents it deleted.
func (t *Collection) Sweep(ctx context.Context) (int, error) {
	ctx, span := t.start(ctx, "Sweep")
	n, err := t.Collection.Sweep(ctx)
	span.SetAttributes(attribute.Int("ttldb.swept", n))
	end(span, err)
	return n, err
}

// Compact is [ttldb.Collection.Compact], traced.
func (t *Collection) Compact(ctx context.Context) error {
	ctx, span := t.start(ctx, "Compact")
	err := t.Collection.Compact(ctx)
	end(span, err)
	return err
}

// Backup is [ttldb.Collection.Backup], traced.
func (t *Collection) Backup(ctx context.Context, w io.Writer) (ttldb.BackupInfo, error) {
	ctx, span := t.start(ctx, "Backup")
	info, err := t.Collection.Backup(ctx, w)
	end(span, err)
	return info, err
}
