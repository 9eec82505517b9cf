package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ttldb/ttldb"
)

// batcher writes load's documents: consecutive documents of one partition
// key (a dump's order: by partition key, then id) go in one transactional
// batch of up to ttldb.MaxBatchOperations, one group in a directory's log
// and one transaction on a server (on PostgreSQL, some 100 times fewer
// round trips). A batch refused because of one of its documents (a
// *ttldb.BatchError) is written again a document at a time, so that the
// result, and the line an error names, are those of writing each line
// alone: the batch is only a way to go faster. A batch that fails
// otherwise (a commit whose outcome is unknown, an I/O error) stops the
// load, with an error naming its lines.
type batcher struct {
	ctx    context.Context
	c      *ttldb.Collection
	create bool
	segs   []string // the partition-key path's segments
	p      *progress

	pk    ttldb.PartitionKey
	docs  [][]byte
	lines []int // docs[i] is stdin's line lines[i]
	n     int   // the documents stored
}

func newBatcher(ctx context.Context, c *ttldb.Collection, create bool, p *progress) *batcher {
	return &batcher{ctx: ctx, c: c, create: create, p: p, segs: strings.Split(strings.TrimPrefix(c.PartitionKeyPath(), "/"), "/")}
}

// add writes doc, stdin's line no, or keeps it for the batch of its
// partition key.
func (b *batcher) add(no int, doc []byte) error {
	pk, ok := partitionKey(doc, b.segs)
	if len(b.docs) > 0 && (!ok || pk != b.pk || len(b.docs) == ttldb.MaxBatchOperations) {
		if err := b.flush(); err != nil {
			return err
		}
	}
	if !ok { // the engine will say what is wrong with it, or store it
		return b.one(no, doc)
	}
	b.pk = pk
	b.docs = append(b.docs, doc)
	b.lines = append(b.lines, no)
	return nil
}

// flush writes the documents kept.
func (b *batcher) flush() error {
	docs, lines := b.docs, b.lines
	b.docs, b.lines = b.docs[:0], b.lines[:0]
	switch len(docs) {
	case 0:
		return nil
	case 1:
		return b.one(lines[0], docs[0])
	}
	bt := ttldb.NewBatch(b.pk)
	for _, d := range docs {
		if b.create {
			bt.Create(d)
		} else {
			bt.Upsert(d)
		}
	}
	_, err := b.c.ExecuteBatch(b.ctx, bt)
	switch {
	case err == nil:
		b.n += len(docs)
		b.p.add(len(docs))
		return nil
	case b.ctx.Err() != nil:
		return err
	case !refusedInput(err):
		// Not a refusal of a document, which changed nothing: a commit
		// whose outcome is unknown, a failing disk. Writing the lines
		// again could write twice what was committed, or go on where the
		// engine is failing.
		return fmt.Errorf("stdin lines %d to %d, written as one batch of %d documents, failed not because of a document (all of them may be stored, or none: get or query them to know): %w", lines[0], lines[len(lines)-1], len(docs), err)
	}
	for i, d := range docs {
		if err := b.one(lines[i], d); err != nil {
			return err
		}
	}
	return nil
}

// refusedInput reports whether err, a batch's, is the refusal of one of
// its documents, or of their partition key, which the API checks before
// the engine writes anything: the batch changed nothing, and writing its
// documents alone finds the line at fault.
func refusedInput(err error) bool {
	var be *ttldb.BatchError
	return errors.As(err, &be) || errors.Is(err, ttldb.ErrInvalidPartitionKey)
}

// one writes a document alone.
func (b *batcher) one(no int, doc []byte) error {
	var err error
	if b.create {
		_, err = b.c.CreateJSON(b.ctx, doc)
	} else {
		_, err = b.c.UpsertJSON(b.ctx, doc)
	}
	if err != nil {
		return fmt.Errorf("stdin line %d: %w", no, err)
	}
	b.n++
	b.p.add(1)
	return nil
}

