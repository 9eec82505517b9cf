package ttldb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/local"
)

// openOpts are options for Open on clk, without a background sweeper.
func openOpts(clk *fakeClock, o Options) *Options {
	o.Now, o.ManualSweep = clk.Now, true
	return &o
}

// TestOpenMem: "mem:" makes a new collection in memory, of the options'
// name, partition-key path and settings (R16).
func TestOpenMem(t *testing.T) { // R16
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := Open(bg, "mem:", openOpts(clk, Options{Name: "orders", PartitionKeyPath: "/customerId", DefaultTTL: TTLSeconds(60), Indexes: []string{"/n"}}))
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, "orders", c.Name())
	require.Equal(t, "/customerId", c.PartitionKeyPath())
	require.Equal(t, TTLSeconds(60), c.DefaultTTL())
	require.Equal(t, []string{"/n"}, c.Indexes())
	require.Equal(t, Recovery{}, c.Recovery())
	mustCreate(t, c, `{"id":"a","customerId":"c1","n":1}`)
	require.Equal(t, "a", mustGet(t, c, StringKey("c1"), "a").ID())
	clk.Advance(time.Minute)
	_, err = c.Get(bg, StringKey("c1"), "a")
	require.ErrorIs(t, err, ErrNotFound, "DefaultTTL 60 applies")
}

// TestOpenFileRoundTrip: a file URL, absolute (with or without localhost)
// or relative, makes a durable collection in its directory, and opens it
// again with nil options: the stored name, partition-key path, documents
// and settings (R12), as Recovery says, with no change listed (R16).
func TestOpenFileRoundTrip(t *testing.T) { // R12, R16
	base := t.TempDir()
	t.Chdir(base)
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	for _, tc := range []struct{ make, reopen string }{
		{"file://" + filepath.Join(base, "abs"), "file:" + filepath.Join(base, "abs")},
		{"file://localhost" + filepath.Join(base, "local"), "file://" + filepath.Join(base, "local")},
		{"file:rel/db", "file:./rel/db"},
		{"file:with%20space", "file:///" + strings.TrimPrefix(filepath.Join(base, "with space"), "/")},
	} {
		c, err := Open(bg, tc.make, openOpts(clk, Options{Name: "orders", PartitionKeyPath: "/tenant/id", DefaultTTL: TTLSeconds(3600), Indexes: []string{"/n"}}))
		require.NoError(t, err, tc.make)
		require.Equal(t, "", c.Recovery().Snapshot, "%s: a new directory", tc.make)
		mustCreate(t, c, `{"id":"a","tenant":{"id":"t1"},"n":1,"ttl":-1}`) // nil options reopen on the wall clock
		require.NoError(t, c.Close())

		c, err = Open(bg, tc.reopen, nil)
		require.NoError(t, err, tc.reopen)
		require.Equal(t, "orders", c.Name(), tc.reopen)
		require.Equal(t, "/tenant/id", c.PartitionKeyPath(), tc.reopen)
		require.Equal(t, TTLSeconds(3600), c.DefaultTTL(), tc.reopen)
		require.Equal(t, []string{"/n"}, c.Indexes(), tc.reopen)
		require.NotEmpty(t, c.Recovery().Snapshot, tc.reopen)
		require.Empty(t, c.Recovery().Changed, tc.reopen)
		d, err := c.Get(bg, StringKey("t1"), "a")
		require.NoError(t, err, "%s: the stored partition-key path keys the documents", tc.reopen)
		require.Equal(t, "a", d.ID())
		mustCreate(t, c, `{"id":"b","tenant":{"id":"t1"},"n":2}`)
		require.NoError(t, c.Close())
	}
	for _, dir := range []string{"abs", "local", "rel/db", "with space"} {
		require.FileExists(t, filepath.Join(base, dir, local.LockName), "the collection was made in %s", dir)
	}
}

