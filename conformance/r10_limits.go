package conformance

// R10's keys and sizes: partition keys at any path, documents keyed by
// their id, and every limit exactly at and one past its bound. Moved from
// the root package's key_test.go, limits_test.go and partitionkey_test.go;
// the root keeps the tests of the key encoding, of PartitionKeyOf and of
// the engine's own sizes, which run no engine.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb"
)

// R10, R4: a collection partitioned by /id: each document its own
// partition, which only the id's own key finds; writes and Touch keep the
// key; listings go in key order and resume by token; expiry as anywhere.
func checkPartitionedByID(t *testing.T, h Harness) {
	c, clk := ruleOpenTTL(t, h, "/id", ttldb.TTLSeconds(60))
	for _, id := range []string{"b", "a", "é", "a b", "z", "key:0000000042"} {
		d := ruleCreate(t, c, `{"id":"`+id+`","n":1}`)
		require.Equal(t, ttldb.StringKey(id), d.PartitionKey())
		require.Equal(t, id, d.ID())
	}
	_, err := c.Create(bg, []byte(`{"id":"a","n":2}`))
	require.ErrorIs(t, err, ttldb.ErrConflict)
	require.Contains(t, err.Error(), `document "a" in partition "a"`)

	// Only the id's own partition key finds the document.
	for _, pk := range []ttldb.PartitionKey{ttldb.StringKey("a"), ttldb.StringKey("b"), ttldb.StringKey("a\x00"), ttldb.StringKey(""),
		ttldb.NumberKey(1), ttldb.NoPartitionKey(), ttldb.NullKey()} {
		d, err := c.Get(bg, pk, "a")
		if pk == ttldb.StringKey("a") {
			require.NoError(t, err)
			require.Equal(t, `{"id":"a","n":1}`, d.Body())
			continue
		}
		require.ErrorIs(t, err, ttldb.ErrNotFound, "%v", pk)
		require.ErrorIs(t, c.Delete(bg, pk, "a"), ttldb.ErrNotFound, "%v", pk)
		_, err = c.Touch(bg, pk, "a")
		require.ErrorIs(t, err, ttldb.ErrNotFound, "%v", pk)
	}

	// Writes and Touch keep the key.
	d, err := c.Upsert(bg, []byte(`{"n":3,"id":"a"}`))
	require.NoError(t, err)
	_, err = c.Replace(bg, []byte(`{"id":"a","n":4}`), ttldb.IfMatch("0000000000000000"))
	require.ErrorIs(t, err, ttldb.ErrPreconditionFailed)
	require.Contains(t, err.Error(), `document "a" in partition "a"`)
	clk.Advance(30 * time.Second)
	d2, err := c.Touch(bg, ttldb.StringKey("a"), "a")
	require.NoError(t, err)
	require.Equal(t, d.Body(), d2.Body())
	require.Equal(t, "a", d2.ID())
	require.Equal(t, ttldb.StringKey("a"), d2.PartitionKey())
	require.NoError(t, c.Delete(bg, ttldb.StringKey("b"), "b"))

	// Listing: in key order, one partition per id, pages resume by token.
	var got []string
	q := ttldb.Query{Limit: 1}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 100)
		page, err := c.List(bg, q)
		require.NoError(t, err)
		for _, d := range page.Documents {
			got = append(got, d.ID())
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	require.Equal(t, []string{"a", "a b", "key:0000000042", "z", "é"}, got)
	pk := ttldb.StringKey("z")
	page, err := c.List(bg, ttldb.Query{Partition: &pk})
	require.NoError(t, err)
	require.Len(t, page.Documents, 1)
	require.Equal(t, "z", page.Documents[0].ID())

	// Expiry as anywhere else (R4): "a" was touched, the rest were not.
	clk.Advance(30 * time.Second)
	n, err := c.Count(bg, ttldb.Query{})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	swept, err := c.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, 4, swept)
}

// R10: the partition key at a nested path, of every kind: the same id in
// different partitions is a different document; 7 and 7.0 are one
// partition; a missing path is the none partition, whatever stands in its
// place.
func checkPartitionKeys(t *testing.T, h Harness) {
	c, _ := ruleOpenTTL(t, h, "/tenant/id", ttldb.TTLOff())
	docs := map[string]ttldb.PartitionKey{
		`{"id":"x","tenant":{"id":"t1"}}`:       ttldb.StringKey("t1"),
		`{"id":"x","tenant":{"id":"t2"}}`:       ttldb.StringKey("t2"),
		`{"id":"x","tenant":{"id":7}}`:          ttldb.NumberKey(7),
		`{"id":"x","tenant":{"id":true}}`:       ttldb.BoolKey(true),
		`{"id":"x","tenant":{"id":false}}`:      ttldb.BoolKey(false),
		`{"id":"x","tenant":{"id":null}}`:       ttldb.NullKey(),
		`{"id":"x","tenant":{}}`:                ttldb.NoPartitionKey(),
		`{"id":"x","tenant":{"id":"a\u0000b"}}`: ttldb.StringKey("a\x00b"),
		`{"id":"x","tenant":{"\u0069d":"t3"}}`:  ttldb.StringKey("t3"),
	}
	for doc, pk := range docs {
		d := ruleCreate(t, c, doc)
		require.Equal(t, pk, d.PartitionKey(), doc)
		got, err := c.Get(bg, pk, "x")
		require.NoError(t, err, doc)
		require.Equal(t, d.JSON(), got.JSON())
	}
	n, err := c.Count(bg, ttldb.Query{})
	require.NoError(t, err)
	require.Equal(t, len(docs), n, "the same id in different partitions is a different document")
	_, err = c.Create(bg, []byte(`{"id":"x","tenant":{"id":7.0}}`))
	require.ErrorIs(t, err, ttldb.ErrConflict)
	_, err = c.Create(bg, []byte(`{"id":"x","tenant":"flat"}`))
	require.ErrorIs(t, err, ttldb.ErrConflict)
}

