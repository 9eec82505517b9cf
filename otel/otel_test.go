package ttldbotel

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

var bg = context.Background()

// clock is a clock the test moves, safe for the collection's concurrent
// reads.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// points collects reader and returns each data point's value by
// "name|collection|read result|write kind".
func points(t *testing.T, reader *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(bg, &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	key := func(name string, s attribute.Set) string {
		c, _ := s.Value(AttrCollection)
		r, _ := s.Value(AttrReadResult)
		k, _ := s.Value(AttrWriteKind)
		return name + "|" + c.AsString() + "|" + r.AsString() + "|" + k.AsString()
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				if !d.IsMonotonic {
					t.Errorf("%s: a counter that is not monotonic", m.Name)
				}
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] = p.Value
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] = p.Value
				}
			default:
				t.Errorf("%s: data of type %T", m.Name, m.Data)
			}
		}
	}
	return out
}

// TestRegisterMetrics: every instrument reports its figure of
// Collection.Metrics, per collection, at each collection by the reader
// (R17).
func TestRegisterMetrics(t *testing.T) { // R17
	clk := &clock{t: time.Unix(1_000_000, 0)}
	a, err := ttldb.NewCollection("a", "/pk", &ttldb.Options{DefaultTTL: ttldb.TTLNoDefault(), Now: clk.Now, ManualSweep: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := ttldb.NewCollection("b", "/pk", &ttldb.Options{Now: clk.Now, ManualSweep: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(bg)
	reg, err := RegisterMetrics(mp.Meter(ScopeName), clk.Now, a, b)
	if err != nil {
		t.Fatal(err)
	}

	body := `{"id":"x","pk":"p","ttl":5}`
	for _, doc := range []string{body, `{"id":"y","pk":"p","ttl":10}`, `{"id":"z","pk":"p"}`} {
		if _, err := a.CreateJSON(bg, []byte(doc)); err != nil {
			t.Fatal(err)
		}
	}
	mustOK := func(_ ttldb.Document, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mustOK(a.Replace(bg, []byte(`{"id":"z","pk":"p"}`)))
	mustOK(a.Upsert(bg, []byte(`{"id":"u","pk":"p","ttl":-1}`)))
	mustOK(a.Touch(bg, ttldb.StringKey("p"), "u"))
	mustOK(a.Patch(bg, ttldb.StringKey("p"), "u", []ttldb.PatchOp{ttldb.PatchSet("/n", 1)}))
	mustOK(a.Patch(bg, ttldb.StringKey("p"), "u", []ttldb.PatchOp{ttldb.PatchSet("/n", 2)}))
	if err := a.Delete(bg, ttldb.StringKey("p"), "u"); err != nil {
		t.Fatal(err)
	}
	batch := ttldb.NewBatch(ttldb.StringKey("p"))
	batch.Create([]byte(`{"id":"w","pk":"p","ttl":-1}`))
	if _, err := a.ExecuteBatch(bg, batch); err != nil {
		t.Fatal(err)
	}
	mustOK(a.Get(bg, ttldb.StringKey("p"), "x"))
	mustOK(a.Get(bg, ttldb.StringKey("p"), "z"))
	mustOK(b.Upsert(bg, []byte(`{"id":"q","pk":"p"}`)))
	clk.Advance(7 * time.Second) // x expired 2 s ago
	if _, err := a.Get(bg, ttldb.StringKey("p"), "x"); !errors.Is(err, ttldb.ErrNotFound) {
		t.Fatalf("Get of an expired document: %v", err)
	}

	m := a.Metrics()
	got := points(t, reader)
	want := map[string]int64{
		"ttldb.reads|a|hit|": 2, "ttldb.reads|a|miss|": 1,
		"ttldb.writes|a||create": 3, "ttldb.writes|a||replace": 1, "ttldb.writes|a||upsert": 1,
		"ttldb.writes|a||touch": 1, "ttldb.writes|a||patch": 2, "ttldb.writes|a||delete": 1, "ttldb.writes|a||batch": 1,
		"ttldb.expired|a||": 1, "ttldb.swept|a||": 0, "ttldb.evicted|a||": 0,
		"ttldb.sweeper.backlog|a||": 1, "ttldb.sweeper.lag|a||": 2,
		"ttldb.documents|a||": 3, "ttldb.bytes|a||": m.Bytes,
		"ttldb.feed.last_lsn|a||": int64(m.LastLSN), "ttldb.feed.oldest_lsn|a||": 1,
		"ttldb.writes|b||upsert": 1, "ttldb.documents|b||": 1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d", k, got[k], v)
		}
	}
	if m.Bytes <= int64(len(body)) || m.LastLSN < 10 {
		t.Errorf("Metrics %+v: Bytes or LastLSN too small", m)
	}

	if _, err := a.Sweep(bg); err != nil {
		t.Fatal(err)
	}
	got = points(t, reader)
	if got["ttldb.swept|a||"] != 1 || got["ttldb.sweeper.backlog|a||"] != 0 || got["ttldb.sweeper.lag|a||"] != 0 {
		t.Errorf("after a sweep: swept %d, backlog %d, lag %d; want 1, 0, 0", got["ttldb.swept|a||"], got["ttldb.sweeper.backlog|a||"], got["ttldb.sweeper.lag|a||"])
	}

	if err := reg.Unregister(); err != nil {
		t.Fatal(err)
	}
	if got := points(t, reader); len(got) != 0 {
		t.Errorf("after Unregister: %d points", len(got))
	}

	if _, err := RegisterMetrics(nil, nil, a); err == nil {
		t.Error("a nil meter accepted")
	}
	if _, err := RegisterMetrics(mp.Meter(ScopeName), nil, a, nil); err == nil {
		t.Error("a nil collection accepted")
	}
}

// TestTrace: a traced call makes one span, named for it, with the
// collection's attributes, the error of a failed call as its status, and a
// read that finds nothing as an answer (R17).
func TestTrace(t *testing.T) { // R17
	c, err := ttldb.NewCollection("c", "/pk", &ttldb.Options{ManualSweep: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(bg)
	tc, err := Trace(c, tp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tc.Create(bg, []byte(`{"id":"a","pk":"p"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := tc.Create(bg, []byte(`{"id":"a","pk":"p"}`)); !errors.Is(err, ttldb.ErrConflict) {
		t.Fatalf("a second create: %v", err)
	}
	if _, err := tc.Get(bg, ttldb.StringKey("p"), "none"); !errors.Is(err, ttldb.ErrNotFound) {
		t.Fatalf("Get of none: %v", err)
	}
	if n, err := tc.Count(bg, ttldb.Query{}); err != nil || n != 1 {
		t.Fatalf("Count: %d, %v", n, err)
	}
	got := spans.GetSpans()
	if len(got) != 4 {
		t.Fatalf("%d spans, want 4", len(got))
	}
	type want struct {
		name  string
		code  codes.Code
		found bool
	}
	for i, w := range []want{{"ttldb.Create", codes.Unset, true}, {"ttldb.Create", codes.Error, true}, {"ttldb.Get", codes.Unset, false}, {"ttldb.Count", codes.Unset, true}} {
		s := got[i]
		if s.Name != w.name || s.Status.Code != w.code {
			t.Errorf("span %d: %s %v, want %s %v", i, s.Name, s.Status.Code, w.name, w.code)
		}
		attrs := attribute.NewSet(s.Attributes...)
		if v, _ := attrs.Value(AttrCollection); v.AsString() != "c" {
			t.Errorf("span %d: collection %q", i, v.AsString())
		}
		if v, _ := attrs.Value("db.operation.name"); "ttldb."+v.AsString() != w.name {
			t.Errorf("span %d: operation %q", i, v.AsString())
		}
		if v, ok := attrs.Value("ttldb.found"); ok == w.found || ok && v.AsBool() {
			t.Errorf("span %d: ttldb.found %v, %v", i, v, ok)
		}
	}
	if _, err := Trace(nil, tp); err == nil {
		t.Error("a nil collection accepted")
	}
	if _, err := Trace(c, nil); err == nil {
		t.Error("a nil provider accepted")
	}
}
