package postgres_test

import (
	"context"
	"log"

	"github.com/ttldb/ttldb"
	_ "github.com/ttldb/ttldb/postgres" // registers the postgres:// and postgresql:// schemes
)

// A program opens a collection on PostgreSQL by its URL: the same call
// as for memory ("mem:") or a directory ("file:///var/lib/app"), once the
// package is imported. search_path names PostgreSQL's schema that holds
// the collection; every replica of the service that opens it shares it.
// (It runs only against a server, so it has no output to check.)
func Example() {
	ctx := context.Background()
	c, err := ttldb.Open(ctx, "postgres://app@db.internal:5432/app?search_path=sessions&pool_max_conns=16",
		&ttldb.Options{Name: "sessions", PartitionKeyPath: "/tenant", DefaultTTL: ttldb.TTLSeconds(1800)})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close() // closes the pool the URL made
	if _, err := c.Upsert(ctx, []byte(`{"id":"s1","tenant":"acme","user":"ana"}`)); err != nil {
		log.Fatal(err)
	}
}