// TestOpenKeepsStoredSettings: Open of an existing directory with nil
// options, or options that leave the settings zero, keeps each stored
// setting made non-default: DefaultTTL, indexes, indexing mode none; it
// changes and lists nothing (R12). Options equal to the stored
// settings are accepted too, the indexes in any order. (Open applied its
// options' settings, as NewCollection does: nil turned TTL off and the
// mode back to consistent.)
func TestOpenKeepsStoredSettings(t *testing.T) { // R12, R16
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	ttlDir, noneDir := t.TempDir(), t.TempDir()
	c, err := Open(bg, "file:"+ttlDir, openOpts(clk, Options{Name: "s", PartitionKeyPath: "/id", DefaultTTL: TTLNoDefault(), Indexes: []string{"/n", "/m"}}))
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","ttl":-1}`)                   // never expires: nil options reopen on the wall clock
	require.NoError(t, c.SetDefaultTTL(bg, TTLSeconds(3600))) // changed once open: logged, not in the snapshot
	require.NoError(t, c.Close())
	c, err = Open(bg, "file:"+noneDir, openOpts(clk, Options{Name: "kv", PartitionKeyPath: "/pk", Indexing: IndexingNone}))
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	require.NoError(t, c.Compact(bg)) // the mode in a snapshot
	require.NoError(t, c.Close())

	for _, o := range []*Options{nil, openOpts(clk, Options{}), openOpts(clk, Options{Name: "s", PartitionKeyPath: "/id", DefaultTTL: TTLSeconds(3600), Indexes: []string{"/m", "/n"}})} {
		c, err := Open(bg, "file:"+ttlDir, o)
		require.NoError(t, err)
		require.Equal(t, "s", c.Name())
		require.Equal(t, "/id", c.PartitionKeyPath())
		require.Equal(t, TTLSeconds(3600), c.DefaultTTL())
		require.Equal(t, IndexingConsistent, c.IndexingMode())
		require.Equal(t, []string{"/n", "/m"}, c.Indexes())
		require.Empty(t, c.Recovery().Changed)
		require.Equal(t, "a", mustGet(t, c, StringKey("a"), "a").ID(), "partitioned by /id")
		require.NoError(t, c.Close())
	}
	for _, o := range []*Options{nil, {Indexing: IndexingNone}} {
		c, err := Open(bg, "file:"+noneDir, o)
		require.NoError(t, err)
		require.Equal(t, IndexingNone, c.IndexingMode(), "Indexing zero means as stored")
		require.Equal(t, TTLOff(), c.DefaultTTL())
		require.Empty(t, c.Recovery().Changed)
		require.NoError(t, c.Close())
	}
}

