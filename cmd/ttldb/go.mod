module github.com/ttldb/ttldb/cmd/ttldb

go 1.25.0

require (
	github.com/jackc/pgx/v5 v5.12.0
	github.com/ttldb/ttldb v0.0.0
	github.com/ttldb/ttldb/postgres v0.0.0-00010101000000-000000000000
)

require (
	github.com/google/btree v1.1.3 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

replace github.com/ttldb/ttldb => ../..

replace github.com/ttldb/ttldb/postgres => ../../postgres
