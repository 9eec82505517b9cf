package ttldb

import (
	"context"
	"io"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/local"
)

// BackupInfo is what a backup holds (R17): the collection Name,
// partitioned by PartitionKeyPath, as of the change LastLSN, with
// Documents documents (expired ones not yet swept included) in Bytes
// bytes. The zero value is no backup.
type BackupInfo = engine.BackupInfo

// Backup writes a copy of the collection, as of one instant, to w, while
// writers go on (R17), and returns what it wrote; [Restore] makes a
// directory of it, which [NewCollection] or [Open] then opens.
//
// The copy is the collection as of the change LastLSN: every document
// stored then (expired ones not yet swept too, which the restored
// collection's sweeper deletes) with its body, _ts, _etag and LSN; the
// collection's name, partition-key path, DefaultTTL and R7's cut-offs,
// indexing mode, secondary-index paths (rebuilt when the restore is
// opened), and clock. Not the all-versions feed's history: the restored
// collection's all-versions feed begins after its restore, and a reader
// positioned before it gets [ErrFeedTrimmed]; the latest-version feed is
// whole. A restore is a collection of its own: see [Restore]. The feed's switch and retention, and
// the other Options, are the open's.
//
// It takes the instant in O(1) under the collection's lock, reads the
// documents a few hundred per hold of the lock, letting waiting calls go
// first between two as the sweeper does (R5), then writes without the
// lock: O(n log n) for n documents, and the memory of a pointer per
// document while it runs. One backup or compaction reads at a time; a
// second waits. The stream is the format of a durable collection's
// snapshot file: a header with a format version, the settings, the
// documents in groups each closed by a CRC-32C, and a count at the end, so
// that a copy cut short or damaged is refused by Restore, never taken as
// whole. In memory or on a directory alike.
//
// Errors: [ErrInvalidOption] for a nil ctx or w, or an engine that cannot
// back up (PostgreSQL's: use pg_dump on its tables); [ErrClosed];
// ctx's error, wrapped, and w's: what w got is then not a backup, and
// Restore refuses it.
func (c *Collection) Backup(ctx context.Context, w io.Writer) (BackupInfo, error) {
	if !ctxLive(ctx) {
		return BackupInfo{}, contextError(ctx, "Backup")
	}
	if c.unusable() {
		return BackupInfo{}, c.errClosed("Backup")
	}
	b, ok := c.eng.(engine.Backuper)
	if !ok {
		return BackupInfo{}, errorf(ErrInvalidOption, "Backup of collection %q: its engine (%T) cannot write a backup; back it up by its own means (PostgreSQL: pg_dump of the collection's tables)", c.name, c.eng)
	}
	return b.Backup(ctx, w)
}

// Restore makes the directory dir hold the collection of a backup that
// [Collection.Backup] wrote, read from r, and returns what it held; open
// it then with [NewCollection] (giving the backup's name and
// partition-key path) or [Open] ("file://" + dir). dir must not exist, be
// empty, or be one a restore did not finish: a restore never merges with,
// nor replaces, a collection. It marks dir as being restored (a file
// RESTORING, durable before anything else), copies r into dir, checks all
// of it as an open would (the time and the memory of an open, which the
// collection's are dropped after), writes the collection, and removes the
// mark only once all of it is durable. A backup refused, or any failure,
// leaves no file of a collection in dir; a crash after the mark is durable
// leaves it, which [Open], [NewCollection] and [Verify] refuse with
// [ErrCorrupt] naming it, until a Restore into it again finishes; a crash
// before leaves dir absent or empty (or holding only LOCK), which
// [NewCollection] opens as a new empty collection. It writes the backup's size twice.
//
// The collection restored is the original as of the backup, but a
// collection of its own, as the original may have written after the
// backup:
//   - its documents keep their etags and LSNs: an [IfMatch] with an etag
//     read before the backup matches as it did;
//   - it numbers its own changes from [BackupInfo.LastLSN] plus a jump of
//     2^44 to 2^45, drawn at random: its writes get LSNs and etags (the
//     etag grows with the LSN) that the original never gave, unless it
//     wrote 2^44 times after the backup, so an etag of a version the
//     original wrote after the backup matches none at the copy;
//   - it has a collection ID of its own: the original's continuation
//     tokens (of List, Query and the feed) are refused as another
//     collection's ([ErrInvalidContinuation]); a feed reader resumes with
//     [FeedQuery].AfterLSN and the LSN of its last page;
//   - a feed position the original gave after the backup (an AfterLSN
//     beyond LastLSN, within the jump) is refused with [ErrFeedTrimmed]
//     in both feed modes, and the error says why: the copy lacks changes
//     that reader applied, which must read the feed again from the
//     beginning. Only a position saved before the backup (a checkpoint
//     of its reader) resumes safely at the copy: a position up to LastLSN
//     that the original gave out after the backup may be past a change the
//     copy holds (a latest-version page ends at the LSN of the last
//     document it shows, and documents the original rewrote after the
//     backup move past it), so the copy would never show that change to
//     the reader. Any reader whose position is not known to predate the
//     backup reads the feed again from the beginning.
//
// Errors: [ErrCorrupt], as a [*CorruptError] naming the offset in r, for a
// backup cut short, damaged, or followed by other bytes; [ErrLocked] for a
// directory a collection has open; [ErrInvalidOption] for a nil ctx or r,
// a directory that holds files or cannot be written, or a backup whose
// LSNs leave no room for the jump (after 65,535 restores of restores); ctx's
// error, wrapped; r's errors, wrapped.
func Restore(ctx context.Context, r io.Reader, dir string) (BackupInfo, error) {
	if ctx == nil {
		return BackupInfo{}, contextError(ctx, "Restore")
	}
	return local.Restore(ctx, r, local.RestoreConfig{Dir: dir, Documents: documents, Source: "the backup"})
}
