// Package ttldb keeps JSON documents that expire, inside a Go process, with
// the time-to-live model of Azure Cosmos DB.
//
// # Collections and documents
//
// A Collection holds JSON objects. Each has a string "id" and, at the
// collection's partition-key path ("/customerId", "/tenant/id"), a partition
// key; (partition key, id) is unique. Every write stamps two system
// properties: "_ts", the Unix second of the write, and "_etag", a value that
// changes on every write.
//
//	c, err := ttldb.NewCollection("orders", "/customerId", &ttldb.Options{
//		DefaultTTL: ttldb.TTLSeconds(90 * 24 * 3600), // 90 days
//	})
//	...
//	defer c.Close()
//	doc, err := c.Create([]byte(`{"id":"o1","customerId":"c1","ttl":2592000}`))
//	doc, err = c.Get(ttldb.StringKey("c1"), "o1")
//
// # Time to live
//
// The collection's DefaultTTL has three states (R1): off (TTLOff, the zero
// value): nothing expires; -1 (TTLNoDefault): documents expire only when
// their own "ttl" says so; n seconds (TTLSeconds): documents expire n
// seconds after their last write. A document's own "ttl" (R2) is absent or
// null (inherit), -1 (never) or m seconds. The effective TTL is (R3):
//
//	                 | DefaultTTL off | DefaultTTL -1 | DefaultTTL n
//	ttl absent/null  | never          | never         | after n
//	ttl -1           | never          | never         | never
//	ttl m            | never          | after m       | after m
//
// A document with effective TTL t is expired from the second _ts + t (R4):
// from that instant Get, Replace, Touch and Delete report ErrNotFound,
// Create succeeds, Upsert creates, and listings and counts leave it out,
// even before it is physically deleted. Any write restarts the countdown;
// Touch is a write that changes nothing else, for sliding expiry (R6).
// SetDefaultTTL applies to every document at once, in O(1), and a document
// that had expired stays gone whatever the new setting (R7). TTL needs
// IndexingConsistent (R8). The collection's "now" never goes backward, so a
// wall clock stepping back brings nothing back.
//
// # Deletion
//
// A sweeper goroutine, started by NewCollection and stopped by Close, sleeps
// until the next document expires and deletes expired documents in batches
// of Options.SweepBatch documents and at most about MaxSweepHold (100 µs),
// releasing the lock between batches, so no other call waits for more than
// one batch (R5). It does nothing while TTL is off.
// Set Options.ManualSweep to run Sweep yourself instead.
//
// # Reading many documents
//
// List returns a page of a Query, with a continuation token for the next;
// All iterates over one snapshot; Count counts. All three work on a
// copy-on-write snapshot and hold no lock while they run, so a long listing
// never blocks writers.
//
// # Errors
//
// Every error wraps one of the sentinels in errors.go (ErrNotFound,
// ErrConflict, ErrPreconditionFailed, ErrInvalidTTL, ...): match them with
// errors.Is. The message names the value at fault and the rule it breaks. A
// rejected call changes nothing.
//
// # Concurrency
//
// Every method of Collection is safe for concurrent use. Documents are
// immutable values: a Document stays valid, unchanged, after later writes
// and after Close.
package ttldb
