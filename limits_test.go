package ttldb

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// TestLimitsExactly: a document exactly at each limit is accepted; one byte
// or one level over is rejected (R10).
func TestLimitsExactly(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	prefix, suffix := `{"id":"big","s":"`, `"}`
	atSize := prefix + strings.Repeat("x", MaxDocumentSize-len(prefix)-len(suffix)) + suffix
	require.Len(t, atSize, MaxDocumentSize)
	_, err := c.Create(bg, []byte(atSize))
	require.NoError(t, err)
	_, err = c.Create(bg, []byte(strings.Replace(atSize, `"big"`, `"big2"`, 1)))
	require.ErrorIs(t, err, ErrTooLarge)

	nest := func(levels int) string { // the document itself is level 1
		return `{"id":"deep` + fmt.Sprint(levels) + `","d":` + strings.Repeat("[", levels-1) + "1" + strings.Repeat("]", levels-1) + "}"
	}
	mustCreate(t, c, nest(MaxDepth))
	_, err = c.Create(bg, []byte(nest(MaxDepth+1)))
	require.ErrorIs(t, err, ErrInvalidDocument)

	id := strings.Repeat("é", MaxIDLength/2) + "x" // 1023 bytes
	require.Len(t, id, MaxIDLength)
	mustCreate(t, c, `{"id":"`+id+`"}`)
	_, err = c.Create(bg, []byte(`{"id":"`+id+`x"}`))
	require.ErrorIs(t, err, ErrInvalidID)

	pk := strings.Repeat("k", MaxPartitionKeyLength)
	mustCreate(t, c, `{"id":"a","pk":"`+pk+`"}`)
	_, err = c.Get(bg, StringKey(pk), "a")
	require.NoError(t, err)
	_, err = c.Create(bg, []byte(`{"id":"a","pk":"`+pk+`k"}`))
	require.ErrorIs(t, err, ErrInvalidPartitionKey)
}

// TestBadKeyThatIsTheID: a partition key equal to the id is checked once,
// and still reported as a bad partition key first (R10).
func TestBadKeyThatIsTheID(t *testing.T) { // R10
	for _, path := range []string{"/pk", "/id"} {
		c, _ := newTestCollection(t, path, TTLOff())
		long := strings.Repeat("a", MaxPartitionKeyLength+1)
		for _, s := range []string{"\xff", long} {
			_, err := c.Get(bg, StringKey(s), s)
			require.ErrorIs(t, err, ErrInvalidPartitionKey, "%s: %.10q", path, s)
		}
		_, err := c.Get(bg, StringKey("a/b"), "a/b") // a valid string key, a bad id
		require.ErrorIs(t, err, ErrInvalidID, path)
		_, err = c.Get(bg, StringKey(strings.Repeat("a", MaxIDLength+1)), strings.Repeat("a", MaxIDLength+1))
		require.ErrorIs(t, err, ErrInvalidID, path)
	}
	require.Equal(t, 32, engine.HeaderSize, "a document's header")
	require.Equal(t, 32, int(unsafe.Sizeof(entry{})), "an entry, with the links of the order of last writes (R11)")
}

// TestLimitsMeasureWhatIsStored: the _ts and _etag members the library drops
// count toward neither the size nor the nesting limit, wherever they stand
// among the members; they must still be JSON (R10).
func TestLimitsMeasureWhatIsStored(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	mib := `"` + strings.Repeat("x", 1<<20) + `"`
	d := mustCreate(t, c, `{"id":"a","_ts":[`+mib+`,`+mib+`,`+mib+`],"v":1}`)
	require.Equal(t, `{"id":"a","v":1}`, d.Body())

	deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	d = mustCreate(t, c, `{"_etag":`+deep+`,"id":"b","_ts":{"x":`+deep+`}}`)
	require.Equal(t, `{"id":"b"}`, d.Body())

	// A document exactly at the size limit, with a dropped member beside it.
	prefix, suffix := `{"id":"c","s":"`, `"}`
	atSize := prefix + strings.Repeat("x", MaxDocumentSize-len(prefix)-len(suffix)) + suffix
	d = mustCreate(t, c, atSize[:len(atSize)-1]+`,"_ts":`+mib+`}`)
	require.Len(t, d.Body(), MaxDocumentSize)

	for _, bad := range []string{
		`{"id":"d","_ts":[1,}`,
		`{"id":"d","_ts":` + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + `}`,
	} {
		_, err := c.Create(bg, []byte(bad))
		require.ErrorIs(t, err, ErrInvalidDocument)
	}
	n, err := c.Count(bg, Query{})
	require.NoError(t, err)
	require.Equal(t, 3, n)
}
