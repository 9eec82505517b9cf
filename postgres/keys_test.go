package postgres

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/ttldb/ttldb"
)

// longKey returns a key as the API makes it (engine.Doc.Key) for a string
// partition key and an id, with its layout: the kind byte, the string with
// 0x00 written 0x00 0xff, 0x00 0x01, then the id. The string's bytes are
// drawn from r, so that no compression shrinks the key below the btree's
// limit.
func longKey(r *rand.Rand, pk []byte, idLen int) (key []byte, pkEnd, idAt, idEnd int) {
	key = append(key, 5) // a string
	for _, b := range pk {
		key = append(key, b)
		if b == 0 {
			key = append(key, 0xff)
		}
	}
	key = append(key, 0, 1)
	pkEnd = len(key)
	for range idLen {
		key = append(key, byte(0x21+r.IntN(0x5e))) // printable: ids hold no control character
	}
	return key, pkEnd, pkEnd, len(key)
}

func TestLongKeysFitTheDocumentsTable(t *testing.T) { // R10
	t.Parallel()
	s := newServer(t)
	mustOpen(t, s, "sessions", "/tenant", nil)
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, ttldb.MaxPartitionKeyLength-3) // the encoding: 2048 bytes
	for i := range random {
		random[i] = byte(1 + r.IntN(255))
	}
	zeros := make([]byte, ttldb.MaxPartitionKeyLength) // the longest encoding: 4099 bytes
	type row struct {
		key                []byte
		pkEnd, idAt, idEnd int
		body               string
	}
	var rows []row
	for _, pk := range [][]byte{random, zeros, []byte("short")} {
		key, pkEnd, idAt, idEnd := longKey(r, pk, ttldb.MaxIDLength)
		rows = append(rows, row{key, pkEnd, idAt, idEnd, `{"n":` + strings.Repeat("1", pkEnd%7+1) + `}`})
	}
	if len(rows[0].key) != 2048+1023 || len(rows[1].key) != 4099+1023 {
		t.Fatalf("keys of %d and %d bytes, want 3071 and 5122", len(rows[0].key), len(rows[1].key))
	}

	docs := s.ident() + ".ttldb_docs_1"
	for _, w := range rows {
		s.exec(`INSERT INTO `+docs+` (key, pk_end, id_at, id_end, body, ts, ttl, lsn) VALUES ($1, $2, $3, $4, $5, 1, 0, 1)`,
			w.key, w.pkEnd, w.idAt, w.idEnd, w.body)
	}
	// A point read by the hash, checked against the key itself.
	for _, w := range rows {
		var got row
		err := s.admin.QueryRow(t.Context(), `SELECT key, pk_end, id_at, id_end, body FROM `+docs+` WHERE h = sha256($1) AND key = $1`, w.key).
			Scan(&got.key, &got.pkEnd, &got.idAt, &got.idEnd, &got.body)
		if err != nil || !bytes.Equal(got.key, w.key) || got.pkEnd != w.pkEnd || got.idAt != w.idAt || got.idEnd != w.idEnd || got.body != w.body {
			t.Errorf("read back a key of %d bytes: %v, %d %d %d %q", len(w.key), err, got.pkEnd, got.idAt, got.idEnd, got.body)
		}
	}
	// Key order, through the index of the keys' first bytes.
	rs, err := s.admin.Query(t.Context(), `SELECT key FROM `+docs+` ORDER BY substring(key FROM 1 FOR 1024), key`)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := pgx.CollectRows(rs, pgx.RowTo[[]byte])
	if err != nil || len(keys) != len(rows) || !slices.IsSortedFunc(keys, bytes.Compare) {
		t.Errorf("keys in order: %d keys, sorted %t, %v", len(keys), slices.IsSortedFunc(keys, bytes.Compare), err)
	}
	// Both reads can use an index (the table is too small for the planner
	// to choose one on its own).
	tx, err := s.admin.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(t.Context()) }()
	if _, err := tx.Exec(t.Context(), `SET LOCAL enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	for sql, index := range map[string]string{
		`SELECT body FROM ` + docs + ` WHERE h = sha256($1) AND key = $1`:           "ttldb_docs_1_pkey",
		`SELECT key FROM ` + docs + ` ORDER BY substring(key FROM 1 FOR 1024), key`: "ttldb_docs_1_order",
	} {
		var args []any
		if strings.Contains(sql, "$1") {
			args = append(args, rows[0].key)
		}
		rs, err := tx.Query(t.Context(), `EXPLAIN `+sql, args...)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := pgx.CollectRows(rs, pgx.RowTo[string])
		if err != nil || !strings.Contains(strings.Join(plan, "\n"), index) {
			t.Errorf("the plan of %s does not use %s: %v\n%s", sql, index, err, strings.Join(plan, "\n"))
		}
	}

	// What the design avoids: a btree on the key refuses the 3071-byte key.
	_, err = s.admin.Exec(t.Context(), `CREATE TABLE `+s.ident()+`.plain (key bytea PRIMARY KEY)`)
	if err == nil {
		_, err = s.admin.Exec(t.Context(), `INSERT INTO `+s.ident()+`.plain VALUES ($1)`, rows[0].key)
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "54000" {
		t.Errorf("a btree on the key took a key of %d bytes (%v): the test's keys are not long enough to show the limit", len(rows[0].key), err)
	}
}
