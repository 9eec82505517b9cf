// Package engine is what a storage engine of ttldb shares with the API
// above it (R16): the types in which documents pass between them.
//
// ttldb's public API (package ttldb) holds the contract, rules R1-R15:
// validation, the TTL rules, the partition-key encoding, the query
// language, patch, batches and continuation tokens, the same for every
// engine. An engine stores documents and answers for them. The in-process
// engine, in memory or on a directory, is the first; one on PostgreSQL, in
// a module of its own, shared by many processes, is the second.
//
// Today this package holds the stored document, [Doc], which every engine
// returns and the API wraps without copying. The engine interface itself,
// with its optional capabilities, joins it as the in-process engine moves
// behind it (issue 28).
package engine
