module github.com/ttldb/ttldb/bench

go 1.25.0

require (
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/jackc/pgx/v5 v5.12.0
	github.com/jellydator/ttlcache/v3 v3.4.1
	github.com/patrickmn/go-cache v2.1.0+incompatible
	github.com/tidwall/buntdb v1.3.2
	github.com/tidwall/gjson v1.14.3
	github.com/ttldb/ttldb v0.0.0
	github.com/ttldb/ttldb/postgres v0.0.0
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	golang.org/x/text v0.41.0 // indirect
)

require (
	github.com/google/btree v1.1.3 // indirect
	github.com/tidwall/btree v1.4.2 // indirect
	github.com/tidwall/grect v0.1.4 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	github.com/tidwall/rtred v0.1.2 // indirect
	github.com/tidwall/tinyqueue v0.1.1 // indirect
	golang.org/x/sync v0.22.0 // indirect
)

replace github.com/ttldb/ttldb => ../

replace github.com/ttldb/ttldb/postgres => ../postgres
