package ttldb

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeClock is a settable clock for tests that need no goroutines.
type fakeClock struct{ t time.Time }

func (f *fakeClock) Now() time.Time { return f.t }

func (f *fakeClock) Advance(d time.Duration) { f.t = f.t.Add(d) }

// newTestCollection returns a collection on a fake clock at Unix second
// 1,000,000, without a background sweeper, closed when the test ends.
func newTestCollection(t testing.TB, path string, def DefaultTTL) (*Collection, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("test", path, &Options{DefaultTTL: def, Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c, clk
}

func mustCreate(t testing.TB, c *Collection, doc string) Document {
	t.Helper()
	d, err := c.Create(bg, []byte(doc))
	require.NoError(t, err, doc)
	return d
}

func mustGet(t *testing.T, c *Collection, pk PartitionKey, id string) Document {
	t.Helper()
	d, err := c.Get(bg, pk, id)
	require.NoError(t, err, "Get(%v, %q)", pk, id)
	return d
}

// state is everything a caller can observe of a collection, to check that a
// rejected call changed nothing.
func state(t *testing.T, c *Collection) string {
	t.Helper()
	var b strings.Builder
	for d, err := range c.All(bg, Query{}) {
		require.NoError(t, err)
		b.WriteString(d.JSON() + "\n")
	}
	st, err := c.Stats(bg)
	require.NoError(t, err)
	fmt.Fprintf(&b, "%+v %v %v %v", st, c.DefaultTTL(), c.IndexingMode(), c.Indexes())
	return b.String()
}

// TestBadInput: every rejected input returns an error matching one
// sentinel, whose text names the value, and changes nothing.
func TestBadInput(t *testing.T) { // R1, R2, R8, R10
	deep := strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth) // 129 levels with the document
	big := `{"id":"big","pk":"p","s":"` + strings.Repeat("x", MaxDocumentSize) + `"}`
	long := strings.Repeat("i", MaxIDLength+1)
	longPK := strings.Repeat("k", MaxPartitionKeyLength+1)

	type row struct {
		name string
		call func(c *Collection) error
		want error
		text string // what the message must name
	}
	create := func(doc string) func(c *Collection) error {
		return func(c *Collection) error { _, err := c.Create(bg, []byte(doc)); return err }
	}
	upsert := func(doc string) func(c *Collection) error {
		return func(c *Collection) error { _, err := c.Upsert(bg, []byte(doc)); return err }
	}
	rows := []row{
		// R1
		{"DefaultTTL 0", func(c *Collection) error { return c.SetDefaultTTL(bg, TTLSeconds(0)) }, ErrInvalidTTL, "DefaultTTL 0"},
		{"DefaultTTL -2", func(c *Collection) error { return c.SetDefaultTTL(bg, TTLSeconds(-2)) }, ErrInvalidTTL, "-2"},
		{"DefaultTTL over max", func(c *Collection) error { return c.SetDefaultTTL(bg, TTLSeconds(MaxTTL+1)) }, ErrInvalidTTL, "2147483648"},
		{"DefaultTTL min int", func(c *Collection) error { return c.SetDefaultTTL(bg, TTLSeconds(math.MinInt64)) }, ErrInvalidTTL, "-9223372036854775808"},
		// R2, on every write
		{"ttl 0", create(`{"id":"n","pk":"p","ttl":0}`), ErrInvalidTTL, "ttl 0"},
		{"ttl -2", upsert(`{"id":"a","pk":"p","ttl":-2}`), ErrInvalidTTL, "ttl -2"},
		{"ttl over max", create(`{"id":"n","pk":"p","ttl":2147483648}`), ErrInvalidTTL, "2147483648"},
		{"ttl fraction", upsert(`{"id":"a","pk":"p","ttl":10.5}`), ErrInvalidTTL, "10.5"},
		{"ttl tiny fraction", create(`{"id":"n","pk":"p","ttl":2147483646.0000000001}`), ErrInvalidTTL, "2147483646.0000000001"},
		{"ttl string", create(`{"id":"n","pk":"p","ttl":"10"}`), ErrInvalidTTL, `"10"`},
		{"ttl bool", create(`{"id":"n","pk":"p","ttl":true}`), ErrInvalidTTL, "true"},
		{"ttl object", create(`{"id":"n","pk":"p","ttl":{}}`), ErrInvalidTTL, "{}"},
		{"ttl array", create(`{"id":"n","pk":"p","ttl":[10]}`), ErrInvalidTTL, "[10]"},
		{"ttl on replace", func(c *Collection) error { _, err := c.Replace(bg, []byte(`{"id":"a","pk":"p","ttl":0}`)); return err }, ErrInvalidTTL, "ttl 0"},
		// R10: ids
		{"id missing", create(`{"pk":"p"}`), ErrInvalidID, "no id"},
		{"id empty", create(`{"id":"","pk":"p"}`), ErrInvalidID, "empty"},
		{"id number", create(`{"id":42,"pk":"p"}`), ErrInvalidID, "42"},
		{"id null", create(`{"id":null,"pk":"p"}`), ErrInvalidID, "null"},
		{"id too long", create(`{"id":"` + long + `","pk":"p"}`), ErrInvalidID, "1024 bytes"},
		{"id slash", create(`{"id":"a/b","pk":"p"}`), ErrInvalidID, `"a/b"`},
		{"id backslash", create(`{"id":"a\\b","pk":"p"}`), ErrInvalidID, `a\\b`},
		{"id question", create(`{"id":"a?b","pk":"p"}`), ErrInvalidID, `"a?b"`},
		{"id hash", create(`{"id":"a#b","pk":"p"}`), ErrInvalidID, `"a#b"`},
		{"id control", create(`{"id":"a\u0001b","pk":"p"}`), ErrInvalidID, "control"},
		{"id C1 control", create(`{"id":"a\u0085b","pk":"p"}`), ErrInvalidID, "control"},
		{"get id slash", func(c *Collection) error { _, err := c.Get(bg, StringKey("p"), "a/b"); return err }, ErrInvalidID, `"a/b"`},
		{"delete id empty", func(c *Collection) error { return c.Delete(bg, StringKey("p"), "") }, ErrInvalidID, "empty"},
		{"touch id invalid UTF-8", func(c *Collection) error { _, err := c.Touch(bg, StringKey("p"), "a\xff"); return err }, ErrInvalidID, "UTF-8"},
		// R10: partition keys
		{"pk object", create(`{"id":"n","pk":{"a":1}}`), ErrInvalidPartitionKey, `{"a":1}`},
		{"pk array", create(`{"id":"n","pk":[1]}`), ErrInvalidPartitionKey, "[1]"},
		{"pk too long", create(`{"id":"n","pk":"` + longPK + `"}`), ErrInvalidPartitionKey, "2049 bytes"},
		{"pk number out of range", create(`{"id":"n","pk":1e400}`), ErrInvalidPartitionKey, "1e400"},
		{"get pk too long", func(c *Collection) error { _, err := c.Get(bg, StringKey(longPK), "a"); return err }, ErrInvalidPartitionKey, "2049 bytes"},
		{"get pk NaN", func(c *Collection) error { _, err := c.Get(bg, NumberKey(math.NaN()), "a"); return err }, ErrInvalidPartitionKey, "NaN"},
		{"get pk invalid UTF-8", func(c *Collection) error { _, err := c.Get(bg, StringKey("\xff"), "a"); return err }, ErrInvalidPartitionKey, "UTF-8"},
		{"pk of Go type", func(c *Collection) error { _, err := PartitionKeyOf([]int{1}); return err }, ErrInvalidPartitionKey, "[]int"},
		{"list pk too long", func(c *Collection) error {
			k := StringKey(longPK)
			_, err := c.List(bg, Query{Partition: &k})
			return err
		}, ErrInvalidPartitionKey, "2049 bytes"},
		// R10: documents
		{"array", create(`[{"id":"n"}]`), ErrInvalidDocument, "array"},
		{"string", create(`"x"`), ErrInvalidDocument, "string"},
		{"number", create(`12`), ErrInvalidDocument, "number"},
		{"null", create(`null`), ErrInvalidDocument, "null"},
		{"empty", create(``), ErrInvalidDocument, "empty"},
		{"trailing comma", create(`{"id":"n","pk":"p",}`), ErrInvalidDocument, "byte 19"},
		{"unterminated", create(`{"id":"n","pk":"p"`), ErrInvalidDocument, "end of input"},
		{"after the object", create(`{"id":"n","pk":"p"} x`), ErrInvalidDocument, `"x"`},
		{"single quotes", create(`{'id':'n'}`), ErrInvalidDocument, "byte 1"},
		{"bad escape", create(`{"id":"n","s":"\x"}`), ErrInvalidDocument, "escape"},
		{"raw control character", create("{\"id\":\"n\",\"s\":\"a\nb\"}"), ErrInvalidDocument, "control character"},
		{"invalid UTF-8", create("{\"id\":\"n\",\"s\":\"\xff\"}"), ErrInvalidDocument, "UTF-8"},
		{"bad number", create(`{"id":"n","v":01}`), ErrInvalidDocument, "byte 15"},
		{"bad literal", create(`{"id":"n","v":tru}`), ErrInvalidDocument, `"true"`},
		{"duplicate id", create(`{"id":"n","id":"m"}`), ErrInvalidDocument, `"id" appears twice`},
		{"duplicate ttl", create(`{"id":"n","ttl":1,"ttl":2}`), ErrInvalidDocument, `"ttl" appears twice`},
		{"too deep", create(`{"id":"n","d":` + deep + `}`), ErrInvalidDocument, "128 levels"},
		{"too large", create(big), ErrTooLarge, "2097152"},
		{"Go string", func(c *Collection) error { _, err := c.Create(bg, `{"id":"n"}`); return err }, ErrInvalidDocument, "[]byte"},
		{"nil", func(c *Collection) error { _, err := c.Create(bg, nil); return err }, ErrInvalidDocument, "nil"},
		{"channel", func(c *Collection) error { _, err := c.Create(bg, make(chan int)); return err }, ErrInvalidDocument, "chan int"},
		{"nil map", func(c *Collection) error { _, err := c.Upsert(bg, map[string]any(nil)); return err }, ErrInvalidDocument, "null"},
		// R10: etags and keys
		{"if-match", func(c *Collection) error {
			_, err := c.Replace(bg, []byte(`{"id":"a","pk":"p","v":9}`), IfMatch("old"))
			return err
		}, ErrPreconditionFailed, `"old"`},
		{"create existing", create(`{"id":"a","pk":"p","v":9}`), ErrConflict, `"a"`},
		// R8 and other settings
		{"indexing none with TTL", func(c *Collection) error { return c.SetIndexingMode(bg, IndexingNone) }, ErrInvalidOption, "R8"},
		{"unknown indexing mode", func(c *Collection) error { return c.SetIndexingMode(bg, IndexingMode(9)) }, ErrInvalidOption, "9"},
		{"negative limit", func(c *Collection) error { _, err := c.List(bg, Query{Limit: -1}); return err }, ErrInvalidOption, "-1"},
		{"garbage token", func(c *Collection) error { _, err := c.List(bg, Query{Continuation: "%%%"}); return err }, ErrInvalidContinuation, "%%%"},
		{"damaged token", func(c *Collection) error { _, err := c.List(bg, Query{Continuation: "AWFiYw"}); return err }, ErrInvalidContinuation, "AWFiYw"},
		{"token of no kind", func(c *Collection) error {
			_, err := c.List(bg, Query{Continuation: tokenFor(c, nil, "\x00")})
			return err
		}, ErrInvalidContinuation, "no document key"},
		{"token of unknown kind", func(c *Collection) error {
			_, err := c.List(bg, Query{Continuation: tokenFor(c, nil, "\xffz")})
			return err
		}, ErrInvalidContinuation, "no document key"},
		{"token without id", func(c *Collection) error {
			_, err := c.List(bg, Query{Continuation: tokenFor(c, nil, "\x01")})
			return err
		}, ErrInvalidContinuation, "no document key"},
		{"token of a key List cannot issue", func(c *Collection) error {
			_, err := c.List(bg, Query{Continuation: tokenFor(c, nil, string(StringKey(strings.Repeat("k", 70_000)).appendEncoded(nil))+"a")})
			return err
		}, ErrInvalidContinuation, "no document key"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			c, _ := newTestCollection(t, "/pk", TTLSeconds(3600))
			mustCreate(t, c, `{"id":"a","pk":"p","v":1}`)
			before := state(t, c)
			var err error
			require.NotPanics(t, func() { err = r.call(c) })
			require.ErrorIs(t, err, r.want)
			for _, other := range []error{ErrNotFound, ErrConflict, ErrPreconditionFailed, ErrInvalidTTL, ErrInvalidID, ErrInvalidPartitionKey, ErrInvalidDocument, ErrTooLarge, ErrInvalidOption, ErrInvalidContinuation, ErrClosed} {
				if other != r.want {
					require.False(t, errors.Is(err, other), "also matches %v", other)
				}
			}
			require.Contains(t, err.Error(), r.text)
			require.Equal(t, before, state(t, c), "a rejected call changes nothing")
		})
	}
}

