package engine

import "context"

// Snapshot is the collection as of one instant, for reads of many
// documents (R13): listings, queries, cursors. It sees every write made
// before that instant and none after, blocks no writer, and holds what it
// needs until Release. Its reads look at their context every few hundred
// documents and stop with an error wrapping its error; a read that finds
// the engine closed under it stops with ErrClosed.
type Snapshot interface {
	// Indexes returns the paths of the secondary indexes the snapshot
	// reads: those of the paths asked for that the collection had.
	Indexes() []string

	// Scan calls fn with the documents whose key starts with prefix, in
	// key order, after the key after when resume is set, until fn returns
	// false. It steps over the documents expired as of the instant the
	// snapshot judges by. Only a snapshot opened with keys scans.
	Scan(ctx context.Context, prefix, after string, resume bool, fn func(*Doc) bool) error

	// Index calls fn with the items of the index on path whose value keys
	// lie in the ranges, in order, descending if desc, until fn returns
	// false. An item's key is the value key followed by the document's
	// key. With seek it starts at the item of that key, excluded, going
	// on in the direction read. fn gets the document as of the snapshot,
	// expired or not, and the item's key, valid until fn returns.
	Index(ctx context.Context, path string, ranges []Range, desc bool, seek string, fn func(d *Doc, item string) bool) error

	// Count returns how many items of the index on path lie in the
	// ranges, counting up to most: a planner's estimate, so an engine that
	// cannot count (its server failing, ctx ended) returns most, and the
	// read that follows reports the error.
	Count(ctx context.Context, path string, ranges []Range, most int) int

	// Expired reports whether d had expired at the instant the snapshot
	// judges by: its opening, or its last Judge (R4).
	Expired(d *Doc) bool

	// Judge makes the snapshot judge expiry as of now, for a cursor's
	// later pages (R4).
	Judge()

	// Release ends the snapshot. It is called once.
	Release()
}

// Range is a range of value keys of a secondary index: From included, To
// excluded, nil To meaning no end. A value key is the sort key of a JSON
// value in the query language's order (R13), as package ttldb encodes it.
type Range struct{ From, To []byte }
