package ttldb

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// dirContents returns the names and contents of dir's files.
func dirContents(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	m := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		m[e.Name()] = string(b)
	}
	return m
}

// TestReadOnlyOpen: a read-only open reads a directory another collection
// has open, as of the open, refuses every write, and writes nothing to the
// directory, not even the cut of a torn tail (R17, R12).
func TestReadOnlyOpen(t *testing.T) { // R17, R12
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLSeconds(100), Indexes: []string{"/n"}})
	require.NoError(t, err)
	defer c.Close()
	mustCreate(t, c, `{"id":"a","pk":"p","n":1}`)
	mustCreate(t, c, `{"id":"b","pk":"p","n":2}`)

	ro := func() *Collection {
		t.Helper()
		r, err := Open(bg, "file://"+dir, &Options{ReadOnly: true, Now: clk.Now})
		require.NoError(t, err)
		t.Cleanup(func() { r.Close() })
		return r
	}
	r := ro()
	require.Equal(t, durableState(c), durableState(r))
	require.Equal(t, []string{"/n"}, r.Indexes())
	_, err = r.Get(bg, StringKey("p"), "a")
	require.NoError(t, err)
	_, err = r.Upsert(bg, []byte(`{"id":"c","pk":"p"}`))
	require.ErrorIs(t, err, ErrInvalidOption)
	require.ErrorContains(t, err, "read-only")
	require.ErrorIs(t, r.Delete(bg, StringKey("p"), "a"), ErrInvalidOption)
	require.ErrorIs(t, r.SetDefaultTTL(bg, TTLOff()), ErrInvalidOption)
	require.ErrorIs(t, r.CreateIndex(bg, "/m"), ErrInvalidOption)
	require.ErrorIs(t, r.Compact(bg), ErrInvalidOption)
	_, err = r.Sweep(bg)
	require.ErrorIs(t, err, ErrInvalidOption)
	b, info := backupOf(t, r)
	require.Equal(t, uint64(2), info.LastLSN)
	require.Equal(t, originalState(c), restoredState(t, restoreAndOpen(t, b, clk), info.LastLSN))

	mustCreate(t, c, `{"id":"c","pk":"p"}`) // after r's open: not in r
	_, err = r.Get(bg, StringKey("p"), "c")
	require.ErrorIs(t, err, ErrNotFound)
	require.NoError(t, c.Compact(bg)) // the files r read are gone
	mustCreate(t, c, `{"id":"d","pk":"p"}`)
	require.Equal(t, durableState(c), durableState(ro()))
	require.NoError(t, r.Close())

	require.NoError(t, c.Close())
	logs, _ := filepath.Glob(filepath.Join(dir, "log-*"))
	last := logs[len(logs)-1]
	lb, err := os.ReadFile(last)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(last, append(bytes.Clone(lb), 9, 9, 9), 0o644)) // a torn tail
	before := dirContents(t, dir)
	r = ro()
	require.Equal(t, last, r.Recovery().Truncated)
	require.NoError(t, r.Close())
	require.Equal(t, before, dirContents(t, dir), "a read-only open writes nothing")

	_, err = NewCollection("x", "/pk", &Options{ReadOnly: true})
	require.ErrorIs(t, err, ErrInvalidOption)
	_, err = Open(bg, "file://"+t.TempDir(), &Options{ReadOnly: true})
	require.ErrorIs(t, err, ErrInvalidOption)
}

// TestReadOnlyWhileWriting: read-only opens of a directory whose collection
// writes and compacts meanwhile each read a whole, consistent collection:
// the one of some instant (R17, R12).
func TestReadOnlyWhileWriting(t *testing.T) { // R17, R12
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	defer c.Close()
	stop := make(chan struct{})
	done := make(chan error)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if _, err := c.Upsert(bg, fmt.Appendf(nil, `{"id":"k%d","pk":"p","v":%d}`, i%300, i)); err != nil {
				done <- err
				return
			}
			if i%500 == 499 {
				if err := c.Compact(bg); err != nil {
					done <- err
					return
				}
			}
		}
	}()
	for range 30 {
		r, err := Open(bg, "file://"+dir, &Options{ReadOnly: true, Now: clk.Now})
		require.NoError(t, err)
		checkInvariants(t, r)
		for d, err := range r.All(bg, Query{}) {
			require.NoError(t, err)
			require.LessOrEqual(t, d.LSN(), r.LastLSN())
		}
		require.NoError(t, r.Close())
	}
	close(stop)
	require.NoError(t, <-done)
}
