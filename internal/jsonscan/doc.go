// Package jsonscan is the intake of ttldb's documents: it validates an
// incoming document's JSON text and writes it compactly, in one pass, noting
// the top-level members the rules read (id, ttl and the first member of the
// partition-key path) and dropping the system properties _ts and _etag,
// which the library writes itself (R10).
//
// [Document] is the one entry point. It tries a fast path first (fast.go),
// for the commonest text, compact JSON of at most 64 KiB without a member
// it drops, in one loop over the bytes; any other text, valid or not, goes
// to the full scanner (scan.go), which alone reports errors. Both share the
// byte-level tokens of tokens.go. It takes O(len(src)) and allocates
// nothing but the growth of dst.
//
// Errors are [*Error]: the caller wraps them in its own sentinels, as
// ttldb does with ErrInvalidDocument and ErrTooLarge.
package jsonscan
