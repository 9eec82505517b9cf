package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ttldb/ttldb"
)

var backupCmd = &command{
	name:    "backup",
	summary: "write a backup of a collection to a file, or to stdout",
	usage: `[flags] DIR|URL FILE|-

Writes a consistent copy of the collection (ttldb.Collection.Backup): its
documents with their _ts, _etag and LSNs (expired ones not yet swept too),
its settings and its feed position; not the all-versions feed's history.
'ttldb restore' makes a directory of it. The file is written under a
temporary name and renamed when whole; an existing FILE is refused. With
-, the backup goes to stdout; a backup cut short (an interrupt, a full
disk) is refused by restore, never taken as whole.

ttldb opens DIR read-only for the time of the backup, writing nothing to
it, whether or not a running program has it open: the backup is the
collection its files held at that open, every change whole (a change the
program was writing at that instant is in it or not; a torn tail is left
out, with a warning on stderr); the program can also back up itself with
Collection.Backup. A PostgreSQL collection is backed up with pg_dump.`,
	setup: func(fs *flag.FlagSet) func(context.Context, env, []string) error {
		var t target
		t.flags(fs, false)
		return func(ctx context.Context, e env, args []string) (err error) {
			if err := needArgs(args, 2, 2, "DIR|URL FILE|-"); err != nil {
				return err
			}
			out := args[1]
			if out == "" {
				return usagef("FILE is empty: give a file's path, or - for stdout")
			}
			if out != "-" {
				if _, err := os.Lstat(out); err == nil {
					return fmt.Errorf("%s exists: a backup never replaces a file; remove it or give another name", out)
				}
			}
			c, err := t.open(ctx, e.stderr, args[0], ttldb.Options{})
			if err != nil {
				return err
			}
			defer closeInto(c, &err)
			var info ttldb.BackupInfo
			if out == "-" {
				w := bufio.NewWriterSize(e.stdout, 1<<20)
				if info, err = c.Backup(ctx, w); err == nil {
					err = w.Flush()
				}
			} else {
				info, err = backupToFile(ctx, c, out)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "backed up collection %q (%s): %d documents, LSN %d, %d bytes\n", info.Name, info.PartitionKeyPath, info.Documents, info.LastLSN, info.Bytes)
			return nil
		}
	},
}

// backupToFile writes c's backup to a temporary file beside path, synced,
// and renames it path once whole; on an error it removes it.
func backupToFile(ctx context.Context, c *ttldb.Collection, path string) (info ttldb.BackupInfo, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return info, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if info, err = c.Backup(ctx, w); err != nil {
		return info, err
	}
	if err = w.Flush(); err != nil {
		return info, err
	}
	if err = f.Sync(); err != nil {
		return info, err
	}
	if err = f.Close(); err != nil {
		return info, err
	}
	// A link, not a rename: it fails on a name taken meanwhile, where a
	// rename would replace the file. Then the directory is synced, so that
	// the name survives a power loss once the command said it is there.
	if err = os.Link(f.Name(), path); errors.Is(err, fs.ErrExist) {
		err = fmt.Errorf("%s appeared meanwhile: a backup never replaces a file", path)
	}
	if err != nil {
		return info, err
	}
	_ = os.Remove(f.Name())
	return info, syncDir(filepath.Dir(path))
}

// syncDir makes the names in the directory dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

var restoreCmd = &command{
	name:    "restore",
	summary: "make a directory of a backup",
	usage: `[flags] FILE|- DIR

Makes DIR, which must not exist, be empty (or hold only LOCK), or be one a
restore did not finish (it holds RESTORING), the collection of a backup
that 'ttldb backup' or Collection.Backup wrote (- reads it from stdin).
The whole backup is checked (every frame's checksum, the count at its end,
every document) before DIR holds it: one cut short or damaged is refused
with the offset of the damage, and DIR is left without a collection.`,
	setup: func(fs *flag.FlagSet) func(context.Context, env, []string) error {
		return func(ctx context.Context, e env, args []string) (err error) {
			if err := needArgs(args, 2, 2, "FILE|- DIR"); err != nil {
				return err
			}
			src, dir := args[0], args[1]
			if src == "" || dir == "" {
				return usagef("FILE and DIR must not be empty")
			}
			var r io.Reader = e.stdin
			if src != "-" {
				f, err := os.Open(src)
				if err != nil {
					return err
				}
				defer f.Close()
				r = f
			}
			info, err := ttldb.Restore(ctx, bufio.NewReaderSize(r, 1<<20), dir)
			var ce *ttldb.CorruptError
			if errors.As(err, &ce) {
				name := src
				if src == "-" {
					name = "stdin"
				}
				return fmt.Errorf("%s: damaged at offset %d: %s; %s holds no collection", name, ce.Offset, ce.Reason, dir)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "restored collection %q (%s) into %s: %d documents of the backup's LSN %d (its own changes are numbered past a jump)\n", info.Name, info.PartitionKeyPath, dir, info.Documents, info.LastLSN)
			return nil
		}
	},
}
