// Package ttldbotel is the bridge from ttldb to OpenTelemetry (R17):
// [RegisterMetrics] makes observable instruments that read
// [ttldb.Collection.Metrics] at each collection of a metric reader, and
// [Trace] wraps a collection so that its calls that take a context make
// spans. It is a module of its own, so that ttldb's core module depends on
// no OpenTelemetry package.
//
// The metrics cost nothing between two collections: the core keeps its
// counters whether or not they are read, and a collection reads them in
// O(1) (see Collection.Metrics for the sweeper's gauges). The spans cost
// what the tracer provider makes of them; a call of the wrapped collection
// costs, beyond the call, starting and ending one span.
package ttldbotel

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ttldb/ttldb"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ScopeName is the instrumentation scope of the meter and tracer this
// package asks for when given a provider.
const ScopeName = "github.com/ttldb/ttldb/otel"

// The instruments [RegisterMetrics] makes, each with the attribute
// db.collection.name (the collection's name):
//
//	ttldb.reads            counter  point reads; attribute ttldb.read.result: hit or miss
//	ttldb.writes           counter  writes applied; attribute ttldb.write.kind: create, replace, upsert, delete, patch, touch or batch
//	ttldb.expired          counter  documents found expired and hidden (R4)
//	ttldb.swept            counter  expired documents deleted (R5)
//	ttldb.evicted          counter  documents a memory quota evicted (0: no quota yet)
//	ttldb.sweeper.backlog  gauge    expired documents not yet swept
//	ttldb.sweeper.lag      gauge    seconds since the oldest of them expired (0: none)
//	ttldb.documents        gauge    live documents
//	ttldb.bytes            gauge    bytes of the documents held (By)
//	ttldb.feed.last_lsn    gauge    the last change's LSN
//	ttldb.feed.oldest_lsn  gauge    the oldest change the all-versions feed holds (0: none)
//
// Counters are cumulative from the collection's open.
const (
	AttrCollection = "db.collection.name"
	AttrReadResult = "ttldb.read.result"
	AttrWriteKind  = "ttldb.write.kind"
)

