package ttldb

// Edge cases of R13 (queries, secondary indexes) and where it meets R4
// (expiry) and R12 (durability), from a review: the first five showed a
// defect each, since fixed; the others record what was checked and holds.

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/local"
	"github.com/ttldb/ttldb/internal/ref"
)

// edgeCollection returns a collection partitioned by /pk (TTL on, no
// default) holding docs, with indexes on paths.
func edgeCollection(t testing.TB, docs []string, paths ...string) (*Collection, *fakeClock) {
	t.Helper()
	c, clk := newTestCollection(t, "/pk", TTLNoDefault())
	for _, d := range docs {
		mustCreate(t, c, d)
	}
	for _, p := range paths {
		require.NoError(t, c.CreateIndex(context.Background(), p))
	}
	return c, clk
}

// ---------------------------------------------------------------------------
// Defects the review found, fixed

// R12, R13: an open refused because Options.Indexes asks for an index on a
// collection whose indexing mode is none changes nothing. (It recorded the
// index in the directory's log before it checked the mode, and the
// directory could never be opened again.)
func TestRefusedIndexesChangeNoDirectory(t *testing.T) {
	t.Run("new directory", func(t *testing.T) {
		dir := t.TempDir()
		_, err := NewCollection("d", "/pk", &Options{Dir: dir, ManualSweep: true, Indexing: IndexingNone, Indexes: []string{"/a"}})
		require.ErrorIs(t, err, ErrInvalidOption)
		c, err := NewCollection("d", "/pk", &Options{Dir: dir, ManualSweep: true})
		require.NoError(t, err, "the refused open left the directory unopenable")
		require.Empty(t, c.Indexes())
		require.NoError(t, c.Close())
	})
	t.Run("existing directory with its documents", func(t *testing.T) {
		dir := t.TempDir()
		c, err := NewCollection("d", "/pk", &Options{Dir: dir, ManualSweep: true})
		require.NoError(t, err)
		mustCreate(t, c, `{"id":"x","pk":"p"}`)
		require.NoError(t, c.CreateIndex(context.Background(), "/a"))
		require.NoError(t, c.Close())
		// Indexing none, which keeps no index, where the directory has one
		// (the options are the collection wanted: R12).
		_, err = NewCollection("d", "/pk", &Options{Dir: dir, ManualSweep: true, Indexing: IndexingNone})
		require.ErrorIs(t, err, ErrInvalidOption)
		c, err = NewCollection("d", "/pk", &Options{Dir: dir, ManualSweep: true})
		require.NoError(t, err, "the refused open left the directory, and document x, unopenable")
		_, err = c.Get(bg, StringKey("p"), "x")
		require.NoError(t, err)
		require.Equal(t, []string{"/a"}, c.Indexes())
		require.Empty(t, c.Recovery().Changed)
		require.NoError(t, c.Close())
	})
}

// R13: DropIndex of an index being built frees its path at once: a
// CreateIndex of the same path, or SetIndexingMode(none), succeeds before
// the abandoned build has noticed. (Both failed until it had.)
func TestDropIndexDuringBuildFreesThePath(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLOff())
	for i := range 2 * local.BuildEvery {
		mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p","v":%d}`, i, i%5))
	}
	var dropErr, createErr, modeErr error
	var listed []string
	done := false
	local.BuildHook = func(int) {
		if done {
			return
		}
		done = true
		dropErr = c.DropIndex(bg, "/v")
		listed = c.Indexes()
		createErr = c.CreateIndex(context.Background(), "/v")
		if createErr == nil {
			require.NoError(t, c.DropIndex(bg, "/v"))
		}
		modeErr = c.SetIndexingMode(bg, IndexingNone)
	}
	t.Cleanup(func() { local.BuildHook = nil })
	err := c.CreateIndex(context.Background(), "/v")
	require.ErrorIs(t, err, ErrInvalidOption) // dropped while it was built: as documented
	require.NoError(t, dropErr)
	require.Empty(t, listed)
	require.NoError(t, createErr, "CreateIndex after a DropIndex that succeeded")
	require.NoError(t, modeErr, "SetIndexingMode(none) with no index left")
}

