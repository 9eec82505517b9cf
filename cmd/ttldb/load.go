package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ttldb/ttldb"
)

var loadCmd = &command{
	name:    "load",
	summary: "write NDJSON documents from stdin (upsert); _ts is restamped",
	usage: `[flags] DIR|URL < in.ndjson

Writes the documents of stdin, one JSON object a line (blank lines are
skipped), as 'ttldb dump' and Cosmos DB's export tools write them. Each
replaces the document with its key (upsert; --create refuses to).
Consecutive documents of one partition key, as a dump has them, are
written in transactional batches of up to 100; the result is that of
writing each line alone, and an error names its line: a batch refused
because of a document is written again line by line, up to the line at
fault. A batch that fails otherwise (a lost connection, whose commit may
or may not have happened; an I/O error) stops the load, naming the
batch's first and last lines: those lines are all stored or none is.

A line longer than a document can be (2 MiB, with 64 KiB for its system
properties and white space) is refused by its number, unread beyond that,
and stops the load as a refused document does. A UTF-8 byte order mark at
the start of stdin, which Windows tools write, is skipped.

_ts is restamped: every document gets the time of the load as its _ts, and
a new _etag, as any write does (R4, R6). So a document's TTL counts again
from the load: a document that had 10 minutes left when it was dumped
lives its whole ttl (or the DefaultTTL) again from the load. ttldb's API
has no way to write a document with a _ts of the past, so there is no
--keep-ts. The system properties of the input (_ts, _etag, and Cosmos DB's
_rid, _self, _attachments) are not stored.

A directory that does not exist becomes a new collection with
--collection and --partition-key. A progress line with the rate goes to
stderr when stderr is a terminal, or with --progress. Interrupted (Ctrl-C),
it stops after the batch it is writing; the documents before are stored. A
load into a directory ends by compacting it (a snapshot of every document),
so that the next open is quick.`,
	setup: func(fs *flag.FlagSet) func(context.Context, env, []string) error {
		var t target
		t.flags(fs, true)
		force := fs.Bool("progress", false, "show progress on stderr even when it is not a terminal")
		create := fs.Bool("create", false, "refuse to replace a live document with the same key: stop at the first such line (ErrConflict)")
		return func(ctx context.Context, e env, args []string) (err error) {
			if err := needArgs(args, 1, 1, "DIR|URL"); err != nil {
				return err
			}
			c, err := t.open(ctx, e.stderr, args[0], ttldb.Options{})
			if err != nil {
				return err
			}
			defer closeInto(c, &err)
			p := newProgress(e.stderr, *force, "loaded")
			b := newBatcher(ctx, c, *create, p)
			err = load(ctx, e.stdin, b)
			p.done()
			if err != nil {
				return fmt.Errorf("%w (%d documents loaded before it)", err, b.n)
			}
			// A snapshot, so that the next open reads it rather than
			// replaying a log of every document loaded (1,000,000: 2 s
			// rather than 6 here); PostgreSQL's engine does nothing.
			if err := c.Compact(ctx); err != nil {
				return fmt.Errorf("%d documents loaded; compacting after them: %w", b.n, err)
			}
			fmt.Fprintf(e.stderr, "loaded %d documents\n", b.n)
			return nil
		}
	},
}

// chunk is what load's reader hands over: lines, or the error that ended
// the input.
type chunk struct {
	lines [][]byte
	first int // the number of the first line, from 1
	err   error
}

// load writes each line of r with b. A goroutine reads r, so that an
// interrupt is seen while the input waits.
func load(ctx context.Context, r io.Reader, b *batcher) error {
	ch := make(chan chunk, 4)
	stop := make(chan struct{})
	defer close(stop)
	go readLines(r, ch, stop)
	for {
		var c chunk
		select {
		case <-ctx.Done():
			return ctx.Err()
		case c = <-ch:
		}
		for i, line := range c.lines {
			if err := ctx.Err(); err != nil {
				return err
			}
			no := c.first + i
			if no == 1 {
				line = bytes.TrimPrefix(line, utf8BOM)
			}
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			doc, err := withoutCosmos(line)
			if err != nil {
				if ferr := b.flush(); ferr != nil {
					return ferr
				}
				return fmt.Errorf("stdin line %d: %v: %.80q", no, err, line)
			}
			if err := b.add(no, doc); err != nil {
				return err
			}
		}
		// What the input gave so far is written before waiting for more.
		if err := b.flush(); err != nil {
			return err
		}
		var long *longLineError
		switch {
		case c.err == io.EOF:
			return nil
		case errors.As(c.err, &long):
			return c.err
		case c.err != nil:
			return fmt.Errorf("reading stdin: %w", c.err)
		}
	}
}

