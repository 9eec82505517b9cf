package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/internal/query"
)

// upgradeV2SQL brings ttldb_collections from version 1 to 2: the indexes
// writers keep (items.go), each existing index numbered from 1 in the
// order made.
const upgradeV2SQL = `
ALTER TABLE {s}.ttldb_collections
	ADD COLUMN ix_paths text[] NOT NULL DEFAULT '{}',
	ADD COLUMN ix_ids bigint[] NOT NULL DEFAULT '{}',
	ADD COLUMN ix_next bigint NOT NULL DEFAULT 0;
UPDATE {s}.ttldb_collections SET ix_paths = indexes,
	ix_ids = ARRAY (SELECT generate_series(1, cardinality(indexes)))::bigint[], ix_next = cardinality(indexes);
`

// upgrade brings the tables of the schema named name (quoted: q) from
// version to SchemaVersion, in tx, with the schema's lock held: from 1,
// it adds the columns of the indexes writers keep, and for each
// collection its items table, filled with the items of its indexes. It
// costs O(n) for the n documents of the collections with indexes, in the
// open's transaction. ttldb_collections is locked from its first
// statement (ALTER TABLE) to the commit, so a process of the old version
// that writes meanwhile waits; one that writes after keeps no item: stop
// the old version's processes before opening with this one (DESIGN.md).
//
// Errors: the server's, wrapped.
func upgrade(ctx context.Context, tx pgx.Tx, name, q string, version int64) error {
	if version != 1 {
		return fmt.Errorf("ttldb: PostgreSQL schema %q holds ttldb's tables of version %d, which this ttldb cannot upgrade", name, version)
	}
	if _, err := tx.Exec(ctx, ddl(upgradeV2SQL, q, 0)); err != nil {
		return fmt.Errorf("ttldb: upgrading ttldb's tables in PostgreSQL schema %q to version 2: %w", name, err)
	}
	rows, err := tx.Query(ctx, ddl(`SELECT no, ix_ids, ix_paths FROM {s}.ttldb_collections ORDER BY no`, q, 0))
	if err != nil {
		return fmt.Errorf("ttldb: upgrading PostgreSQL schema %q: reading the collections: %w", name, err)
	}
	type coll struct {
		no    int64
		ids   []int64
		paths []string
	}
	colls, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (coll, error) {
		var c coll
		return c, r.Scan(&c.no, &c.ids, &c.paths)
	})
	if err != nil {
		return fmt.Errorf("ttldb: upgrading PostgreSQL schema %q: reading the collections: %w", name, err)
	}
	for _, c := range colls {
		if _, err := tx.Exec(ctx, ddl(itemsDDL, q, c.no)); err != nil {
			return fmt.Errorf("ttldb: upgrading PostgreSQL schema %q: making the items of collection %d: %w", name, c.no, err)
		}
		for i, ptr := range c.paths {
			p, err := query.ParsePointer(ptr)
			if err != nil || !pushed(ptr) || i >= len(c.ids) {
				continue // no items: read as computed.go says
			}
			x := &ixDef{id: c.ids[i], ptr: ptr, path: p}
			for after := []byte{}; ; {
				n, last, err := fillBatch(ctx, tx, q, c.no, x, after)
				if err != nil {
					return fmt.Errorf("ttldb: upgrading PostgreSQL schema %q: the items of index %s of collection %d: %w", name, ptr, c.no, err)
				}
				if n < buildBatch {
					break
				}
				after = last
			}
		}
	}
	if _, err := tx.Exec(ctx, ddl(`UPDATE {s}.ttldb_schema SET version = $1`, q, 0), SchemaVersion); err != nil {
		return fmt.Errorf("ttldb: upgrading PostgreSQL schema %q: recording version %d: %w", name, SchemaVersion, err)
	}
	return nil
}
