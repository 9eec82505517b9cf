package ttldb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ttldb/ttldb/internal/local"
)

// Opening a collection by URL, on any engine (R16): the two engines of this
// package, mem: and file:, and the others a registry of openers holds, in
// the way of database/sql's drivers.

// Opener opens a collection for [Open], on the engine registered for the
// URL's scheme ([Register]): it gets Open's context, URL and options as
// Open got them, opts nil included. It reports bad input as Open does.
type Opener func(ctx context.Context, url string, opts *Options) (*Collection, error)

// engines is the registry of openers, by scheme.
var engines = struct {
	sync.Mutex
	m map[string]Opener
}{m: map[string]Opener{}}

// builtin are the schemes of the engines of this package, which Open
// knows without a registry.
var builtin = []string{"file", "mem"}

// enginePackages are the packages of engines to come, which the message
// for an unknown scheme names.
var enginePackages = map[string]string{
	"postgres":   "github.com/ttldb/ttldb/postgres",
	"postgresql": "github.com/ttldb/ttldb/postgres",
}

// Register makes open the [Opener] of the URLs of scheme for [Open]: an
// engine's package calls it in its init function, and a program imports
// that package for this side effect, as with database/sql. The scheme is
// as URLs spell it, in lower case (Open lowers a URL's). It costs a map
// insertion under a mutex; Register is safe for concurrent use.
//
// Register panics, as database/sql.Register does, when open is nil, when
// scheme is already registered or is built in ("mem", "file"), or when it
// is not a URL scheme in lower case (a letter, then letters, digits, '+',
// '-' or '.'): each is a mistake of the program, not of its input.
func Register(scheme string, open Opener) {
	if open == nil {
		panic("ttldb: Register of scheme " + scheme + " with a nil Opener")
	}
	if !validScheme(scheme) {
		panic(fmt.Sprintf("ttldb: Register of scheme %q: a scheme is a lower-case letter, then lower-case letters, digits, '+', '-' or '.'", scheme))
	}
	if slices.Contains(builtin, scheme) {
		panic("ttldb: Register of scheme " + scheme + ", which is built in")
	}
	engines.Lock()
	defer engines.Unlock()
	if _, dup := engines.m[scheme]; dup {
		panic("ttldb: Register called twice for scheme " + scheme)
	}
	engines.m[scheme] = open
}

// unregister removes the opener of scheme, for tests.
func unregister(scheme string) {
	engines.Lock()
	defer engines.Unlock()
	delete(engines.m, scheme)
}