// utf8BOM is the byte order mark that Windows tools write at the start of
// a UTF-8 text; load skips it.
var utf8BOM = []byte("\ufeff")

// readLines sends r's lines to ch, 256 at a time, and then the error that
// ended them (io.EOF at the end), until stop is closed.
func readLines(r io.Reader, ch chan<- chunk, stop <-chan struct{}) {
	br := bufio.NewReaderSize(r, 1<<16)
	c := chunk{first: 1}
	send := func() bool {
		select {
		case ch <- c:
			c = chunk{first: c.first + len(c.lines)}
			return true
		case <-stop:
			return false
		}
	}
	for {
		line, err := readLine(br)
		if errors.Is(err, errLongLine) {
			err = &longLineError{no: c.first + len(c.lines)}
		}
		if len(line) > 0 {
			c.lines = append(c.lines, line)
		}
		if err != nil {
			c.err = err
			send()
			return
		}
		if len(c.lines) == 256 && !send() {
			return
		}
	}
}

// maxLine is the longest line load reads, without its end of line: a
// document of ttldb.MaxDocumentSize bytes, and room for the system
// properties a dump writes (_ts, _etag; Cosmos DB's _rid, _self,
// _attachments) and some white space.
const maxLine = ttldb.MaxDocumentSize + 64<<10

// errLongLine is readLine's refusal of a line longer than maxLine.
var errLongLine = errors.New("line too long")

// readLine returns the next line of br, with its '\n' (none at the end of
// the input), and the error that ended it; errLongLine, without the line,
// when it holds more than maxLine bytes, of which it reads no more than
// that (and br's buffer).
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(bytes.TrimSuffix(frag, []byte{'\n'})) > maxLine {
			return nil, errLongLine
		}
		line = append(line, frag...) // a copy: br reuses frag's bytes
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// longLineError is the refusal of stdin's line no, longer than maxLine.
type longLineError struct{ no int }

func (e *longLineError) Error() string {
	return fmt.Sprintf("stdin line %d: longer than %d bytes, which no document is (at most %d bytes, R10, and its system properties): the rest of the line was not read", e.no, maxLine, ttldb.MaxDocumentSize)
}

// Unwrap returns ttldb.ErrTooLarge.
func (e *longLineError) Unwrap() error { return ttldb.ErrTooLarge }

// cosmosOnly are Cosmos DB's system properties that ttldb does not have;
// an export's documents carry them, and load drops them. (_ts and _etag
// the engine replaces on every write.)
var cosmosOnly = []string{`"_rid"`, `"_self"`, `"_attachments"`}

// withoutCosmos returns the document without Cosmos DB's system
// properties, in the order of its other members; the line itself when it
// has none of them.
func withoutCosmos(line []byte) ([]byte, error) {
	found := false
	for _, k := range cosmosOnly {
		if bytes.Contains(line, []byte(k)) {
			found = true
		}
	}
	if !found {
		return line, nil
	}
	d := json.NewDecoder(bytes.NewReader(line))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	out := []byte{'{'}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		if k == "_rid" || k == "_self" || k == "_attachments" {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		kj, _ := json.Marshal(k)
		out = append(append(append(out, kj...), ':'), v...)
	}
	// The object must close, and nothing may follow it: a line cut short
	// after a member, or two objects on one line, is refused, not stored
	// in part.
	if tok, err := d.Token(); err != nil || tok != json.Delim('}') {
		return nil, errors.New("not a whole JSON object: it ends before its closing }")
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value on the line")
	}
	return append(out, '}'), nil
}
