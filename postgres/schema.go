package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
)

// SchemaVersion is the version of the tables and functions this package
// makes and reads: the number ttldb_schema holds. Open refuses a server
// whose ttldb_schema holds a larger one, made by a newer ttldb, whose
// tables this code does not know, and upgrades an older one (upgrade.go).
// Version 2 added the secondary indexes' items (ttldb_items_N).
const SchemaVersion = 2

// The DDL lives in PostgreSQL's schema that the connection's search_path
// names first (current_schema()): every statement names its tables and
// functions qualified by it, as {s}, so that a connection whose search_path
// differs later still finds them. Nothing in the DDL comes from a caller:
// {s} is the schema's name, quoted as an identifier, and a collection's
// tables are named from its number, {n}.

// schemaDDL makes version 1 of the schema: what every collection of the
// PostgreSQL schema shares.
const schemaDDL = `
CREATE TABLE {s}.ttldb_schema (
	one     boolean PRIMARY KEY DEFAULT true CHECK (one), -- a single row
	version integer NOT NULL
);

CREATE TABLE {s}.ttldb_collections (
	name         text COLLATE "C" PRIMARY KEY, -- R10's rules, checked by the API
	no           bigint GENERATED ALWAYS AS IDENTITY UNIQUE, -- names the tables
	pk_path      text NOT NULL,
	token_id     bigint NOT NULL, -- engine.Settings.ID: a uint64, as its bits
	etag_base    bigint NOT NULL, -- engine.Settings.ETagBase: a uint64, as its bits
	def_on       boolean NOT NULL, -- R1: DefaultTTL off when false
	def_n        bigint NOT NULL,  -- R1: -1, or 1 to 2^31-1 seconds; 0 when off
	own_cut      bigint NOT NULL DEFAULT -9223372036854775808, -- R7: own ttls expiring at or before it are gone
	inherit_cut  bigint NOT NULL DEFAULT -9223372036854775808, -- R7: inheriting documents of _ts at or before it are gone
	inherit_cuts bigint[] NOT NULL DEFAULT '{}', -- R7: (up_to, ttl) pairs, each cut's setting, for ExpiresAt
	indexing     smallint NOT NULL, -- R8: engine.Indexing
	lsn          bigint NOT NULL DEFAULT 0, -- R11: the last LSN given out
	now_hwm      bigint NOT NULL, -- R4: the highest "now" stored, which now never goes below
	feed         boolean NOT NULL, -- R11: the change feed is kept
	keep_records bigint NOT NULL, -- the feed's retention (R11, R15): 0 for no bound
	keep_bytes   bigint NOT NULL,
	keep_age     bigint NOT NULL, -- seconds
	indexes      text[] NOT NULL DEFAULT '{}', -- R13: secondary index paths, in the order made: those ready
	ix_paths     text[] NOT NULL DEFAULT '{}', -- R13: every index writers keep, ready or being built (items.go)
	ix_ids       bigint[] NOT NULL DEFAULT '{}', -- the number of each, which its items carry
	ix_next      bigint NOT NULL DEFAULT 0,      -- the last number given to an index
	CHECK (def_on AND (def_n = -1 OR def_n BETWEEN 1 AND 2147483647) OR NOT def_on AND def_n = 0),
	CHECK (indexing IN (0, 1)),
	CHECK (indexing = 0 OR NOT def_on), -- R8: mode none allows no TTL
	CHECK (lsn >= 0),
	CHECK (keep_records >= 0 AND keep_bytes >= 0 AND keep_age >= 0)
);

-- ttldb_now is "now" (R4), in Unix seconds: the clock's reading, or the
-- server's when clock is NULL, and never below hwm, the collection's
-- high-water mark. The server's clock is the transaction's start, so that
-- every statement of a transaction (a batch, R14) has one now. A process
-- whose Options.Now is set passes its reading as clock.
CREATE FUNCTION {s}.ttldb_now(clock bigint, hwm bigint) RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT greatest(coalesce(clock, floor(extract(epoch FROM transaction_timestamp()))::bigint), hwm) $$;
`

