package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ttldb/ttldb"
)

// keyFlags are how get and delete read a partition key from the command
// line: a string by default, JSON with --pk-json, none with --no-pk.
type keyFlags struct{ pkJSON, noPK bool }

func (k *keyFlags) flags(fs *flag.FlagSet) {
	fs.BoolVar(&k.pkJSON, "pk-json", false, "PK is JSON: a number, true, false, null or a quoted string (without it, PK is a string as written)")
	fs.BoolVar(&k.noPK, "no-pk", false, "the documents have no partition key (the \"none\" partition): give no PK, only IDs")
}

// split returns the partition key and the ids of args (after DIR|URL).
func (k *keyFlags) split(args []string) (ttldb.PartitionKey, []string, error) {
	if k.noPK {
		if k.pkJSON {
			return ttldb.PartitionKey{}, nil, usagef("--no-pk and --pk-json: give one")
		}
		if len(args) == 0 {
			return ttldb.PartitionKey{}, nil, usagef("missing arguments: want ID...")
		}
		return ttldb.NoPartitionKey(), args, nil
	}
	if len(args) < 2 {
		return ttldb.PartitionKey{}, nil, usagef("missing arguments: want PK ID... (--no-pk for documents without a partition key)")
	}
	if !k.pkJSON {
		return ttldb.StringKey(args[0]), args[1:], nil
	}
	var v any
	d := json.NewDecoder(strings.NewReader(args[0]))
	d.UseNumber()
	if err := d.Decode(&v); err != nil || d.More() {
		return ttldb.PartitionKey{}, nil, fmt.Errorf("PK %q: not one JSON value (--pk-json): a number, true, false, null or a quoted string", args[0])
	}
	pk, err := ttldb.PartitionKeyOf(v)
	if err != nil {
		return ttldb.PartitionKey{}, nil, fmt.Errorf("PK %s: %w", args[0], err)
	}
	return pk, args[1:], nil
}

var getCmd = &command{
	name:    "get",
	summary: "print documents, by partition key and id, with _ts and _etag",
	usage: `[flags] DIR|URL PK ID...

Prints each document, one JSON line with its system properties (_ts,
_etag). An id that is absent or expired is reported on stderr, and the exit
code is then 1.`,
	setup: func(fs *flag.FlagSet) func(context.Context, env, []string) error {
		var t target
		var k keyFlags
		t.flags(fs, false)
		k.flags(fs)
		return func(ctx context.Context, e env, args []string) (err error) {
			if err := needArgs(args, 1, -1, "DIR|URL PK ID..."); err != nil {
				return err
			}
			pk, ids, err := k.split(args[1:])
			if err != nil {
				return err
			}
			c, err := t.open(ctx, e.stderr, args[0], ttldb.Options{})
			if err != nil {
				return err
			}
			defer closeInto(c, &err)
			return eachID(ids, e.stderr, func(id string) error {
				d, err := c.Get(ctx, pk, id)
				if err != nil {
					return err
				}
				_, err = e.stdout.Write(append(d.AppendJSON(nil), '\n'))
				return err
			})
		}
	},
}

var deleteCmd = &command{
	name:    "delete",
	summary: "delete documents, by partition key and id",
	usage: `[flags] DIR|URL PK ID...

Deletes each document. An id that is absent or expired is reported on
stderr, and the exit code is then 1.`,
	setup: func(fs *flag.FlagSet) func(context.Context, env, []string) error {
		var t target
		var k keyFlags
		t.flags(fs, false)
		t.readOK = false // it writes, though it makes no collection
		k.flags(fs)
		return func(ctx context.Context, e env, args []string) (err error) {
			if err := needArgs(args, 1, -1, "DIR|URL PK ID..."); err != nil {
				return err
			}
			pk, ids, err := k.split(args[1:])
			if err != nil {
				return err
			}
			c, err := t.open(ctx, e.stderr, args[0], ttldb.Options{})
			if err != nil {
				return err
			}
			defer closeInto(c, &err)
			return eachID(ids, e.stderr, func(id string) error { return c.Delete(ctx, pk, id) })
		}
	},
}

// eachID calls f for each id, reports a missing document on stderr and
// goes on, and stops at any other error.
func eachID(ids []string, stderr io.Writer, f func(id string) error) error {
	missing := 0
	for _, id := range ids {
		err := f(id)
		switch {
		case errors.Is(err, ttldb.ErrNotFound):
			fmt.Fprintf(stderr, "ID %q: not found (absent, or expired)\n", id)
			missing++
		case err != nil:
			return fmt.Errorf("ID %q: %w", id, err)
		}
	}
	if missing > 0 {
		return fmt.Errorf("%d of %d documents not found", missing, len(ids))
	}
	return nil
}

var putCmd = &command{
	name:    "put",
	summary: "write one JSON document (upsert), from an argument or stdin",
	usage: `[flags] DIR|URL [DOCUMENT]

Writes one document, given as JSON text in the argument or, without it, on
stdin (a UTF-8 byte order mark at its start is skipped; more than 2 MiB
and 64 KiB is refused unread); its id and partition key are its own
members. It replaces the
document with that key (upsert; --create refuses to). The document's own
ttl applies, counted from this write. Prints the stored document with its
_ts and _etag. A directory that does not exist becomes a new collection
with --collection and --partition-key.`,
	setup: func(fs *flag.FlagSet) func(context.Context, env, []string) error {
		var t target
		t.flags(fs, true)
		create := fs.Bool("create", false, "refuse to replace a live document with the same key (ErrConflict)")
		return func(ctx context.Context, e env, args []string) (err error) {
			if err := needArgs(args, 1, 2, "DIR|URL [DOCUMENT]"); err != nil {
				return err
			}
			var doc []byte
			from := "DOCUMENT"
			if len(args) == 2 {
				doc = []byte(args[1])
			} else {
				from = "stdin"
				if doc, err = io.ReadAll(io.LimitReader(e.stdin, maxLine+1)); err != nil {
					return fmt.Errorf("reading stdin: %w", err)
				}
				if len(doc) > maxLine {
					return fmt.Errorf("stdin: longer than %d bytes, which no document is (at most %d bytes, R10): the rest was not read: %w", maxLine, ttldb.MaxDocumentSize, ttldb.ErrTooLarge)
				}
				doc = bytes.TrimPrefix(doc, utf8BOM)
			}
			if !json.Valid(doc) {
				return fmt.Errorf("%s: not JSON text: %.80q", from, doc)
			}
			c, err := t.open(ctx, e.stderr, args[0], ttldb.Options{})
			if err != nil {
				return err
			}
			defer closeInto(c, &err)
			write := c.UpsertJSON
			if *create {
				write = func(ctx context.Context, doc []byte, _ ...ttldb.WriteOption) (ttldb.Document, error) {
					return c.CreateJSON(ctx, doc)
				}
			}
			d, err := write(ctx, doc)
			if err != nil {
				return fmt.Errorf("%s: %w", from, err)
			}
			_, err = e.stdout.Write(append(d.AppendJSON(nil), '\n'))
			return err
		}
	},
}