// R13: an operator after COUNT(...) in the SELECT clause applies to the
// aggregate's value (it was once refused as not supported, and before that
// reported as a syntax error, "expected FROM, found "+""); a path outside
// the aggregate, without GROUP BY, is refused as the service refuses it.
func TestArithmeticAfterCount(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	seedCollection(t, c, "docs", `[{"id":"1","pk":"a","a":1},{"id":"2","pk":"a","a":2},{"id":"3","pk":"b"}]`)
	for text, want := range map[string]string{
		`SELECT VALUE COUNT(1) + 1 FROM c`: `4`,
		`SELECT COUNT(1) * 2 AS n FROM c`:  `{"n":6}`,
		`SELECT COUNT(c.a) - 1 FROM c`:     `{"$1":1}`,
		`SELECT VALUE COUNT(1) * 2`:        `2`, // no FROM: one row, no document
	} {
		var got []string
		for res, err := range c.QueryAll(bg, SQL{Text: text}) {
			require.NoError(t, err, text)
			got = append(got, string(res))
		}
		require.Equal(t, []string{want}, got, text)
	}
	_, err := Prepare(`SELECT c.id, COUNT(1) AS n FROM c`)
	var qe *QueryError
	require.ErrorAs(t, err, &qe)
	require.ErrorIs(t, err, ErrInvalidQuery)
	require.False(t, qe.Unsupported, "%v", err)
	require.Contains(t, err.Error(), "outside an aggregate")
}

// ---------------------------------------------------------------------------
// What holds

// R13: an equality that matches more than the 1024 documents it would read
// gives way to the index on the ORDER BY path. (That the rows are those of
// a scan, whole and in pages, is the conformance suite's,
// R13/EdgeOrderedIndexPastPointCap.)
func TestQueryEdgeOrderedIndexPastPointCap(t *testing.T) {
	docs := ref.PointCapDocs()
	indexed, _ := edgeCollection(t, docs, "/st", "/v")
	for _, text := range []string{
		`SELECT VALUE c.id FROM c WHERE c.st = "open" ORDER BY c.v DESC`,
		`SELECT TOP 50 c.id, c.v FROM c WHERE c.st = "open" ORDER BY c.v`,
		`SELECT VALUE c.id FROM c WHERE c.st = "open" AND c.v != 3 ORDER BY c.v DESC OFFSET 10 LIMIT 500`,
	} {
		plan, err := indexed.Explain(bg, SQL{Text: text})
		require.NoError(t, err)
		require.True(t, plan.Ordered, "%s: %+v", text, plan)
	}
}

type edgeClock struct{ s atomic.Int64 }

func (k *edgeClock) Now() time.Time { return time.Unix(k.s.Load(), 0) }