// RegisterMetrics makes the instruments above on meter and registers one
// callback that reads the Metrics of each of collections at each
// collection by a reader, in O(1) per collection (the sweeper's gauges: as
// Collection.Metrics says), and unregistered by the returned
// Registration's Unregister (a closed collection goes on reporting its
// counters until then). now is the clock of the lag; nil is time.Now.
//
// Errors: those of meter's making an instrument or registering the
// callback; a nil meter or collection is refused with an error naming it.
func RegisterMetrics(meter metric.Meter, now func() time.Time, collections ...*ttldb.Collection) (metric.Registration, error) {
	if meter == nil {
		return nil, errors.New("ttldbotel.RegisterMetrics: a nil metric.Meter (take one from a MeterProvider's Meter(ScopeName))")
	}
	for i, c := range collections {
		if c == nil {
			return nil, fmt.Errorf("ttldbotel.RegisterMetrics: collection %d of %d is nil", i, len(collections))
		}
	}
	if now == nil {
		now = time.Now
	}
	var err error
	counter := func(name, desc, unit string) metric.Int64ObservableCounter {
		inst, e := meter.Int64ObservableCounter(name, metric.WithDescription(desc), metric.WithUnit(unit))
		err = errors.Join(err, e)
		return inst
	}
	gauge := func(name, desc, unit string) metric.Int64ObservableGauge {
		inst, e := meter.Int64ObservableGauge(name, metric.WithDescription(desc), metric.WithUnit(unit))
		err = errors.Join(err, e)
		return inst
	}
	reads := counter("ttldb.reads", "Point reads, by result (hit or miss).", "{read}")
	writes := counter("ttldb.writes", "Writes applied, by kind.", "{write}")
	expired := counter("ttldb.expired", "Documents found expired, not yet swept, and hidden.", "{document}")
	swept := counter("ttldb.swept", "Expired documents deleted.", "{document}")
	evicted := counter("ttldb.evicted", "Documents evicted by a memory quota.", "{document}")
	backlog := gauge("ttldb.sweeper.backlog", "Expired documents not yet swept.", "{document}")
	lag := gauge("ttldb.sweeper.lag", "Time since the oldest expired document not yet swept expired.", "s")
	docs := gauge("ttldb.documents", "Live documents.", "{document}")
	bytes := gauge("ttldb.bytes", "Size of the documents held, as stored.", "By")
	last := gauge("ttldb.feed.last_lsn", "The last change's LSN.", "{change}")
	oldest := gauge("ttldb.feed.oldest_lsn", "The oldest change the all-versions feed holds.", "{change}")
	if err != nil {
		return nil, fmt.Errorf("ttldbotel.RegisterMetrics: %w", err)
	}
	type kinded struct {
		kind string
		n    func(ttldb.Metrics) uint64
	}
	kinds := []kinded{
		{"create", func(m ttldb.Metrics) uint64 { return m.Creates }},
		{"replace", func(m ttldb.Metrics) uint64 { return m.Replaces }},
		{"upsert", func(m ttldb.Metrics) uint64 { return m.Upserts }},
		{"delete", func(m ttldb.Metrics) uint64 { return m.Deletes }},
		{"patch", func(m ttldb.Metrics) uint64 { return m.Patches }},
		{"touch", func(m ttldb.Metrics) uint64 { return m.Touches }},
		{"batch", func(m ttldb.Metrics) uint64 { return m.Batches }},
	}
	// The attribute sets, made once: a collection's name does not change.
	type sets struct {
		c          metric.MeasurementOption
		hit, miss  metric.MeasurementOption
		kinds      []metric.MeasurementOption
		collection *ttldb.Collection
	}
	all := make([]sets, len(collections))
	for i, c := range collections {
		name := attribute.String(AttrCollection, c.Name())
		s := sets{
			collection: c,
			c:          metric.WithAttributeSet(attribute.NewSet(name)),
			hit:        metric.WithAttributeSet(attribute.NewSet(name, attribute.String(AttrReadResult, "hit"))),
			miss:       metric.WithAttributeSet(attribute.NewSet(name, attribute.String(AttrReadResult, "miss"))),
		}
		for _, k := range kinds {
			s.kinds = append(s.kinds, metric.WithAttributeSet(attribute.NewSet(name, attribute.String(AttrWriteKind, k.kind))))
		}
		all[i] = s
	}
	return meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		t := now()
		for _, s := range all {
			m := s.collection.Metrics()
			o.ObserveInt64(reads, i64(m.Hits), s.hit)
			o.ObserveInt64(reads, i64(m.Misses), s.miss)
			for i, k := range kinds {
				o.ObserveInt64(writes, i64(k.n(m)), s.kinds[i])
			}
			o.ObserveInt64(expired, i64(m.Expired), s.c)
			o.ObserveInt64(swept, i64(m.Swept), s.c)
			o.ObserveInt64(evicted, i64(m.Evicted), s.c)
			o.ObserveInt64(backlog, m.Backlog, s.c)
			var behind int64
			if !m.OldestDue.IsZero() {
				behind = max(int64(t.Sub(m.OldestDue)/time.Second), 0)
			}
			o.ObserveInt64(lag, behind, s.c)
			o.ObserveInt64(docs, m.Documents, s.c)
			o.ObserveInt64(bytes, m.Bytes, s.c)
			o.ObserveInt64(last, i64(m.LastLSN), s.c)
			o.ObserveInt64(oldest, i64(m.FeedOldest), s.c)
		}
		return nil
	}, reads, writes, expired, swept, evicted, backlog, lag, docs, bytes, last, oldest)
}

// i64 is n as an int64 instrument takes it, capped at its largest value.
func i64(n uint64) int64 { return int64(min(n, 1<<63-1)) }
