package ttldbotel_test

import (
	"context"
	"fmt"
	"log"
	"sort"

	"github.com/ttldb/ttldb"
	ttldbotel "github.com/ttldb/ttldb/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A collection's metrics read by OpenTelemetry, and its calls traced: a
// manual reader stands for the exporter a service would have (OTLP,
// Prometheus), and an in-memory exporter for its trace exporter.
func Example() {
	ctx := context.Background()
	c, err := ttldb.NewCollection("sessions", "/user", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(3600)})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	// Metrics: instruments that read c.Metrics() at each collection.
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(ctx)
	reg, err := ttldbotel.RegisterMetrics(mp.Meter(ttldbotel.ScopeName), nil, c)
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Unregister()

	// Traces: the same collection, its calls making spans.
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(ctx)
	tc, err := ttldbotel.Trace(c, tp)
	if err != nil {
		log.Fatal(err)
	}

	if _, err := tc.Upsert(ctx, map[string]any{"id": "s1", "user": "ada"}); err != nil {
		log.Fatal(err)
	}
	if _, err := tc.Get(ctx, ttldb.StringKey("ada"), "s1"); err != nil {
		log.Fatal(err)
	}
	_, err = tc.Get(ctx, ttldb.StringKey("ada"), "s2") // a miss
	fmt.Println("s2:", err != nil)

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		log.Fatal(err)
	}
	var lines []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					if p.Value == 0 {
						continue
					}
					attr := ""
					if v, ok := p.Attributes.Value(ttldbotel.AttrReadResult); ok {
						attr = " result=" + v.AsString()
					}
					if v, ok := p.Attributes.Value(ttldbotel.AttrWriteKind); ok {
						attr = " kind=" + v.AsString()
					}
					lines = append(lines, fmt.Sprintf("%s%s = %d", m.Name, attr, p.Value))
				}
			case metricdata.Gauge[int64]:
				if m.Name == "ttldb.documents" {
					lines = append(lines, fmt.Sprintf("%s = %d", m.Name, d.DataPoints[0].Value))
				}
			}
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	for _, s := range spans.GetSpans() {
		fmt.Println("span", s.Name, s.Status.Code)
	}
	// Output:
	// s2: true
	// ttldb.documents = 1
	// ttldb.reads result=hit = 1
	// ttldb.reads result=miss = 1
	// ttldb.writes kind=upsert = 1
	// span ttldb.Upsert Unset
	// span ttldb.Get Unset
	// span ttldb.Get Unset
}
