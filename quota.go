package ttldb

import (
	"strconv"

	"github.com/ttldb/ttldb/internal/local"
)

// QuotaOptions bound a collection's memory (R17): [Options.Quota]. A write
// that would take the collection beyond a bound is refused, or makes room
// by evicting documents, as Policy says; a write that does not grow the
// collection (a delete, a replace or patch by a document no larger) always
// passes. The zero value is no quota, which costs a write one predictable
// branch.
//
// What is counted, and where it is checked:
//
//   - Bytes count the heap the documents take in the collection: each
//     document's allocation (its key and compact body and a header,
//     rounded up to the Go allocator's size class), plus 76 bytes for
//     its places in the key map and the expiry index, 19 more once a
//     listing or a query has built the key order, plus for each
//     secondary index an item of its value's key and 60 bytes: figures
//     measured, which internal/local/quota.go keeps in one place.
//     Expired documents not yet swept count, as they hold
//     memory. What the quota does not count: the all-versions feed's
//     records, bounded by [FeedOptions] (records of deleted and replaced
//     documents keep them alive), older versions an open listing or query
//     holds, and the durable log's buffers. With the feed off, the heap a
//     collection of 1,000,000 documents takes is within 5% of what it
//     counts (+1.0% measured, bench/quota_test.go). With the feed on,
//     its records are beside the quota, not within it: at the default
//     bound ([DefaultFeedBytes]) the same collection, full after
//     evictions, took 11.4% more heap than its quota (42 MB over 366
//     MB); to bound the whole heap, give MaxBytes less the feed's
//     [FeedOptions].MaxBytes, or turn the feed off. As the key order
//     counts once built, the first listing of a collection at its quota
//     takes it over by 19 bytes a document: the writes after it that
//     grow it evict or are refused until it fits.
//   - Documents count those the collection holds, expired or not.
//   - The check is made under the collection's lock by every write that
//     grows it: Create, Replace, Upsert, Patch, and a transactional batch
//     as a whole (what it leaves under its keys less what they hold): a
//     batch over the quota is refused whole, or evicts before it applies.
//     A write first deletes expired documents, as the sweeper would (even
//     with ManualSweep: no read can see them, R4), then applies Policy.
//   - A reopened durable collection is not trimmed to its quota: if it
//     holds more (a quota lowered), writes that grow it are refused or
//     evict until it fits.
//
// Cost with a quota: a write computes its document's item keys in each
// secondary index once more, and each eviction costs a delete. A write
// beyond the quota first looks for what it may delete, under the lock:
// under QuotaRefuse the expired documents alone, under QuotaEvictSoonest
// the documents that expire, soonest first, until it has found enough
// (every one of them when they would not make room); none for a write
// beyond the quota by itself (a document larger than MaxBytes).
type QuotaOptions struct {
	// MaxBytes is the most bytes the collection counts, as above. Zero: no
	// bound by size. Negative: [ErrInvalidOption].
	MaxBytes int64

	// MaxDocuments is the most documents the collection holds, expired
	// but not yet swept included. Zero: no bound by count. Negative:
	// [ErrInvalidOption].
	MaxDocuments int64

	// Policy is what a write beyond a bound does. Zero: [QuotaRefuse].
	Policy QuotaPolicy
}

// QuotaPolicy is what a write that would exceed a [QuotaOptions] bound
// does. The zero value is [QuotaRefuse].
type QuotaPolicy uint8

const (
	// QuotaRefuse refuses the write with [ErrQuotaExceeded], whose message
	// names the quota, what the collection holds and what the write would
	// add; the write changes nothing (but the deletion of expired
	// documents, which no read could see).
	QuotaRefuse QuotaPolicy = iota

	// QuotaEvictSoonest evicts, before the write, the documents that
	// expire soonest, until it fits, as Redis's volatile-ttl policy does:
	// only documents that expire are candidates (a ttl of their own, or
	// the DefaultTTL's), never the documents the write itself changes.
	// Each eviction is a delete in the all-versions feed with
	// [Change].Evicted set (and TimeToLiveExpired not), durable as the
	// write is, and counted in [Stats].Evicted. When the candidates would
	// not make room (the documents left never expire, or TTL is off), the
	// write is refused with [ErrQuotaExceeded] before anything is evicted.
	QuotaEvictSoonest
)

// String returns "refuse" or "evict soonest".
func (p QuotaPolicy) String() string {
	switch p {
	case QuotaRefuse:
		return "refuse"
	case QuotaEvictSoonest:
		return "evict soonest"
	}
	return "QuotaPolicy(" + strconv.Itoa(int(p)) + ")"
}

// validate checks the options, naming the field at fault.
func (q QuotaOptions) validate() error {
	switch {
	case q.MaxBytes < 0:
		return errorf(ErrInvalidOption, "Quota.MaxBytes %d is negative: give the most bytes the collection may hold, or 0 for no bound by size (R17)", q.MaxBytes)
	case q.MaxDocuments < 0:
		return errorf(ErrInvalidOption, "Quota.MaxDocuments %d is negative: give the most documents the collection may hold, or 0 for no bound by count (R17)", q.MaxDocuments)
	case q.Policy > QuotaEvictSoonest:
		return errorf(ErrInvalidOption, "Quota.Policy %d: allowed are QuotaRefuse and QuotaEvictSoonest (R17)", q.Policy)
	case q.Policy != QuotaRefuse && q.MaxBytes == 0 && q.MaxDocuments == 0:
		return errorf(ErrInvalidOption, "Quota.Policy %v without Quota.MaxBytes or Quota.MaxDocuments: a policy applies to a bound; set one (R17)", q.Policy)
	}
	return nil
}

// local returns the quota as the in-process engine takes it.
func (q QuotaOptions) local() local.Quota {
	return local.Quota{Bytes: q.MaxBytes, Docs: q.MaxDocuments, Evict: q.Policy == QuotaEvictSoonest}
}
