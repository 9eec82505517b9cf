module github.com/ttldb/ttldb

go 1.25

require github.com/google/btree v1.1.3