// TestOpenRefusals: each refusal of Open is ErrInvalidOption (or the
// context's error) whose message names the value at fault, and changes
// nothing on disk: an existing directory keeps its files as they were, a
// missing one is not made (R12, R16).
func TestOpenRefusals(t *testing.T) { // R12, R16
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	dir := t.TempDir()
	c, err := Open(bg, "file:"+dir, openOpts(clk, Options{Name: "orders", PartitionKeyPath: "/pk", DefaultTTL: TTLSeconds(3600), Indexes: []string{"/n"}}))
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p","n":1}`)
	require.NoError(t, c.Close())
	missing := filepath.Join(t.TempDir(), "missing")
	canceled, cancel := context.WithCancel(bg)
	cancel()

	cases := []struct {
		name string
		ctx  context.Context
		url  string
		o    Options
		want []string // in the message
	}{
		{"DefaultTTL differs", bg, "file:" + dir, Options{DefaultTTL: TTLSeconds(60)},
			[]string{"Options.DefaultTTL 60", "DefaultTTL 3600", "SetDefaultTTL"}},
		{"DefaultTTL -1 differs", bg, "file:" + dir, Options{DefaultTTL: TTLNoDefault()},
			[]string{"Options.DefaultTTL -1", "DefaultTTL 3600", "SetDefaultTTL"}},
		{"Indexing differs", bg, "file:" + dir, Options{Indexing: IndexingNone},
			[]string{"Options.Indexing none", "indexing mode consistent", "SetIndexingMode"}},
		{"Indexes differ", bg, "file:" + dir, Options{Indexes: []string{"/m"}},
			[]string{`Options.Indexes ["/m"]`, `the indexes ["/n"]`, "CreateIndex and DropIndex"}},
		{"Indexes more", bg, "file:" + dir, Options{Indexes: []string{"/n", "/m"}},
			[]string{`Options.Indexes ["/n" "/m"]`, `the indexes ["/n"]`}},
		{"another name", bg, "file:" + dir, Options{Name: "other"},
			[]string{`holds collection "orders" partitioned by /pk, not "other" partitioned by /pk`, "cannot change"}},
		{"another partition-key path", bg, "file:" + dir, Options{PartitionKeyPath: "/x"},
			[]string{`holds collection "orders" partitioned by /pk, not "orders" partitioned by /x`}},
		{"another Dir", bg, "file:" + dir, Options{Dir: missing},
			[]string{"names the directory " + dir, "Options.Dir is " + fmt.Sprintf("%q", missing)}},
		{"nil context", nil, "file:" + dir, Options{},
			[]string{"Open with a nil context.Context"}},
		{"canceled", canceled, "file:" + dir, Options{Name: "orders", PartitionKeyPath: "/pk"}, nil},
		{"canceled, new", canceled, "file:" + missing, Options{Name: "orders", PartitionKeyPath: "/pk"}, nil},
		{"new without a name", bg, "file:" + missing, Options{PartitionKeyPath: "/pk"},
			[]string{missing + " holds no collection", "needs Options.Name and Options.PartitionKeyPath"}},
		{"new without a path", bg, "file://" + missing, Options{Name: "orders"},
			[]string{"needs Options.Name and Options.PartitionKeyPath"}},
		{"mem without a name", bg, "mem:", Options{PartitionKeyPath: "/pk"},
			[]string{`URL "mem:" makes a new collection, which needs Options.Name and Options.PartitionKeyPath`}},
		{"mem with a Dir", bg, "mem:", Options{Name: "o", PartitionKeyPath: "/pk", Dir: missing},
			[]string{"Options.Dir " + fmt.Sprintf("%q", missing), "mem: is a collection in memory"}},
		{"mem with more", bg, "mem:orders", Options{Name: "o", PartitionKeyPath: "/pk"},
			[]string{`URL "mem:orders": mem: takes nothing after the scheme`}},
		{"a host", bg, "file://server" + missing, Options{Name: "o", PartitionKeyPath: "/pk"},
			[]string{`names the host "server"`}},
		{"no path", bg, "file:", Options{Name: "o", PartitionKeyPath: "/pk"},
			[]string{`URL "file:" names no directory`}},
		{"a query", bg, "file:" + missing + "?sync=always", Options{Name: "o", PartitionKeyPath: "/pk"},
			[]string{"takes a path and nothing else"}},
		{"no scheme", bg, missing, Options{Name: "o", PartitionKeyPath: "/pk"},
			[]string{fmt.Sprintf("URL %q has no scheme", missing)}},
		{"does not parse", bg, "file://[::1" + missing, Options{Name: "o", PartitionKeyPath: "/pk"},
			[]string{`URL "file://[::1` + missing + `" does not parse`}},
		{"unknown scheme", bg, "postgres://user:secret@db.example/ttl", Options{Name: "o", PartitionKeyPath: "/pk"},
			[]string{`no engine is registered for scheme "postgres" (registered: file, mem`, `import _ "github.com/ttldb/ttldb/postgres"`, "user:xxxxx@db.example"}},
		{"unknown scheme, not parsing", bg, "postgres://user:secret@db.example:port/ttl", Options{},
			[]string{`"postgres://user:xxxxx@db.example:port/ttl" does not parse`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := dirFiles(t, dir)
			c, err := Open(tc.ctx, tc.url, openOpts(clk, tc.o))
			if c != nil {
				c.Close()
				t.Fatalf("Open(%s) with %+v opened the collection", tc.url, tc.o)
			}
			switch tc.ctx {
			case canceled:
				require.ErrorIs(t, err, context.Canceled)
			default:
				require.ErrorIs(t, err, ErrInvalidOption)
			}
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
			require.NotContains(t, err.Error(), "secret", "a URL's password is never shown")
			require.Equal(t, before, dirFiles(t, dir), "a refused open changes nothing")
			require.NoDirExists(t, missing, "a refused open makes no directory")
		})
	}
	c, err = Open(bg, "file:"+dir, nil)
	require.NoError(t, err)
	require.Equal(t, TTLSeconds(3600), c.DefaultTTL(), "no refused open changed it")
	require.NoError(t, c.Close())
}

