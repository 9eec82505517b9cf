package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// failingBatches is an engine whose batches fail as a server's commit that
// lost its answer does (an error that is no refusal of a step), and whose
// writes alone succeed: only the methods load calls are implemented.
type failingBatches struct {
	engine.Engine // nil: any other call panics
	batchErr      error
	writes        []string // the keys written alone
}

func (f *failingBatches) Settings() engine.Settings {
	return engine.Settings{Name: "c", PartitionKeyPath: "/t", ID: 1}
}

func (f *failingBatches) Batch(context.Context, []engine.Step) ([]*engine.Doc, error) {
	return nil, f.batchErr
}

func (f *failingBatches) Write(_ context.Context, key []byte, w engine.Write) (*engine.Doc, error) {
	f.writes = append(f.writes, string(key))
	return w.Doc, nil
}

func (f *failingBatches) Close() error { return nil }

// R17, R14, R16: a batch that fails for another reason than a refusal of
// one of its documents (a commit whose outcome is unknown, an I/O error)
// is not written again line by line, which could write twice what was
// committed, or go on after a failing disk: load stops with an error
// naming the batch's first and last lines and what happened, the
// documents stored before it counted.
func TestLoadStopsOnABatchThatFailsOtherwise(t *testing.T) {
	lost := fmt.Errorf("postgres: the connection was lost during COMMIT: the commit may or may not have happened: %w", io.ErrUnexpectedEOF)
	f := &failingBatches{batchErr: lost}
	c, err := ttldb.FromEngine(f)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	in := `{"id":"a","t":"x"}
{"id":"b","t":"y"}

{"id":"c","t":"y"}
{"id":"d","t":"y"}
`
	ctx := context.Background()
	b := newBatcher(ctx, c, false, newProgress(io.Discard, false, "loaded"))
	err = load(ctx, strings.NewReader(in), b)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("load: %v; want the batch's error", err)
	}
	for _, s := range []string{"stdin lines 2 to 5", "may or may not have happened"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("load: %v; want it to say %q", err, s)
		}
	}
	if len(f.writes) != 1 || b.n != 1 {
		t.Errorf("written alone: %q, %d counted; want only line 1's document, which is alone in its partition", f.writes, b.n)
	}
}

// R17, R10, R14: a batch refused for its partition key, which the API
// checks before any document, is written again line by line, so that the
// error names the first line at fault, as writing each line alone would.
func TestLoadBatchOfABadPartitionKey(t *testing.T) {
	into := t.TempDir() + "/into"
	long := strings.Repeat("k", ttldb.MaxPartitionKeyLength+1)
	in := `{"id":"a","t":"x"}` + "\n" +
		`{"id":"b","t":"` + long + `"}` + "\n" +
		`{"id":"c","t":"` + long + `"}` + "\n"
	ttl(t, in, "load", "--collection", "c", "--partition-key", "/t", into).
		want(t, 1, nil, []string{"stdin line 2:", "partition key", "(1 documents loaded before it)"})
}

// R17, R10: the cap on a line's length leaves room for a document of the
// largest size with the system properties a dump or Cosmos DB's export
// writes: such a line loads, and one byte more of document is refused by
// the engine, for its size, by its line.
func TestLoadTheLargestDocument(t *testing.T) {
	into := t.TempDir() + "/into"
	doc := func(size int) string {
		head := `{"id":"m","t":"x","s":"`
		return head + strings.Repeat("x", size-len(head)-2) + `"}`
	}
	sys := `,"_rid":"Sl8fALN4sw4BAAAAAAAAAA==","_self":"dbs/Sl8fAA==/colls/Sl8fALN4sw4=/docs/Sl8fALN4sw4BAAAAAAAAAA==/","_etag":"\"0000d986-0000-0000-0000-655a8e2a0000\"","_attachments":"attachments/","_ts":1700433450}`
	line := strings.TrimSuffix(doc(ttldb.MaxDocumentSize), "}") + sys + "\n"
	ttl(t, line, "load", "--collection", "c", "--partition-key", "/t", into).want(t, 0, nil, []string{"loaded 1 documents"})
	line = strings.TrimSuffix(doc(ttldb.MaxDocumentSize+1), "}") + sys + "\n"
	ttl(t, line, "load", into).want(t, 1, nil, []string{"stdin line 1:", "too large"})
}

// R17: a UTF-8 byte order mark at the start of the input, which Windows
// tools write, is skipped, not refused as line 1's bad JSON; one
// elsewhere is the line's, which the engine refuses.
func TestLoadSkipsAByteOrderMark(t *testing.T) {
	into := t.TempDir() + "/into"
	in := "\ufeff" + `{"id":"a","t":"x"}` + "\n" + `{"id":"b","t":"x"}` + "\n"
	ttl(t, in, "load", "--collection", "c", "--partition-key", "/t", into).want(t, 0, nil, []string{"loaded 2 documents"})
	ttl(t, "", "get", into, "x", "a", "b").want(t, 0, []string{`"id":"a"`, `"id":"b"`}, nil)
	in = `{"id":"c","t":"x"}` + "\n" + "\ufeff" + `{"id":"d","t":"x"}` + "\n"
	ttl(t, in, "load", into).want(t, 1, nil, []string{"stdin line 2:", "(1 documents loaded before it)"})
}