// partitionKey returns the value at the path segs of the JSON object doc,
// or none when the path is absent; ok is false when doc is not an object,
// or the value is not one a partition key can be (the engine then refuses
// the document, with its own message).
func partitionKey(doc []byte, segs []string) (pk ttldb.PartitionKey, ok bool) {
	if pk, ok, sure := quickKey(doc, segs); sure {
		return pk, ok
	}
	return decodeKey(doc, segs)
}

// decodeKey is partitionKey with encoding/json: exact, and some 5µs a
// document.
func decodeKey(doc []byte, segs []string) (pk ttldb.PartitionKey, ok bool) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	for i, seg := range segs {
		if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
			return pk, i > 0 && err == nil // a path through a non-object: none
		}
		found := false
		for d.More() {
			tok, err := d.Token()
			if err != nil {
				return pk, false
			}
			if k, _ := tok.(string); k == seg {
				found = true
				break
			}
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return pk, false
			}
		}
		if !found {
			return ttldb.NoPartitionKey(), true
		}
	}
	var v any
	if err := d.Decode(&v); err != nil {
		return pk, false
	}
	pk, err := ttldb.PartitionKeyOf(v)
	return pk, err == nil
}

// quickKey is partitionKey without allocating, for the common documents:
// member names without escapes, and a key that is a string without
// escapes, a number, true, false or null, in valid UTF-8 (encoding/json
// reads an invalid byte as U+FFFD). sure is false when it cannot
// tell, and decodeKey then does. A key it gets wrong would only make a
// batch fail and its documents be written one at a time.
func quickKey(doc []byte, segs []string) (pk ttldb.PartitionKey, ok, sure bool) {
	i := 0
	for _, seg := range segs {
		i = skipSpace(doc, i)
		if i >= len(doc) || doc[i] != '{' {
			return pk, false, false
		}
		i++
		found := false
		for !found {
			i = skipSpace(doc, i)
			if i < len(doc) && doc[i] == '}' {
				return ttldb.NoPartitionKey(), true, true
			}
			if i >= len(doc) || doc[i] != '"' {
				return pk, false, false
			}
			end := bytes.IndexByte(doc[i+1:], '"')
			if end < 0 {
				return pk, false, false
			}
			name := doc[i+1 : i+1+end]
			if bytes.IndexByte(name, '\\') >= 0 || !utf8.Valid(name) { // escapes, or bytes a decoder replaces
				return pk, false, false
			}
			i = skipSpace(doc, i+end+2)
			if i >= len(doc) || doc[i] != ':' {
				return pk, false, false
			}
			i = skipSpace(doc, i+1)
			if string(name) == seg {
				found = true
				break
			}
			if i = skipValue(doc, i); i < 0 {
				return pk, false, false
			}
			i = skipSpace(doc, i)
			if i < len(doc) && doc[i] == ',' {
				i++
			}
		}
	}
	end := skipValue(doc, i)
	if end <= i {
		return pk, false, false
	}
	v := doc[i:end]
	switch {
	case string(v) == "null":
		return ttldb.NullKey(), true, true
	case string(v) == "true":
		return ttldb.BoolKey(true), true, true
	case string(v) == "false":
		return ttldb.BoolKey(false), true, true
	case v[0] == '"' && bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v):
		return ttldb.StringKey(string(v[1 : len(v)-1])), true, true
	case v[0] == '-' || '0' <= v[0] && v[0] <= '9':
		f, err := strconv.ParseFloat(string(v), 64)
		return ttldb.NumberKey(f), err == nil, err == nil
	}
	return pk, false, false
}

func skipSpace(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\n' || doc[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index after the JSON value at doc[i], or -1.
func skipValue(doc []byte, i int) int {
	if i >= len(doc) {
		return -1
	}
	depth := 0
	for ; i < len(doc); i++ {
		switch c := doc[i]; c {
		case '"':
			for i++; i < len(doc) && doc[i] != '"'; i++ {
				if doc[i] == '\\' {
					i++
				}
			}
			if i >= len(doc) {
				return -1
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return i // the end of the enclosing object: a scalar ended
			}
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return i
			}
		}
	}
	if depth == 0 {
		return i
	}
	return -1
}
