package ttldb