// TestNewCollectionOptionsName: NewCollection takes the name and the
// partition-key path as its arguments: Options.Name and PartitionKeyPath
// may repeat them, and are refused when they differ.
func TestNewCollectionOptionsName(t *testing.T) { // R12
	c, err := NewCollection("orders", "/pk", &Options{Name: "orders", PartitionKeyPath: "/pk", ManualSweep: true})
	require.NoError(t, err)
	require.NoError(t, c.Close())
	_, err = NewCollection("orders", "/pk", &Options{Name: "other", ManualSweep: true})
	require.ErrorIs(t, err, ErrInvalidOption)
	require.ErrorContains(t, err, `NewCollection("orders", ...) with Options.Name "other"`)
	_, err = NewCollection("orders", "/pk", &Options{PartitionKeyPath: "/x", ManualSweep: true})
	require.ErrorIs(t, err, ErrInvalidOption)
	require.ErrorContains(t, err, `NewCollection(..., "/pk", ...) with Options.PartitionKeyPath "/x"`)
}

// TestOpenRegistry: a scheme registered with Register is opened by its
// Opener, given Open's context, URL and options as they were; Register
// panics on a nil opener, a scheme registered twice or built in, and one
// that is not a lower-case URL scheme; an unknown scheme's error lists the
// registered ones (R16).
func TestOpenRegistry(t *testing.T) { // R16
	type ctxKey struct{}
	ctx := context.WithValue(bg, ctxKey{}, "mine")
	made, err := NewCollection("fake", "/pk", &Options{ManualSweep: true})
	require.NoError(t, err)
	defer made.Close()
	opts := &Options{Name: "x"}
	var got struct {
		ctx  context.Context
		url  string
		opts *Options
	}
	fake := func(ctx context.Context, url string, opts *Options) (*Collection, error) {
		got.ctx, got.url, got.opts = ctx, url, opts
		if strings.Contains(url, "fail") {
			return nil, errorf(ErrInvalidOption, "fake refuses %s", url)
		}
		return made, nil
	}
	Register("ttldbtest", fake)
	t.Cleanup(func() { unregister("ttldbtest") })

	c, err := Open(ctx, "TTLDBtest://host/db?x=1", opts)
	require.NoError(t, err)
	require.Same(t, made, c)
	require.Equal(t, "mine", got.ctx.Value(ctxKey{}))
	require.Equal(t, "TTLDBtest://host/db?x=1", got.url, "the URL as given")
	require.Same(t, opts, got.opts)
	_, err = Open(ctx, "ttldbtest:fail", nil)
	require.ErrorContains(t, err, "fake refuses ttldbtest:fail")
	require.Nil(t, got.opts)
	_, err = Open(bg, "nope://x", nil)
	require.ErrorContains(t, err, `no engine is registered for scheme "nope" (registered: file, mem, ttldbtest)`)
	require.ErrorContains(t, err, "ttldb.Register")

	require.PanicsWithValue(t, "ttldb: Register called twice for scheme ttldbtest", func() { Register("ttldbtest", fake) })
	require.Panics(t, func() { Register("other", nil) })
	require.Panics(t, func() { Register("mem", fake) })
	require.Panics(t, func() { Register("file", fake) })
	for _, bad := range []string{"", "Upper", "1abc", "a b", "a:b"} {
		require.Panics(t, func() { Register(bad, fake) }, bad)
	}

	// Registers and opens at once, for the race detector.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range 4 {
		scheme := fmt.Sprintf("ttldbtest%d", i)
		t.Cleanup(func() { unregister(scheme) })
		wg.Go(func() {
			Register(scheme, fake)
			_, errs[i] = Open(bg, "ttldbtest9:x", nil)
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.ErrorIs(t, err, ErrInvalidOption)
	}
	_, err = Open(bg, "ttldbtest3:fail", nil)
	require.ErrorContains(t, err, "fake refuses")
}

// TestOpenNewDirectoryNeedsIdentity: a directory that holds no collection
// refuses an open without a name or partition-key path when its files are
// read too (internal/local/recover.go's own check, behind Open's, for files removed
// between the two), writing nothing but the lock.
func TestOpenNewDirectoryNeedsIdentity(t *testing.T) { // R12
	dir := t.TempDir()
	o := Options{Dir: dir, ManualSweep: true, asStored: true}
	_, err := newCollection("", "", o)
	require.ErrorIs(t, err, ErrInvalidOption)
	require.ErrorContains(t, err, dir+" holds no collection, and a new one needs Options.Name and Options.PartitionKeyPath")
	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, n := range names {
		require.Equal(t, local.LockName, n.Name())
	}
}