// R10: a document exactly at each limit is accepted; one byte or one
// level over is refused.
func checkLimitsExactly(t *testing.T, h Harness) {
	c, _ := ruleOpenTTL(t, h, "/pk", ttldb.TTLOff())
	prefix, suffix := `{"id":"big","s":"`, `"}`
	atSize := prefix + strings.Repeat("x", ttldb.MaxDocumentSize-len(prefix)-len(suffix)) + suffix
	require.Len(t, atSize, ttldb.MaxDocumentSize)
	_, err := c.Create(bg, []byte(atSize))
	require.NoError(t, err)
	_, err = c.Create(bg, []byte(strings.Replace(atSize, `"big"`, `"big2"`, 1)))
	require.ErrorIs(t, err, ttldb.ErrTooLarge)

	nest := func(levels int) string { // the document itself is level 1
		return `{"id":"deep` + fmt.Sprint(levels) + `","d":` + strings.Repeat("[", levels-1) + "1" + strings.Repeat("]", levels-1) + "}"
	}
	ruleCreate(t, c, nest(ttldb.MaxDepth))
	_, err = c.Create(bg, []byte(nest(ttldb.MaxDepth+1)))
	require.ErrorIs(t, err, ttldb.ErrInvalidDocument)

	id := strings.Repeat("é", ttldb.MaxIDLength/2) + "x" // 1023 bytes
	require.Len(t, id, ttldb.MaxIDLength)
	ruleCreate(t, c, `{"id":"`+id+`"}`)
	_, err = c.Create(bg, []byte(`{"id":"`+id+`x"}`))
	require.ErrorIs(t, err, ttldb.ErrInvalidID)

	pk := strings.Repeat("k", ttldb.MaxPartitionKeyLength)
	ruleCreate(t, c, `{"id":"a","pk":"`+pk+`"}`)
	_, err = c.Get(bg, ttldb.StringKey(pk), "a")
	require.NoError(t, err)
	_, err = c.Create(bg, []byte(`{"id":"a","pk":"`+pk+`k"}`))
	require.ErrorIs(t, err, ttldb.ErrInvalidPartitionKey)
}

// R10: a partition key equal to the id is checked once, and still
// reported as a bad partition key first.
func checkBadKeyThatIsTheID(t *testing.T, h Harness) {
	for _, path := range []string{"/pk", "/id"} {
		c, _ := ruleOpenTTL(t, h, path, ttldb.TTLOff())
		long := strings.Repeat("a", ttldb.MaxPartitionKeyLength+1)
		for _, s := range []string{"\xff", long} {
			_, err := c.Get(bg, ttldb.StringKey(s), s)
			require.ErrorIs(t, err, ttldb.ErrInvalidPartitionKey, "%s: %.10q", path, s)
		}
		_, err := c.Get(bg, ttldb.StringKey("a/b"), "a/b") // a valid string key, a bad id
		require.ErrorIs(t, err, ttldb.ErrInvalidID, path)
		_, err = c.Get(bg, ttldb.StringKey(strings.Repeat("a", ttldb.MaxIDLength+1)), strings.Repeat("a", ttldb.MaxIDLength+1))
		require.ErrorIs(t, err, ttldb.ErrInvalidID, path)
	}
}

// R10: the _ts and _etag members the library drops count toward neither
// the size nor the nesting limit, wherever they stand among the members;
// they must still be JSON.
func checkLimitsMeasureWhatIsStored(t *testing.T, h Harness) {
	c, _ := ruleOpenTTL(t, h, "/pk", ttldb.TTLOff())
	mib := `"` + strings.Repeat("x", 1<<20) + `"`
	d := ruleCreate(t, c, `{"id":"a","_ts":[`+mib+`,`+mib+`,`+mib+`],"v":1}`)
	require.Equal(t, `{"id":"a","v":1}`, d.Body())

	deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	d = ruleCreate(t, c, `{"_etag":`+deep+`,"id":"b","_ts":{"x":`+deep+`}}`)
	require.Equal(t, `{"id":"b"}`, d.Body())

	// A document exactly at the size limit, with a dropped member beside it.
	prefix, suffix := `{"id":"c","s":"`, `"}`
	atSize := prefix + strings.Repeat("x", ttldb.MaxDocumentSize-len(prefix)-len(suffix)) + suffix
	d = ruleCreate(t, c, atSize[:len(atSize)-1]+`,"_ts":`+mib+`}`)
	require.Len(t, d.Body(), ttldb.MaxDocumentSize)

	for _, bad := range []string{
		`{"id":"d","_ts":[1,}`,
		`{"id":"d","_ts":` + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + `}`,
	} {
		_, err := c.Create(bg, []byte(bad))
		require.ErrorIs(t, err, ttldb.ErrInvalidDocument)
	}
	n, err := c.Count(bg, ttldb.Query{})
	require.NoError(t, err)
	require.Equal(t, 3, n)
}
