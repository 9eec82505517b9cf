package engine

import (
	"fmt"
	"strconv"
)

// FeedRead is a read of one page of the change feed (R11), its start
// found by the API: after the LSN After (0: from the beginning), or as
// From says.
type FeedRead struct {
	// Latest reads the latest-version feed; false, the all-versions and
	// deletes feed.
	Latest bool
	// Prefix, when Partition, restricts the read to the documents whose
	// key starts with it: one partition's.
	Partition bool
	Prefix    string
	// From is where the read starts; After the LSN it starts after, for
	// FromAfter.
	From  FeedFrom
	After uint64
	// Limit is the most changes the page holds, from 1.
	Limit int
}

// FeedFrom is where a read of the feed starts.
type FeedFrom uint8

// The starts: after an LSN; at the present (after the last change); at
// the oldest change the all-versions feed keeps (the beginning for the
// latest-version feed).
const (
	FromAfter FeedFrom = iota
	FromNow
	FromOldest
)

// The values of Change.Op, in the numbering of ttldb.ChangeOp: OpLatest
// for a change of the latest-version feed, which does not say what the
// write did; the others for the all-versions feed.
const (
	OpLatest uint8 = iota
	OpCreate
	OpReplace
	OpDelete
)

// OpName returns the name of a Change's Op: "latest", "create", "replace"
// or "delete", or "Op(n)" for another n.
func OpName(op uint8) string {
	if op <= OpDelete {
		return [...]string{"latest", "create", "replace", "delete"}[op]
	}
	return "Op(" + strconv.Itoa(int(op)) + ")"
}

// Change is one change of the feed: Op is OpLatest, OpCreate, OpReplace
// or OpDelete; Doc the document
// written, or for a delete the one deleted; Expired marks the deletes of
// expired documents (R5), Evicted those a memory quota's eviction made
// (R17).
type Change struct {
	Op      uint8
	LSN     uint64
	TS      int64
	Doc     *Doc
	Expired bool
	Evicted bool
}

// FeedPage is a page of the feed: its changes, in LSN order, the LSN the
// next page starts after (End), and whether changes were left for it.
type FeedPage struct {
	Changes []Change
	End     uint64
	More    bool
}

// FeedBeyond is the refusal of a read that starts after an LSN beyond the
// last change, Last.
type FeedBeyond struct{ Last uint64 }

func (e *FeedBeyond) Error() string {
	return fmt.Sprintf("the collection's last change is LSN %d", e.Last)
}

// FeedTrimmed is the refusal of a read of the all-versions feed that
// starts after After, older than the oldest record kept, Oldest; or of a
// read of either feed that starts after After, a position in the gap of a
// restored collection's LSNs, whose own changes start at Oldest: Gap then
// says so, as the whole message. It wraps ErrFeedTrimmed.
type FeedTrimmed struct {
	After, Oldest uint64
	Gap           string
}

func (e *FeedTrimmed) Error() string {
	if e.Gap != "" {
		return fmt.Sprintf("%v: %s", ErrFeedTrimmed, e.Gap)
	}
	return fmt.Sprintf("%v: LSN %d is older than the oldest kept, %d", ErrFeedTrimmed, e.After+1, e.Oldest)
}

// Unwrap returns ErrFeedTrimmed.
func (e *FeedTrimmed) Unwrap() error { return ErrFeedTrimmed }

// FeedStats are the feed's counts: as ttldb.FeedStats says.
type FeedStats struct {
	LastLSN uint64
	Oldest  uint64
	Records int64
	Bytes   int64
}