// R13 (run with -race): CreateIndex and DropIndex, in a loop and against
// each other, while writers, deleters, the sweeper and queries go on; at
// the end the index holds one item per stored document.
func TestQueryEdgeIndexBuildsUnderLoad(t *testing.T) {
	clk := &edgeClock{}
	clk.s.Store(1_000_000)
	c, err := NewCollection("load", "/pk", &Options{DefaultTTL: TTLNoDefault(), Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	for i := range 3000 {
		_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(i), "pk": fmt.Sprint(i % 3), "v": i % 11, "ttl": 1 + i%4})
		require.NoError(t, err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	worker := func(seed uint64, f func(r *rand.Rand) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, seed))
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := f(r); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	worker(1, func(r *rand.Rand) error {
		i := r.IntN(4000)
		_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(i), "pk": fmt.Sprint(i % 3), "v": r.IntN(11), "ttl": 1 + r.IntN(4)})
		return err
	})
	worker(2, func(r *rand.Rand) error {
		i := r.IntN(4000)
		if err := c.Delete(bg, StringKey(fmt.Sprint(i%3)), fmt.Sprint(i)); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	worker(3, func(r *rand.Rand) error {
		clk.s.Add(int64(r.IntN(2)))
		_, err := c.Sweep(bg)
		return err
	})
	worker(4, func(r *rand.Rand) error {
		for _, err := range c.QueryAll(bg, SQL{Text: `SELECT VALUE c.v FROM c WHERE c.v >= 3 ORDER BY c.v DESC`}) {
			if err != nil {
				return err
			}
		}
		q := SQL{Text: `SELECT * FROM c WHERE c.v = 4`, MaxItems: 7}
		page, err := c.Query(bg, q)
		if err == nil && page.Continuation != "" {
			q.Continuation = page.Continuation
			_, err = c.Query(bg, q)
		}
		return err
	})
	for round := range 30 {
		var dwg sync.WaitGroup
		if round%3 == 0 {
			dwg.Add(1)
			go func() { defer dwg.Done(); _ = c.DropIndex(bg, "/v") }()
		}
		if err := c.CreateIndex(context.Background(), "/v"); err != nil {
			require.ErrorIs(t, err, ErrInvalidOption, "round %d", round)
		}
		dwg.Wait()
		_ = c.DropIndex(bg, "/v")
	}
	require.NoError(t, c.CreateIndex(context.Background(), "/v"))
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	checkIndexAgrees(t, c)
}

// R13, R15 (run with -race): Close while a Cursor, QueryAll, Query, a
// write and CreateIndex run: each ends with nil or ErrClosed, nothing
// panics, and the cursor closes after.
func TestQueryEdgeCloseDuringQueries(t *testing.T) {
	for range 10 {
		c, err := NewCollection("close", "/pk", &Options{DefaultTTL: TTLNoDefault(), ManualSweep: true, Indexes: []string{"/v"}})
		require.NoError(t, err)
		for i := range 2000 {
			_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(i), "pk": fmt.Sprint(i % 3), "v": i % 11})
			require.NoError(t, err)
		}
		cur, err := c.OpenQuery(bg, SQL{Text: `SELECT * FROM c ORDER BY c.v DESC`})
		require.NoError(t, err)
		errs := make(chan error, 1000)
		check := func(err error) {
			if err != nil && !errors.Is(err, ErrClosed) {
				errs <- err
			}
		}
		var wg sync.WaitGroup
		run := func(f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() }
		run(func() {
			for range 50 {
				_, err := cur.Next(bg, 10)
				if check(err); err != nil {
					return
				}
			}
		})
		run(func() {
			for _, err := range c.QueryAll(bg, SQL{Text: `SELECT * FROM c WHERE c.v > 3`}) {
				check(err)
			}
		})
		run(func() { check(c.CreateIndex(context.Background(), "/w")) })
		run(func() {
			for range 20 {
				_, err := c.Query(bg, SQL{Text: `SELECT * FROM c ORDER BY c.v`, MaxItems: 5})
				check(err)
			}
		})
		run(func() {
			for i := range 200 {
				_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(i), "pk": fmt.Sprint(i % 3), "v": i % 7})
				check(err)
			}
		})
		require.NoError(t, c.Close())
		wg.Wait()
		require.NoError(t, cur.Close())
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
	}
}

