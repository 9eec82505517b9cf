module github.com/ttldb/ttldb/bench

go 1.25

require (
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/jellydator/ttlcache/v3 v3.4.1
	github.com/patrickmn/go-cache v2.1.0+incompatible
	github.com/tidwall/buntdb v1.3.2
	github.com/ttldb/ttldb v0.0.0
)

require (
	github.com/google/btree v1.1.3 // indirect
	github.com/tidwall/btree v1.4.2 // indirect
	github.com/tidwall/gjson v1.14.3 // indirect
	github.com/tidwall/grect v0.1.4 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	github.com/tidwall/rtred v0.1.2 // indirect
	github.com/tidwall/tinyqueue v0.1.1 // indirect
	golang.org/x/sync v0.16.0 // indirect
)

replace github.com/ttldb/ttldb => ../
