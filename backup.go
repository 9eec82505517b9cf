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
// collection's name, partition-key path, ID (continuation tokens and the
// latest-version feed's positions carry over), DefaultTTL and R7's
// cut-offs, indexing mode, secondary-index paths (rebuilt when the restore
// is opened), and clock. Not the all-versions feed's history: the
// restored collection's all-versions feed begins after LastLSN, as after a
// compaction, and a reader positioned before it gets [ErrFeedTrimmed];
// the latest-version feed is whole. The feed's switch and retention, and
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
// partition-key path) or [Open] ("file://" + dir). dir must not exist, or
// be empty: a restore never merges with, nor replaces, a collection. It
// copies r into dir, checks all of it as an open would (the time and the
// memory of an open, which the collection's are dropped after), and only
// then names the copy so that an open reads it; a backup refused, or any
// failure, leaves no file of a collection in dir (a crash leaves a
// temporary file that an open removes: such a dir then opens as a new,
// empty collection, so restore again into an empty directory after a
// crash, and check the BackupInfo it returns).
//
// The collection restored is the original as of the backup: the same
// collection ID, the same etags, and LSNs that go on from the backup's
// LastLSN. So an etag, a continuation token or a feed position that the
// original gave after the backup may name another version in the
// restored collection: an IfMatch with such an etag can match a version
// its holder never read. After a restore, clients drop what they hold
// from later than [BackupInfo.LastLSN].
//
// Errors: [ErrCorrupt], as a [*CorruptError] naming the offset in r, for a
// backup cut short, damaged, or followed by other bytes; [ErrLocked] for a
// directory a collection has open; [ErrInvalidOption] for a nil ctx or r,
// a directory that holds files or cannot be written; r's errors, wrapped.
func Restore(ctx context.Context, r io.Reader, dir string) (BackupInfo, error) {
	if ctx == nil {
		return BackupInfo{}, contextError(ctx, "Restore")
	}
	return local.Restore(ctx, r, local.RestoreConfig{Dir: dir, Documents: documents, Source: "the backup"})
}