// collectionDDL makes the tables of collection {n}: its documents and its
// change feed.
//
// A document's key (engine.Doc.Key: the partition-key encoding, then the
// id) is bytes, 0x00 included, and up to about 3.1 KB (R10: a 2 KB
// encoding and a 1023-byte id), beyond what one btree item holds (2704
// bytes): a btree on it refuses the longest keys. So the primary key is
// the key's SHA-256, h, and reads match the key itself too; the order of
// keys (listings, R13) is an index on the first 1024 bytes, which ORDER BY
// that prefix and then the key itself follows. ttl is the Doc's: 0 to
// inherit, -1 never, else seconds; never NULL, so that no predicate on it
// meets SQL's three-valued logic.
//
// LSNs (R11) are given out after a write commits, by the sequencer
// (sequence.go, DESIGN.md): a write takes a seq from the collection's
// sequence ttldb_seq_{n} for each record it makes, under its document's
// row lock, and leaves lsn NULL; a pass numbers the committed records
// without an LSN in seq order, the feed's records and the documents whose
// current version they are (docs.seq = feed.seq). The sequence caches no
// values, so a later write of one document takes a larger seq. Every
// write makes its feed records, the feed kept or not: they are what the
// sequencer numbers. Each nextval reserves a block of 256 seqs (INCREMENT
// BY), of which a write uses the first and a batch one per record, so that
// no other write's record comes between a batch's (batch.go).
const collectionDDL = `
CREATE SEQUENCE {s}.ttldb_seq_{n} INCREMENT BY 256; -- batch.go's seqBlock

CREATE TABLE {s}.ttldb_docs_{n} (
	h      bytea GENERATED ALWAYS AS (sha256(key)) STORED PRIMARY KEY,
	key    bytea NOT NULL,   -- engine.Doc.Key
	pk_end integer NOT NULL, -- engine.Layout: key[:pk_end] is the partition-key encoding
	id_at  integer NOT NULL, -- key[id_at:id_end] the id
	id_end integer NOT NULL,
	body   text NOT NULL,    -- the JSON as the API wrote it, without _ts and _etag
	ts     bigint NOT NULL,  -- _ts
	ttl    integer NOT NULL CHECK (ttl >= -1), -- 0 inherits, -1 never, else seconds (R2)
	seq    bigint NOT NULL DEFAULT nextval('{s}.ttldb_seq_{n}'), -- the write's: its feed record's seq
	lsn    bigint            -- R11: the write's LSN, NULL until sequenced; _etag is etag_base + lsn
);
CREATE INDEX ttldb_docs_{n}_order ON {s}.ttldb_docs_{n} (substring(key FROM 1 FOR 1024));
CREATE INDEX ttldb_docs_{n}_own ON {s}.ttldb_docs_{n} ((ts + ttl)) WHERE ttl > 0;  -- R5, R7
CREATE INDEX ttldb_docs_{n}_inherit ON {s}.ttldb_docs_{n} (ts) WHERE ttl = 0;     -- R5, R7
CREATE INDEX ttldb_docs_{n}_seq ON {s}.ttldb_docs_{n} (seq);                      -- the sequencer's join

CREATE TABLE {s}.ttldb_feed_{n} (
	seq     bigint PRIMARY KEY DEFAULT nextval('{s}.ttldb_seq_{n}'),
	lsn     bigint,          -- R11: NULL until sequenced
	op      smallint NOT NULL CHECK (op BETWEEN 1 AND 3), -- engine.OpCreate, OpReplace, OpDelete
	key     bytea NOT NULL,
	pk_end  integer NOT NULL,
	id_at   integer NOT NULL,
	id_end  integer NOT NULL,
	body    text NOT NULL,   -- the document written, or deleted
	ts      bigint NOT NULL,
	ttl     integer NOT NULL,
	expired boolean NOT NULL DEFAULT false, -- R11: a delete of an expired document
	at      bigint,          -- R11: a delete's _ts, the second of the delete (feed.go); NULL: ts
	prev    bigint,          -- R11: a delete's, the LSN of the version it deleted (feed.go); < 0: this record's LSN + prev, a version of the same commit (batch.go)
	cum     bigint           -- R15: the bytes of the records up to this one, set with lsn (feed.go)
);
CREATE UNIQUE INDEX ttldb_feed_{n}_lsn ON {s}.ttldb_feed_{n} (lsn) WHERE lsn IS NOT NULL;
CREATE INDEX ttldb_feed_{n}_pending ON {s}.ttldb_feed_{n} (seq) WHERE lsn IS NULL;
CREATE INDEX ttldb_docs_{n}_lsn ON {s}.ttldb_docs_{n} (lsn) WHERE lsn IS NOT NULL; -- the latest-version feed (feed.go)
` + itemsDDL

// ddl returns text with {s} replaced by the quoted schema and {n} by the
// collection's number.
func ddl(text, schema string, no int64) string {
	return strings.NewReplacer("{s}", schema, "{n}", strconv.FormatInt(no, 10)).Replace(text)
}

// schemaLock is the key of the advisory lock that makes and adopts the
// tables of a PostgreSQL schema one open at a time: the hash of the
// schema's name, so that opens in different schemas do not wait for each
// other.
const schemaLock = `SELECT pg_advisory_xact_lock(hashtextextended('ttldb ' || $1, 0))`

// useSchema makes the tables and functions of the schema named name (quoted:
// q) in tx, unless they exist, and checks the version they have. Call it
// with the schema's lock held.
//
// Errors: ErrInvalidOption for a version newer than SchemaVersion, made by
// a newer ttldb; ErrCorrupt for a ttldb_schema without a valid version.
func useSchema(ctx context.Context, tx pgx.Tx, name, q string) error {
	var exists bool
	err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, q+".ttldb_schema").Scan(&exists)
	if err != nil {
		return fmt.Errorf("ttldb: looking for table ttldb_schema in PostgreSQL schema %q: %w", name, err)
	}
	if !exists {
		if _, err := tx.Exec(ctx, ddl(schemaDDL, q, 0)); err != nil {
			return fmt.Errorf("ttldb: making ttldb's tables in PostgreSQL schema %q: %w", name, err)
		}
		_, err := tx.Exec(ctx, ddl(`INSERT INTO {s}.ttldb_schema (version) VALUES ($1)`, q, 0), SchemaVersion)
		if err != nil {
			return fmt.Errorf("ttldb: recording the schema's version in PostgreSQL schema %q: %w", name, err)
		}
	}
	var version int64
	err = tx.QueryRow(ctx, ddl(`SELECT version FROM {s}.ttldb_schema`, q, 0)).Scan(&version)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("%w: table %s.ttldb_schema holds no version: it was emptied, or is not ttldb's", engine.ErrCorrupt, q)
	case err != nil:
		return fmt.Errorf("ttldb: reading the schema's version in PostgreSQL schema %q: %w", name, err)
	case version > SchemaVersion:
		return fmt.Errorf("%w: PostgreSQL schema %q holds ttldb's tables of version %d, made by a newer ttldb; this one knows version %d at most: use the newer ttldb", engine.ErrInvalidOption, name, version, SchemaVersion)
	case version < 1:
		return fmt.Errorf("%w: table %s.ttldb_schema holds version %d; versions start at 1", engine.ErrCorrupt, q, version)
	}
	if version < SchemaVersion {
		return upgrade(ctx, tx, name, q, version)
	}
	return nil
}
