package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ttldb/ttldb"
)

var verifyCmd = &command{
	name:    "verify",
	summary: "read every file of a directory and check it, writing nothing",
	usage: `DIR

Reads every file of the durable collection in DIR as an open does (every
frame's checksum, every record and document, the chain of logs) and checks
what they make, without writing to DIR. Damage is reported by file and
offset (exit code 1); a torn tail, which a crash leaves and an open cuts,
is reported but is not damage. A directory a running program has open is
refused: its files change as it runs. Verify locks the directory, so the
user must be able to write its file LOCK (the other commands that read
take no lock).`,
	setup: func(fs *flag.FlagSet) func(context.Context, env, []string) error {
		return func(ctx context.Context, e env, args []string) error {
			if err := needArgs(args, 1, 1, "DIR"); err != nil {
				return err
			}
			_, dir, err := targetURL(args[0])
			if err != nil {
				return err
			}
			if dir == "" {
				return usagef("%s: verify reads a directory, not a server's collection", shown(args[0]))
			}
			rep, err := ttldb.Verify(ctx, dir)
			if errors.Is(err, os.ErrPermission) {
				return fmt.Errorf("%w: verify reads every file of the directory, and this user cannot read one: run it as a user who can (the directory's owner)", err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "collection %q (%s): %d documents in the snapshot, %d changes in the logs, %d documents, last LSN %d\n", rep.Name, rep.Path, rep.Documents, rep.Changes, rep.Live, rep.LastLSN)
			for _, f := range rep.Files {
				note := ""
				if f.Leftover {
					note = "  (a leftover an open removes)"
				}
				fmt.Fprintf(e.stdout, "  %-22s %12d bytes%s\n", f.Name, f.Size, note)
			}
			if rep.Torn != "" {
				fmt.Fprintf(e.stdout, "torn tail: %s from offset %d (%s): a write a crash interrupted, never acknowledged; an open cuts it\n", rep.Torn, rep.TornAt, rep.TornReason)
			}
			fmt.Fprintln(e.stdout, "ok")
			return nil
		}
	},
}

var compactCmd = &command{
	name:    "compact",
	summary: "rewrite a directory's files to hold its documents and no more",
	usage: `DIR

Writes a snapshot of the collection and removes the files it makes useless
(Collection.Compact), and shows the directory's size before and after. A
directory a running program has open is refused (its lock): that program
compacts by itself as its files grow.`,
	setup: func(fs *flag.FlagSet) func(context.Context, env, []string) error {
		var t target
		return func(ctx context.Context, e env, args []string) (err error) {
			if err := needArgs(args, 1, 1, "DIR"); err != nil {
				return err
			}
			_, dir, err := targetURL(args[0])
			if err != nil {
				return err
			}
			if dir == "" {
				return usagef("%s: compact works on a directory; a server compacts its own tables", shown(args[0]))
			}
			c, err := t.open(ctx, e.stderr, args[0], ttldb.Options{})
			if err != nil {
				return err
			}
			defer closeInto(c, &err)
			before := dirSize(dir)
			if err := c.Compact(ctx); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "compacted %s: %d bytes before, %d after\n", dir, before, dirSize(dir))
			return nil
		}
	},
}

// dirSize returns the bytes of the files of dir, or -1.
func dirSize(dir string) int64 {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return -1
	}
	var n int64
	for _, e := range ents {
		if st, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && st.Mode().IsRegular() {
			n += st.Size()
		}
	}
	return n
}
