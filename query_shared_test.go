package ttldb

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQuerySharedPrepared: one Prepared run by many goroutines at once,
// each with its own parameters, through Query, QueryAll and a Cursor,
// gives each call the rows of its own parameters: no call's parameters,
// ranges or plan reach another's, however the calls reuse what earlier
// ones bound (R13: a query's results are those of its text and
// parameters).
func TestQuerySharedPrepared(t *testing.T) { // R13
	const groups, per = 16, 5
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	require.NoError(t, c.CreateIndex(bg, "/status"))
	for i := range groups * per {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%03d","pk":"p%d","status":"s-%d","n":%d}`, i, i%3, i%groups, i))
	}
	want := func(g, min int) []string { // the ids of status s-g with n >= min, sorted
		var ids []string
		for i := range groups * per {
			if i%groups == g && i >= min {
				ids = append(ids, fmt.Sprintf("d%03d", i))
			}
		}
		return ids
	}
	eq, err := Prepare(`SELECT * FROM c WHERE c.status = @status`)
	require.NoError(t, err)
	rng, err := Prepare(`SELECT VALUE c.id FROM c WHERE c.status = @status AND c.n >= @min`)
	require.NoError(t, err)

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := range 60 {
				g, min := (w*7+i)%groups, (w+i)%(groups*per)
				var got []string
				switch i % 3 {
				case 0:
					page, err := c.Query(bg, SQL{Prepared: eq, Params: map[string]any{"status": fmt.Sprintf("s-%d", g)}})
					if err != nil {
						errs <- err
						return
					}
					got, min = sharedIDs(page.Results...), 0
				case 1:
					for res, err := range c.QueryAll(bg, SQL{Prepared: rng, Params: map[string]any{"@status": fmt.Sprintf("s-%d", g), "min": min}}) {
						if err != nil {
							errs <- err
							return
						}
						got = append(got, sharedIDs(res)...)
					}
				default:
					page, err := c.Query(bg, SQL{Prepared: rng, Params: map[string]any{"status": fmt.Sprintf("s-%d", g), "min": min}, MaxItems: 2})
					if err != nil {
						errs <- err
						return
					}
					got = sharedIDs(page.Results...)
					for page.Continuation != "" {
						if page, err = c.Query(bg, SQL{Prepared: rng, Params: map[string]any{"min": min, "status": fmt.Sprintf("s-%d", g)}, MaxItems: 2, Continuation: page.Continuation}); err != nil {
							errs <- err
							return
						}
						got = append(got, sharedIDs(page.Results...)...)
					}
				}
				slices.Sort(got) // key order is the partition's first
				if w := want(g, min); fmt.Sprint(got) != fmt.Sprint(w) {
					errs <- fmt.Errorf("status s-%d, n >= %d: %v, want %v", g, min, got, w)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// sharedIDs returns the ids of results that are documents or ids; "?" for
// any other.
func sharedIDs(results ...json.RawMessage) []string {
	var ids []string
	for _, res := range results {
		var doc struct{ ID string }
		id := "?"
		if json.Unmarshal(res, &id) != nil && json.Unmarshal(res, &doc) == nil {
			id = doc.ID
		}
		ids = append(ids, id)
	}
	return ids
}

// TestQueryTokenParamForms: a continuation token is taken with the same
// parameter values, given as a Go string or as the same JSON in a
// json.RawMessage (the token keeps the JSON's hash), and refused with other
// values (R13: a token belongs to its query, parameters and partition).
func TestQueryTokenParamForms(t *testing.T) { // R13
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	require.NoError(t, c.CreateIndex(bg, "/status"))
	for i := range 4 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p","status":"s 1"}`, i))
	}
	q, err := Prepare(`SELECT * FROM c WHERE c.status = @status`)
	require.NoError(t, err)
	page, err := c.Query(bg, SQL{Prepared: q, Params: map[string]any{"status": "s 1"}, MaxItems: 1})
	require.NoError(t, err)
	require.NotEmpty(t, page.Continuation)
	for _, v := range []any{"s 1", json.RawMessage(`"s 1"`), json.RawMessage(` "s 1" `)} {
		next, err := c.Query(bg, SQL{Prepared: q, Params: map[string]any{"status": v}, MaxItems: 1, Continuation: page.Continuation})
		require.NoError(t, err, "%s", v)
		require.Equal(t, []string{"d1"}, sharedIDs(next.Results...))
	}
	_, err = c.Query(bg, SQL{Prepared: q, Params: map[string]any{"status": "s 2"}, MaxItems: 1, Continuation: page.Continuation})
	require.ErrorIs(t, err, ErrInvalidContinuation)
}

// TestQueryPageOwnsResults: a page's results stay as they were while later
// queries run, which reuse what the earlier ones gathered their pages in
// (R13: a query's results are its caller's).
func TestQueryPageOwnsResults(t *testing.T) { // R13
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	require.NoError(t, c.CreateIndex(bg, "/status"))
	for i := range 12 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%02d","pk":"p","status":"s%d"}`, i, i%3))
	}
	q, err := Prepare(`SELECT * FROM c WHERE c.status = @status`)
	require.NoError(t, err)
	var pages [][]json.RawMessage
	var want []string
	for i := range 9 {
		page, err := c.Query(bg, SQL{Prepared: q, Params: map[string]any{"status": fmt.Sprintf("s%d", i%3)}})
		require.NoError(t, err)
		pages = append(pages, page.Results)
		want = append(want, fmt.Sprintf("%s", page.Results))
	}
	for i, res := range pages {
		require.Equal(t, want[i], fmt.Sprintf("%s", res), "page %d", i)
	}
}