// R13: a continuation token with any one byte changed, cut short or used
// for another query, partition or collection is refused with
// ErrInvalidContinuation, and never panics.
func TestQueryEdgeTokenTampering(t *testing.T) {
	docs := make([]string, 20)
	for i := range docs {
		docs[i] = fmt.Sprintf(`{"id":"d%02d","pk":"p%d","v":%d}`, i, i%2, i%5)
	}
	c, _ := edgeCollection(t, docs, "/v")
	other, _ := edgeCollection(t, docs, "/v")
	q := SQL{Text: `SELECT VALUE c.id FROM c WHERE c.v >= 1 ORDER BY c.v DESC`, MaxItems: 3}
	page, err := c.Query(bg, q)
	require.NoError(t, err)
	tok := page.Continuation
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	require.NoError(t, err)
	for i := range raw {
		for _, bit := range []byte{0x01, 0x80} {
			b := append([]byte(nil), raw...)
			b[i] ^= bit
			q.Continuation = base64.RawURLEncoding.EncodeToString(b)
			_, err := c.Query(bg, q)
			require.ErrorIs(t, err, ErrInvalidContinuation, "byte %d", i)
		}
		if i > 0 { // an empty token is no token: from the start
			q.Continuation = base64.RawURLEncoding.EncodeToString(raw[:i])
			_, err := c.Query(bg, q)
			require.ErrorIs(t, err, ErrInvalidContinuation, "cut at %d", i)
		}
	}
	pk := StringKey("p1")
	for _, bad := range []func(*SQL){
		func(s *SQL) { s.Text += " " },
		func(s *SQL) { s.Partition = &pk },
		func(s *SQL) {
			s.Text = `SELECT VALUE c.id FROM c WHERE c.v >= @n ORDER BY c.v DESC`
			s.Params = map[string]any{"n": 1}
		},
	} {
		s := SQL{Text: q.Text, MaxItems: 3, Continuation: tok}
		bad(&s)
		_, err := c.Query(bg, s)
		require.ErrorIs(t, err, ErrInvalidContinuation)
	}
	_, err = other.Query(bg, SQL{Text: q.Text, Continuation: tok})
	require.ErrorIs(t, err, ErrInvalidContinuation)
}

// R13 (errors): parse errors give the position and what was expected;
// the constructs the spec refuses are refused as not supported.
func TestQueryEdgeParseErrors(t *testing.T) {
	for _, tc := range []struct {
		text        string
		col         int
		unsupported bool
	}{
		{`SELECT * FROM c WHERE`, 22, false},
		{`SELECT * FROM c WHERE c.a = 'abc`, 29, false},
		{"SELECT * FROM c\nWHERE c.a = ?", 13, false},
		{`SELECT * FROM c OFFSET 1`, 25, false},
		{`SELECT * FROM c WHERE c.a = 1 /* comment */`, 31, false}, // the service refuses it (SC1001); -- is a comment
		{`SELECT * FROM c JOIN t IN c.tags`, 27, false},            // SELECT * with two aliases, which the service refuses too
		{`SELECT c.id FROM (SELECT VALUE 1)`, 18, true},
		{`SELECT c.a FROM c GROUP BY c.a ORDER BY c.a`, 32, true},
		{`SELECT c.a FROM c JOIN t IN c.tags ORDER BY t.a`, 45, true},
		{`SELECT c.a FROM c ORDER BY LOWER(c.a)`, 28, false},
		{`SELECT * FROM c WHERE udf.f(c.a)`, 23, true},
		{`SELECT * FROM c WHERE c.a LIKE 'x%' ESCAPE 'ab'`, 44, false},
		{`SELECT * FROM c WHERE c.a IN (SELECT VALUE 1 FROM d)`, 31, true},
		{`SELECT * FROM c ORDER BY c[c.k]`, 26, true}, // c[c.k] is taken elsewhere
		{`SELECT * FROM c WHERE c.a = 'x' || 'y'`, 33, false},
		{`SELECT * FROM c WHERE EXISTS(SELECT VALUE 1 FROM d)`, 50, true},        // a subquery reads no container
		{`SELECT * FROM c WHERE EXISTS(SELECT VALUE 1 ORDER BY c.a)`, 45, false}, // the service refuses it (SC2202)
		{`SELECT * FROM c WHERE c.a ? 1`, 30, false},
		{`SELECT VALUE {a: 1, a: 2}`, 21, false},
		{`SELECT * FROM c WHERE NOT c.a = 1`, 23, false},
		{`SELECT * FROM c WHERE c.a = 1 = true`, 31, false},
		{`SELECT TOP 1 * FROM c OFFSET 0 LIMIT 1`, 23, false},
	} {
		_, err := Prepare(tc.text)
		var qe *QueryError
		require.ErrorAs(t, err, &qe, tc.text)
		require.ErrorIs(t, err, ErrInvalidQuery)
		require.Equal(t, tc.col, qe.Column, "%s: %v", tc.text, err)
		require.Equal(t, tc.unsupported, qe.Unsupported, "%s: %v", tc.text, err)
	}
}
