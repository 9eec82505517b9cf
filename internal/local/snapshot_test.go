package local

import (
	"fmt"
	"iter"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSnapshotKeepsVersions: a listing reads the collection as it was when
// it started, although writes now replace a key's document in place: an
// overwrite, a touch or a delete made during the listing does not show in
// it, nor does a create; two listings open at different times each see their
// own instant; once none is open, no older version is kept (R4).
func TestSnapshotKeepsVersions(t *testing.T) { // R4
	c, _ := newTestCollection(t, "/pk", TTLOff())
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		mustCreate(t, c, `{"id":"`+id+`","v":0}`)
	}
	bodies := func(next func() (Document, error, bool)) []string {
		var out []string
		for {
			d, err, ok := next()
			if !ok {
				return out
			}
			require.NoError(t, err)
			out = append(out, d.Body())
		}
	}
	first, stop1 := iter.Pull2(c.All(bg, Query{}))
	defer stop1()
	d, err, ok := first()
	require.True(t, ok)
	require.NoError(t, err)
	require.Equal(t, `{"id":"a","v":0}`, d.Body())

	_, err = c.Upsert(bg, []byte(`{"id":"b","v":1}`))
	require.NoError(t, err)
	_, err = c.Replace(bg, []byte(`{"id":"b","v":2}`))
	require.NoError(t, err)
	require.NoError(t, c.Delete(bg, NoPartitionKey(), "c"))
	_, err = c.Touch(bg, NoPartitionKey(), "d")
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"f","v":1}`)

	second, stop2 := iter.Pull2(c.All(bg, Query{}))
	defer stop2()
	d, _, _ = second() // the second listing starts: a
	require.Equal(t, `{"id":"a","v":0}`, d.Body())
	_, err = c.Upsert(bg, []byte(`{"id":"b","v":3}`))
	require.NoError(t, err)
	require.NoError(t, c.Delete(bg, NoPartitionKey(), "f"))

	require.Equal(t, []string{`{"id":"b","v":0}`, `{"id":"c","v":0}`, `{"id":"d","v":0}`, `{"id":"e","v":0}`}, bodies(first),
		"the first listing: as before any write")
	require.Equal(t, []string{`{"id":"b","v":2}`, `{"id":"d","v":0}`, `{"id":"e","v":0}`, `{"id":"f","v":1}`}, bodies(second),
		"the second: after the first writes, before the last")
	underRLock(&c.local.ver.mu, func() {
		require.Nil(t, c.local.ver.kept, "no listing open: nothing kept")
		require.Empty(t, c.local.ver.open)
	})

	// With no listing open, writes keep nothing.
	_, err = c.Upsert(bg, []byte(`{"id":"b","v":4}`))
	require.NoError(t, err)
	underRLock(&c.local.ver.mu, func() { require.Nil(t, c.local.ver.kept) })
	page, err := c.List(bg, Query{})
	require.NoError(t, err)
	require.Len(t, page.Documents, 4)
	require.Equal(t, `{"id":"b","v":4}`, page.Documents[1].Body())
}

// TestKeptVersionsAreBounded: listings that overlap, so that one is always
// open, keep only the versions some open listing may read: bounded by the
// writes since the oldest open one began, not by every write since the
// first (R15: memory is given back).
func TestKeptVersionsAreBounded(t *testing.T) { // R4, R15
	c, _ := newTestCollection(t, "/pk", TTLOff())
	for i := range 10 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"k%d","pk":"p"}`, i))
	}
	open := func() (func() (Document, error, bool), func()) {
		next, stop := iter.Pull2(c.All(bg, Query{}))
		_, err, ok := next() // the snapshot is taken
		require.True(t, ok)
		require.NoError(t, err)
		return next, stop
	}
	prevNext, prevStop := open()
	for round := range 2000 {
		next, stop := open() // a new listing before the last one ends
		if round%500 == 0 {  // the older one still reads its own instant
			d, err, ok := prevNext()
			require.True(t, ok)
			require.NoError(t, err)
			require.Equal(t, "k1", d.ID())
		}
		prevStop()
		prevNext, prevStop = next, stop
		_, err := c.UpsertJSON(bg, fmt.Appendf(nil, `{"id":"k%d","pk":"p","v":%d}`, round%10, round))
		require.NoError(t, err)
		c.local.ver.mu.RLock()
		kept := 0
		for _, ks := range c.local.ver.kept {
			kept += len(ks)
		}
		c.local.ver.mu.RUnlock()
		require.LessOrEqual(t, kept, 2, "round %d: kept versions, with one listing open and one write since", round)
	}
	prevStop()
	c.local.ver.mu.RLock()
	defer c.local.ver.mu.RUnlock()
	require.Nil(t, c.local.ver.kept)
	require.Empty(t, c.local.ver.log)
}