// validScheme reports whether s is a URL scheme in lower case (RFC 3986).
func validScheme(s string) bool {
	for i, r := range s {
		switch {
		case 'a' <= r && r <= 'z':
		case i > 0 && ('0' <= r && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// Open opens the collection a URL names, on the engine of its scheme, so
// that a program changes engine by changing the URL (R16):
//
//   - "mem:": a new collection in memory; opts must give Name and
//     PartitionKeyPath, and no Dir.
//   - "file:///abs/path", "file:relative/path" (or "file://localhost/..."):
//     a durable collection in that directory (R12), which Options.Dir must
//     then leave empty or name too. A directory that holds no collection
//     gets a new one, which needs Name and PartitionKeyPath; one that holds
//     a collection gives it with its stored name and partition-key path
//     (Name and PartitionKeyPath may be left empty, and are refused when
//     they differ) and its stored settings: DefaultTTL, Indexing and
//     Indexes are those of a collection Open makes, and on an existing one
//     zero means "as stored", and a value that differs from the stored one
//     is refused (see [Options]). So TTLOff, the zero DefaultTTL, asks for
//     nothing there: turn TTL off with SetDefaultTTL(ctx, TTLOff()) on the
//     open collection. [NewCollection] on a directory applies its options
//     to the stored settings instead.
//   - any other scheme: the [Opener] a package registered for it
//     ([Register]), called with ctx, url and opts.
//
// The options not stored (Now, ManualSweep, SweepBatch, Sync, Feed) apply
// as for [NewCollection], and Close releases the collection as it does.
// Open checks ctx before it begins (R16); the open of a directory, O(n) for
// the n changes it holds, then runs to its end.
//
// Errors: those of [NewCollection]; and [ErrInvalidOption] for a nil ctx,
// a URL that does not parse or whose scheme no engine has (the message
// lists those registered, and the package to import for a known one), a
// file URL with a host other than localhost, a query or no path, a Dir that
// is not the URL's, a new collection without Name or PartitionKeyPath, and
// an existing one's setting asked to differ; ctx's error when it is done. A
// refused open changes nothing in the directory. A URL's password never
// appears in a message.
func Open(ctx context.Context, url string, opts *Options) (*Collection, error) {
	if !ctxLive(ctx) {
		return nil, contextError(ctx, "Open")
	}
	u, err := parseURL(url)
	if err != nil {
		return nil, err
	}
	switch u.Scheme {
	case "mem":
		return openMem(u, opts)
	case "file":
		return openFile(u, opts)
	}
	engines.Lock()
	open := engines.m[u.Scheme]
	engines.Unlock()
	if open == nil {
		return nil, unknownScheme(u)
	}
	return open(ctx, url, opts)
}

// parseURL parses Open's URL, with errors that do not show its password.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may hold a password
		}
		return nil, errorf(ErrInvalidOption, "URL %q does not parse: %v; Open takes mem:, file:///abs/path, file:relative/path or a registered engine's URL", redact(raw), err)
	}
	if u.Scheme == "" {
		return nil, errorf(ErrInvalidOption, "URL %q has no scheme: Open takes mem:, file:///abs/path, file:relative/path or a registered engine's URL", u.Redacted())
	}
	return u, nil
}

// redact hides the password of a URL that does not parse: what follows
// "://" up to the last '@' before the path, after the user's name.
func redact(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	auth := rest[:strings.IndexAny(rest+"/", "/?#")]
	at := strings.LastIndexByte(auth, '@')
	colon := strings.IndexByte(auth, ':')
	if at < 0 || colon < 0 || colon > at {
		return raw
	}
	start := len(raw) - len(rest) + colon + 1
	return raw[:start] + "xxxxx" + raw[start+at-colon-1:]
}

// unknownScheme is the error of a URL whose scheme no engine has.
func unknownScheme(u *url.URL) error {
	engines.Lock()
	known := slices.Concat(builtin, slices.Collect(maps.Keys(engines.m)))
	engines.Unlock()
	slices.Sort(known)
	hint := "import the package of the engine that registers it (ttldb.Register) for its side effect"
	if pkg, ok := enginePackages[u.Scheme]; ok {
		hint = fmt.Sprintf("import its engine's package for its side effect: import _ %q", pkg)
	}
	return errorf(ErrInvalidOption, "URL %q: no engine is registered for scheme %q (registered: %s): %s", u.Redacted(), u.Scheme, strings.Join(known, ", "), hint)
}

// openMem opens a mem: URL: a new collection in memory.
func openMem(u *url.URL, opts *Options) (*Collection, error) {
	if u.Opaque != "" || u.Host != "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, errorf(ErrInvalidOption, "URL %q: mem: takes nothing after the scheme (the name is Options.Name)", u.Redacted())
	}
	o := options(opts)
	if o.Dir != "" {
		return nil, errorf(ErrInvalidOption, "URL %q with Options.Dir %q: mem: is a collection in memory; open file:%s for the directory", u.Redacted(), o.Dir, o.Dir)
	}
	if o.Name == "" || o.PartitionKeyPath == "" {
		return nil, errorf(ErrInvalidOption, "URL %q makes a new collection, which needs Options.Name and Options.PartitionKeyPath (Name %q, PartitionKeyPath %q)", u.Redacted(), o.Name, o.PartitionKeyPath)
	}
	return newCollection(o.Name, o.PartitionKeyPath, o)
}

// openFile opens a file: URL: a durable collection in a directory, new or
// existing, whose stored settings it keeps.
func openFile(u *url.URL, opts *Options) (*Collection, error) {
	dir, err := fileDir(u)
	if err != nil {
		return nil, err
	}
	o := options(opts)
	if o.Dir != "" && filepath.Clean(o.Dir) != dir {
		return nil, errorf(ErrInvalidOption, "URL %q names the directory %s, and Options.Dir is %q: leave Options.Dir empty with Open, or make it the same", u.Redacted(), dir, o.Dir)
	}
	o.Dir, o.asStored = dir, true
	if o.Name == "" || o.PartitionKeyPath == "" {
		held, err := local.Holds(o.fs, dir)
		if err != nil {
			return nil, errorf(ErrInvalidOption, "URL %q: reading %s: %w", u.Redacted(), dir, err)
		}
		if !held {
			return nil, errorf(ErrInvalidOption, "URL %q: %s holds no collection, and a new one needs Options.Name and Options.PartitionKeyPath (Name %q, PartitionKeyPath %q)", u.Redacted(), dir, o.Name, o.PartitionKeyPath)
		}
	}
	return newCollection(o.Name, o.PartitionKeyPath, o)
}

// fileDir returns the directory of a file: URL.
func fileDir(u *url.URL) (string, error) {
	if u.Host != "" && u.Host != "localhost" {
		return "", errorf(ErrInvalidOption, "URL %q names the host %q: a file URL names a directory of this machine, as file:///abs/path, file://localhost/abs/path or file:relative/path", u.Redacted(), u.Host)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", errorf(ErrInvalidOption, "URL %q: a file URL takes a path and nothing else (a '?' or '#' in a name is written %%3F or %%23)", u.Redacted())
	}
	p := u.Path
	if u.Opaque != "" { // file:relative/path
		var err error
		if p, err = url.PathUnescape(u.Opaque); err != nil {
			return "", errorf(ErrInvalidOption, "URL %q: %v", u.Redacted(), err)
		}
	}
	if p == "" {
		return "", errorf(ErrInvalidOption, "URL %q names no directory: write file:///abs/path or file:relative/path", u.Redacted())
	}
	return filepath.Clean(filepath.FromSlash(p)), nil
}

// options returns a copy of opts, or the zero Options for nil.
func options(opts *Options) Options {
	if opts == nil {
		return Options{}
	}
	return *opts
}
