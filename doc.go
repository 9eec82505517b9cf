// Package ttldb keeps JSON documents that expire, inside a Go process, with
// the time-to-live model of Azure Cosmos DB.
//
// The behaviour is a contract of numbered rules, R1 to R17, in
// [the specification] (docs/SPEC.md in the repository). R1-R16 hold in
// the process (in memory or on a directory) and on PostgreSQL (module
// github.com/ttldb/ttldb/postgres, shared by many processes), R13 for
// nearly all of Cosmos DB's query language (docs/SPEC.md lists what is
// still refused), R17 for the operator's tools in part (the ttldb command,
// backup, restore and verify). Doc comments and error messages name the
// rule they follow, as in "(R10)", and each rule is checked by tests that
// name it.
//
// # Collections and documents
//
// A [Collection] holds JSON objects. Each has a string "id" and, at the
// collection's partition-key path ("/customerId", "/tenant/id"), a partition
// key; (partition key, id) is unique. Every write stamps two system
// properties: "_ts", the Unix second of the write, and "_etag", a value that
// changes on every write (R10).
//
//	c, err := ttldb.NewCollection("orders", "/customerId", &ttldb.Options{
//		DefaultTTL: ttldb.TTLDuration(90 * 24 * time.Hour),
//	})
//	if err != nil {
//		return err
//	}
//	defer c.Close()
//	if _, err := c.Create(ctx, []byte(`{"id":"o1","customerId":"c1","ttl":2592000}`)); err != nil {
//		return err // ErrConflict, ErrInvalidTTL, ...
//	}
//	doc, err := c.Get(ctx, ttldb.StringKey("c1"), "o1")
//	if errors.Is(err, ttldb.ErrNotFound) {
//		// absent, or expired
//	}
//
// ctx is the [context.Context] every call that can wait takes first (R16):
// a call whose context is done stops and returns its error (see
// [Collection]).
//
// A write takes JSON text ([]byte, [encoding/json.RawMessage]) or any value
// that encoding/json encodes to an object; [Collection.UpsertJSON] and its
// siblings take JSON text without converting it to an interface, and
// allocate only the stored document. A [Document] is the stored,
// immutable result: [Document.Body] is the text as written, without
// copying; [Document.Decode] decodes it. For documents that are Go structs,
// [NewTyped] gives a [Typed] view whose methods take and return values of
// the struct's type.
//
// # Time to live
//
// The collection's [DefaultTTL] has three states (R1): off ([TTLOff], the
// zero value): nothing expires; -1 ([TTLNoDefault]): documents expire only
// when their own "ttl" says so; n seconds ([TTLSeconds], [TTLDuration]):
// documents expire n seconds after their last write. A document's own
// "ttl" (R2) is absent or null (inherit), -1 (never) or m seconds. The
// effective TTL is (R3):
//
//	                 | DefaultTTL off | DefaultTTL -1 | DefaultTTL n
//	ttl absent/null  | never          | never         | after n
//	ttl -1           | never          | never         | never
//	ttl m            | never          | after m       | after m
//
// A document with effective TTL t is expired from the second _ts + t (R4):
// from that instant Get, Replace, Touch and Delete report [ErrNotFound],
// Create succeeds, Upsert creates, and listings and counts leave it out,
// even before it is physically deleted. Any write restarts the countdown;
// [Collection.Touch] is a write that changes nothing else, for sliding
// expiry (R6). [Collection.SetDefaultTTL] applies to every document at
// once, in O(1), and a document that had expired stays gone whatever the
// new setting (R7). TTL needs [IndexingConsistent] (R8). The collection's
// "now" never goes backward, so a wall clock stepping back brings nothing
// back.
//
// # Deletion
//
// A sweeper goroutine, started by [NewCollection] and stopped by
// [Collection.Close], sleeps until the next document expires and deletes
// expired documents in batches of [Options.SweepBatch] documents and at
// most about [MaxSweepHold], releasing the lock between batches, so no
// other call waits for more than one batch (R5). It does nothing while TTL
// is off. Set [Options.ManualSweep] to run [Collection.Sweep] yourself
// instead, as with a simulated clock.
//
// # Reading many documents
//
// [Collection.List] returns a page of a [Query], with a continuation token
// for the next; [Collection.All] iterates over one snapshot;
// [Collection.Count] counts. All three work on a copy-on-write snapshot and
// hold no lock while they run, so a long listing never blocks writers. A
// continuation token is accepted only by the collection and the query that
// issued it.
//
// # Queries
//
// Query runs a query in Cosmos DB's SQL (R13), with parameters, on the
// stored JSON, from a snapshot; a page's Continuation resumes it, and a
// [Cursor] reads every page from one snapshot:
//
//	page, err := c.Query(ctx, ttldb.SQL{
//		Text:   `SELECT c.id, c.total FROM c WHERE c.status = @s ORDER BY c.total DESC OFFSET 0 LIMIT 20`,
//		Params: map[string]any{"s": "open"},
//	})
//
// The language, listed whole (a test checks these lists against the
// parser's tables):
//
//   - Clauses: SELECT, DISTINCT, TOP, VALUE, FROM (which a query may
//     leave out: SELECT VALUE 1; FROM t IN c.tags iterates), JOIN (FROM c
//     JOIN t IN c.tags: the product of each document with an array's
//     elements), AS, WHERE, GROUP BY, ORDER BY, ASC, DESC (ORDER BY on
//     the document's paths, and on VectorDistance(...), the most similar
//     first), OFFSET, LIMIT, subqueries EXISTS(SELECT ...), ARRAY(SELECT
//     ...) and (SELECT ...), correlated with the outer row, also as a
//     JOIN's source (JOIN (SELECT VALUE t FROM t IN c.tags WHERE ...) t,
//     JOIN m IN (SELECT VALUE [...]))
//   - Operators: =, !=, <>, <, <=, >, >=, AND, OR, NOT, IN, BETWEEN,
//     LIKE (with %, _, [a-f], [^a-f] and ESCAPE), +, -, *, /, %, ||, &,
//     |, ^, ~, <<, >>, >>>, ?:, ??
//   - Literals: TRUE, FALSE, NULL, UNDEFINED, numbers, strings in single or
//     double quotes, arrays and objects of any expressions ({name: c.name}),
//     @parameters
//   - Functions: (type checks and conditionals) IS_DEFINED, IS_NULL,
//     IS_BOOL, IS_NUMBER, IS_STRING, IS_ARRAY, IS_OBJECT, IS_PRIMITIVE,
//     IS_FINITE_NUMBER, IS_INTEGER, IIF, CHOOSE, (mathematics) ABS,
//     ACOS, ASIN, ATAN, ATN2, CEILING, COS, COT, DEGREES, EXP, FLOOR,
//     LOG, LOG10, NUMBERBIN, PI, POWER, RADIANS, RAND, ROUND, SIGN,
//     SIN, SQRT, SQUARE, TAN, TRUNC, (64-bit integers) INTADD, INTSUB,
//     INTMUL, INTDIV, INTMOD, INTBITAND, INTBITOR, INTBITXOR,
//     INTBITNOT, INTBITLEFTSHIFT, INTBITRIGHTSHIFT, (strings) CONCAT,
//     CONTAINS, ENDSWITH, INDEX_OF, LEFT, LENGTH, LOWER, LTRIM,
//     REGEXMATCH, REPLACE, REPLICATE, REVERSE, RIGHT, RTRIM,
//     STARTSWITH, STRINGEQUALS, STRINGJOIN, STRINGSPLIT, SUBSTRING,
//     TRIM, UPPER, (conversions) TOSTRING, STRINGTOARRAY,
//     STRINGTOBOOLEAN, STRINGTONULL, STRINGTONUMBER, STRINGTOOBJECT,
//     (arrays and sets) ARRAY_CONCAT, ARRAY_CONTAINS,
//     ARRAY_CONTAINS_ALL, ARRAY_CONTAINS_ANY, ARRAY_LENGTH,
//     ARRAY_SLICE, OBJECTTOARRAY, SETINTERSECT, SETUNION, (date and
//     time) GETCURRENTDATETIME, GETCURRENTDATETIMESTATIC,
//     GETCURRENTTICKS, GETCURRENTTICKSSTATIC, GETCURRENTTIMESTAMP,
//     GETCURRENTTIMESTAMPSTATIC, DATETIMEADD, DATETIMEBIN, DATETIMEDIFF,
//     DATETIMEFROMPARTS, DATETIMEPART, DATETIMETOTICKS,
//     DATETIMETOTIMESTAMP, TICKSTODATETIME, TIMESTAMPTODATETIME,
//     (spatial) ST_AREA, ST_DISTANCE, ST_INTERSECTS, ST_ISVALID,
//     ST_ISVALIDDETAILED, ST_WITHIN, (vectors) VECTORDISTANCE
//   - Aggregate: COUNT, SUM, AVG, MIN, MAX, in any expression of the
//     SELECT clause (SELECT VALUE {n: COUNT(1), s: SUM(c.x)}), beside
//     constants and, with GROUP BY, its expressions (SELECT c.team,
//     COUNT(1) AS n FROM c GROUP BY c.team), over a document's rows or a
//     JOIN's, and in a subquery's SELECT clause over its rows
//   - Refused as not supported, with [ErrInvalidQuery]: subqueries with
//     GROUP BY or a star select, a subquery beside
//     aggregates or GROUP BY outside their arguments, ORDER BY c[@p],
//     other functions, user-defined functions; refused as the service
//     refuses them, with its reasons: ORDER BY on an expression other
//     than a path or VectorDistance, on a JOIN's alias, or with GROUP BY,
//     ORDER BY or OFFSET in a subquery, subqueries over a container
//     elsewhere, a star select with other items, block comments
//
// Paths are c.a.b, c["odd key"] and c.tags[0], and a step may be
// computed by any expression (c[@p], c[CONCAT("a", "b")]: checked on each
// row, never served by an index); -- starts a comment that runs to the end
// of the line. A subquery in FROM with DISTINCT, TOP or an aggregate
// (SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE c.x FROM c) x) reads
// every document of the query's scope at once, for each page: at most
// [query.MaxJoinRows] of them, with the rows of its joins, and
// [query.MaxWholeBytes]. Cosmos's meaning holds:
// undefined is not null, values of different types never compare, and
// ORDER BY sorts undefined < null < false < true < numbers < strings.
// JOIN gives one document at most [query.MaxJoinRows] rows (100,000, the
// rows of each JOIN and of every subquery evaluated for it counted), and
// refuses a query that would make more with [ErrInvalidQuery], as it does
// a subquery whose results pass [query.MaxSubqueryBytes] (2 MiB); DISTINCT holds every distinct result of the
// query in memory, as GROUP BY does its groups.
//
// Secondary indexes on JSON paths (Options.Indexes, CreateIndex) serve
// equalities, ranges and ORDER BY; a query's results are the same with or
// without them, and page.Plan names the index it read. Expired documents
// never appear, through an index or not (R4).
//
// # Change feed
//
// Every accepted change gets a log sequence number (LSN), 1, 2, 3 ... in
// the order changes take effect: creates, replaces (Touch and Upsert
// included) and deletes, the sweeper's too (R11). [Collection.ReadFeed]
// reads a page of the feed and [Collection.WatchFeed] iterates over it,
// waiting for new changes until its context is done, for a consumer
// goroutine. Two modes, as in Cosmos DB:
//
//   - [LatestVersion]: each live document once, at its latest version, in
//     the order of its last write; a continuation resumes with what was
//     written since. Deleted and expired documents never appear.
//   - [AllVersionsAndDeletes]: every change, with the document as written,
//     or the id and partition key of a delete, and TimeToLiveExpired for
//     the deletes of expired documents: an expiry log. Its records are kept
//     within [FeedOptions] (64 MiB by default); a reader that falls behind
//     them gets [ErrFeedTrimmed], never a silent gap.
//
// A consumer that logs every expiry:
//
//	for ch, err := range c.WatchFeed(ctx, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes}) {
//		if err != nil {
//			return err // ctx.Err(), ErrClosed, ErrFeedTrimmed
//		}
//		if ch.Op == ttldb.OpDelete && ch.TimeToLiveExpired {
//			log.Printf("%s expired", ch.ID)
//		}
//	}
//
// A document's _etag and its LSN are tied ([Document.LSN]). Readers never
// delay writers: no callback runs under a lock, and a waiting or stopped
// reader holds none.
//
// # Patch and batch
//
// [Collection.Patch] changes members of a document in place, all of its
// operations or none, as Cosmos DB's partial document update does (R14):
//
//	doc, err := c.Patch(ctx, pk, "r-410", []ttldb.PatchOp{
//		ttldb.PatchSet("/price", 355.45),
//		ttldb.PatchIncrement("/inventory/quantity", -1),
//		ttldb.PatchAdd("/tags/-", "featured"),
//	})
//
// Paths are JSON Pointers; the id, the partition key, _ts and _etag cannot
// be patched. A patch is a write: a new _ts restarts the countdown, and a
// patched /ttl is checked as any ttl. [ParsePatch] reads Cosmos DB's JSON
// form of the operations, [{"op":"incr","path":"/n","value":1}], as a
// service receives it, and refuses an unknown op or member with
// [ErrInvalidPatch].
//
// A [Batch] gathers up to [MaxBatchOperations] creates, replaces, upserts,
// patches, deletes and reads of one partition key, which
// [Collection.ExecuteBatch] applies in order, each seeing the ones before:
// all of them, with one _ts, seen whole by every reader, or none, with a
// [*BatchError] that names the operation that failed and wraps its
// sentinel.
//
// # Durability
//
// A collection lives in memory unless [Options.Dir] names a directory: then
// it also keeps a log of its changes and snapshots there, and a later
// [NewCollection] on the same directory finds everything as it was (R12):
// the documents with their _ts, _etag and ttl, the DefaultTTL and R7's
// cut-offs, the indexing mode, the LSNs. What expired while no process had
// it open is expired at once.
//
//	c, err := ttldb.NewCollection("sessions", "/userId", &ttldb.Options{
//		Dir:        "/var/lib/myservice/sessions",
//		DefaultTTL: ttldb.TTLSeconds(1800), // at every open: see Options
//	})
//
// The options of [NewCollection] describe the collection the program
// wants: a reopen applies their DefaultTTL, indexing mode and indexes as
// the setters would, logged, and [Recovery] lists what it changed; a
// different name or partition-key path is refused (see [Options]).
//
// [Open] opens a collection by URL, so that a program changes engine by
// changing one line (R16): "mem:" for one in memory, "file:///abs/path" or
// "file:relative/path" for a durable one, another scheme for the engine
// whose package registered it ([Register]). On a directory that holds a
// collection, Open is for a program that did not make it: it gets the
// stored name, partition-key path and settings, which it must not silently
// change. [Options.Name] and [Options.PartitionKeyPath] are needed only to
// make a collection; DefaultTTL, Indexing and Indexes are those of a
// collection Open makes, and on an existing one zero means "as stored" and
// a value that differs is refused with [ErrInvalidOption] naming the setter
// to call. TTLOff is the zero DefaultTTL, so it asks Open for nothing: to
// turn TTL off, call SetDefaultTTL(ctx, TTLOff()) once it is open.
//
//	c, err := ttldb.Open(ctx, "file:///var/lib/myservice/sessions", nil)
//
// A call that changes the collection returns once its change is written to
// the operating system, so a killed process loses no acknowledged change;
// [Options.Sync] decides what a power failure may lose: [SyncEverySecond]
// (the default) the last second, [SyncAlways] nothing acknowledged
// (concurrent writers share one sync), [SyncNever] what the operating
// system had not written. Reads see a change at once; the change feed only
// once it is durable as the policy says.
//
// Opening a directory cuts a write a crash tore back to the last whole
// change, and says so in [Collection.Recovery]; other damage fails with
// [ErrCorrupt], naming the file and the offset (see [CorruptError]). The
// log is compacted into a snapshot in the background, holding the lock no
// longer than a sweep batch at a time, so the files stay about twice the
// documents' size; [Collection.Compact] does it at once. A directory has
// one user at a time ([ErrLocked]). A write or a sync that fails closes the
// collection ([ErrClosed], wrapping the failure): it never runs ahead of
// its disk.
//
// # Errors
//
// Every error wraps exactly one of the sentinels of errors.go
// ([ErrNotFound], [ErrConflict], [ErrPreconditionFailed], [ErrInvalidTTL],
// ...): match them with [errors.Is]. The message names the value at fault,
// the rule it breaks and, where one is likely, the mistake (a duration in
// nanoseconds given as seconds, an "ID" member where "id" is wanted). A
// rejected call changes nothing, and no input panics.
//
// # Concurrency
//
// Every method of Collection and Typed is safe for concurrent use. A point
// read takes no lock and writes no shared memory, so it waits for no
// writer, listing or sweep, and slows none down (it waits only for a batch
// applying its changes). A write holds the
// collection's lock: an overwrite for O(1), storing the new document in
// place; a create or a delete for O(1) too until the collection's first
// listing, which builds the order of its keys (O(n log n), while writes go
// on), and O(log n) from then on. Listings read a snapshot and hold no
// lock. A batch holds the lock once for all its operations, and
// a point read waits while it applies them. [Options.Now], when set, is called concurrently and must be
// safe for that. Documents are immutable values: a Document stays valid,
// unchanged, after later writes and after Close.
//
// # Layers
//
// The repository reads from the contract down (R16):
//
//   - this package: the API and the rules every engine keeps, validation
//     and errors, the TTL rules, the partition-key encoding, queries, patch,
//     batches, continuation tokens, [Typed]. Every call reaches the engine
//     through the interface of package engine (calls.go: directly, for the
//     in-process engine, so that no argument escapes to the heap);
//   - engine: what an engine implements, [engine.Engine] and
//     [engine.Snapshot], with the types that pass between it and the API
//     (the stored document, writes and batch steps, the feed's pages) and
//     the sentinel errors; [FromEngine] puts the API over any engine;
//   - internal/local: the in-process engine (memory, or memory and a
//     directory), the default and the fastest: the key map, the key order,
//     the expiry buckets and the sweeper, snapshots, the feed's structures,
//     the journal, snapshots on disk and recovery (its doc.go draws them).
//     The API opens it with a Config (collection.go) and reaches it
//     through the engine interface (calling it directly, and asking it
//     whether it is closed); its tests, beside it, drive it through a
//     small stand-in for the API and look inside;
//   - conformance: the suite of the contract, R1-R16, which every engine's
//     tests run (the in-process engine's, in memory and on a directory, in
//     conformance_test.go);
//   - internal/jsonscan (a document's intake: validated and compacted in
//     one pass), internal/jsontext (reading compact JSON in place),
//     internal/query (the query language), internal/patch (a patch on
//     compact JSON), internal/wal (the log's format), internal/vfs (the
//     filesystem, real or in memory): each a machine of its own, with a
//     small interface and its own tests; and internal/ref, independent
//     reference implementations (of patch, of a document's intake) the
//     tests hold the library to;
//   - postgres (a module of its own, with the pgx driver): the PostgreSQL
//     engine, which passes the conformance suite and registers the
//     postgres:// scheme with Open (issue 29);
//   - bench (a module of its own: the benchmarks against the peers, the
//     report, and cmd/compare for a change's cost), examples.
//
// [Open] opens a collection by URL, on the engine its scheme names.
//
// [the specification]: https://github.com/ttldb/ttldb/blob/main/docs/SPEC.md
package ttldb
