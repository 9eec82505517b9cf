package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ttldb/ttldb"
	_ "github.com/ttldb/ttldb/postgres" // registers postgres:// and postgresql:// with ttldb.Open
)

// target is the collection a command opens, DIR or URL, with the flags
// that name or make it.
type target struct {
	name, pkPath string
	defaultTTL   int64
	write        bool // the command writes: it may make a collection
	readOK       bool // the command only reads: a directory in use is opened read-only
}

// flags declares the target's flags on fs: --collection for every command,
// and for those that write, what a new collection needs.
func (t *target) flags(fs *flag.FlagSet, write bool) {
	t.write, t.readOK = write, !write
	fs.StringVar(&t.name, "collection", "", "the collection's `name`: required for a postgres:// URL; for a directory, empty means the stored name"+
		map[bool]string{true: " (required to make a new directory's collection)", false: ""}[write])
	if write {
		fs.StringVar(&t.pkPath, "partition-key", "", "the partition-key `path` (such as /tenant) of a collection to make; empty opens an existing one with its stored path")
		fs.Int64Var(&t.defaultTTL, "default-ttl", 0, "the DefaultTTL of a collection to make, in `seconds` (-1: only documents with their own ttl expire; 0: off); for an existing collection, 0 or its own")
	}
}

// open opens the collection that arg, the command's DIR|URL argument,
// names, with the sweeper off (a command never deletes what expired: it
// shows it) and opts' clock. A command that only reads refuses a directory
// that does not exist or holds no collection, rather than making one, and
// opens a directory read-only (Options.ReadOnly), whether or not another
// process has it open: the collection as of the open, writing nothing to
// the directory, not the clock an open records, nor the cut of a torn
// tail, which it leaves out and reports on stderr. One that writes is
// refused a directory another process has open, with ttldb.ErrLocked.
func (t *target) open(ctx context.Context, stderr io.Writer, arg string, opts ttldb.Options) (*ttldb.Collection, error) {
	if arg == "" {
		return nil, usagef("DIR|URL is empty")
	}
	u, dir, err := targetURL(arg)
	if err != nil {
		return nil, err
	}
	if dir != "" && !t.write {
		st, err := os.Stat(dir)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("%s: no such directory (a command that only reads makes no collection)", arg)
		case err != nil:
			return nil, fmt.Errorf("%s: %v", arg, err)
		case !st.IsDir():
			return nil, fmt.Errorf("%s: not a directory: a durable collection is a directory", arg)
		}
	}
	opts.Name, opts.PartitionKeyPath = t.name, t.pkPath
	opts.ManualSweep = true
	opts.ReadOnly = t.readOK && dir != ""
	if t.write && t.defaultTTL != 0 {
		opts.DefaultTTL = ttldb.TTLSeconds(t.defaultTTL)
	}
	c, err := ttldb.Open(ctx, u, &opts)
	switch {
	case errors.Is(err, ttldb.ErrLocked):
		return nil, fmt.Errorf("%s: in use by another process (or another open collection), which holds its lock; a command that writes cannot open it while that process runs (commands that only read open it read-only): %w", arg, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", shown(arg), err)
	}
	if r := c.Recovery(); opts.ReadOnly && r.Truncated != "" {
		fmt.Fprintf(stderr, "ttldb: warning: torn tail: %s (%s): a write a crash interrupted, never acknowledged, which this command leaves out; the next open for writing cuts it\n", r.Truncated, r.Reason)
	}
	return c, nil
}

// targetURL turns DIR|URL into the URL ttldb.Open takes, and the
// directory it names, if any. A URL has a scheme of two letters or more
// followed by ':' ("C:" is a drive, not a scheme); anything else is a
// directory's path.
func targetURL(arg string) (u, dir string, err error) {
	if i := strings.IndexByte(arg, ':'); i > 1 && !strings.ContainsAny(arg[:i], `/\`) {
		scheme := strings.ToLower(arg[:i])
		switch scheme {
		case "mem":
			return "", "", usagef("%s: mem: is a new, empty collection that would end with the command: give a directory or a server's URL", arg)
		case "file":
			p, err := url.Parse(arg)
			if err != nil {
				return "", "", fmt.Errorf("%s: not a URL: %v", arg, err)
			}
			d := p.Path
			if d == "" {
				d = p.Opaque
			}
			return arg, d, nil
		}
		return arg, "", nil
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", "", fmt.Errorf("%s: %v", arg, err)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), abs, nil
}

// shown is arg as a message shows it: a URL without its password. A URL
// that does not parse (a bad escape or port, a space) shows xxxxx for all
// that stands between its "//" and the last "@" after it, which may hold
// a password.
func shown(arg string) string {
	u, err := url.Parse(arg)
	if err == nil {
		if _, ok := u.User.Password(); ok {
			return u.Redacted()
		}
		return arg
	}
	if i := strings.Index(arg, "//"); i >= 0 {
		if j := strings.LastIndexByte(arg[i+2:], '@'); j >= 0 {
			return arg[:i+2] + "xxxxx" + arg[i+2+j:]
		}
	}
	return arg
}

// closeInto closes c and keeps the first error in *err.
func closeInto(c *ttldb.Collection, err *error) {
	if cerr := c.Close(); cerr != nil && *err == nil {
		*err = fmt.Errorf("closing the collection: %w", cerr)
	}
}

// needArgs checks the number of positional arguments.
func needArgs(args []string, min, max int, what string) error {
	switch {
	case len(args) < min:
		return usagef("missing arguments: want %s", what)
	case max >= 0 && len(args) > max:
		return usagef("too many arguments (%q...): want %s", args[max], what)
	}
	return nil
}