func TestIndexingMode(t *testing.T) { // R8
	c, err := NewCollection("kv", "/pk", &Options{Indexing: IndexingNone, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, IndexingNone, c.IndexingMode())
	require.ErrorIs(t, c.SetDefaultTTL(bg, TTLNoDefault()), ErrInvalidOption)
	require.Equal(t, TTLOff(), c.DefaultTTL())
	require.NoError(t, c.SetDefaultTTL(bg, TTLOff()), "off is allowed with mode none")
	require.NoError(t, c.SetIndexingMode(bg, IndexingConsistent))
	require.NoError(t, c.SetDefaultTTL(bg, TTLSeconds(5)))
	require.ErrorIs(t, c.SetIndexingMode(bg, IndexingNone), ErrInvalidOption)
	require.Equal(t, IndexingConsistent, c.IndexingMode())
	require.Equal(t, "none", IndexingNone.String())
	require.Equal(t, "consistent", IndexingConsistent.String())
	require.Equal(t, "kv", c.Name())
	require.Equal(t, "/pk", c.PartitionKeyPath())
}

// TestZeroCollection: a Collection not made by NewCollection reports
// ErrClosed and never panics.
func TestZeroCollection(t *testing.T) {
	var c Collection
	require.NotPanics(t, func() {
		_, err := c.Create(bg, []byte(`{"id":"a"}`))
		require.ErrorIs(t, err, ErrClosed)
		_, err = c.Get(bg, NoPartitionKey(), "a")
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorIs(t, c.Delete(bg, NoPartitionKey(), "a"), ErrClosed)
		_, err = c.List(bg, Query{})
		require.ErrorIs(t, err, ErrClosed)
		_, err = c.Count(bg, Query{})
		require.ErrorIs(t, err, ErrClosed)
		_, err = c.Stats(bg)
		require.ErrorIs(t, err, ErrClosed)
		_, err = c.Sweep(bg)
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorIs(t, c.SetDefaultTTL(bg, TTLOff()), ErrClosed)
		for _, err := range c.All(bg, Query{}) {
			require.ErrorIs(t, err, ErrClosed)
		}
		_, ok := c.ExpiresAt(Document{})
		require.False(t, ok)
		require.NoError(t, c.Close())
		require.NoError(t, c.Close())
	})
}

// TestTTLIsPerDocument: TTL applies to a whole document, never to a part of
// it; a "ttl" below the root is plain data. To expire part of a document,
// keep it in a linked document with its own ttl (R9).
func TestTTLIsPerDocument(t *testing.T) { // R9
	c, clk := newTestCollection(t, "/orderId", TTLNoDefault())
	mustCreate(t, c, `{"id":"order","orderId":"o1","payment":{"ttl":1,"card":"4111"}}`)
	mustCreate(t, c, `{"id":"order-draft","orderId":"o1","notes":[{"ttl":"not a number"}]}`)
	mustCreate(t, c, `{"id":"order-payment","orderId":"o1","card":"4111","ttl":5}`)
	clk.Advance(5 * time.Second)
	for _, id := range []string{"order", "order-draft"} {
		d, err := c.Get(bg, StringKey("o1"), id)
		require.NoError(t, err, "a nested ttl does not expire %s", id)
		_, own := d.TTL()
		require.False(t, own)
	}
	_, err := c.Get(bg, StringKey("o1"), "order-payment")
	require.ErrorIs(t, err, ErrNotFound, "the linked document expires on its own")
}

// raceDetector reports whether the test binary was built with -race.
func raceDetector() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && slices.ContainsFunc(bi.Settings, func(s debug.BuildSetting) bool { return s.Key == "-race" && s.Value == "true" })
}
