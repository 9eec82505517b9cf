package ttldb

import (
	"context"

	"github.com/ttldb/ttldb/internal/local"
)

// VerifyReport is what [Verify] found in a durable collection's directory
// (R12, R17): its files (the newest snapshot, the logs after it, then the
// leftovers an open removes), the collection (name, partition-key path),
// the documents of the snapshot and the changes of the logs, the last LSN,
// the documents held once replayed (expired ones included), and a torn
// tail an open would cut (a write a crash interrupted, never
// acknowledged): Torn, the log's path, empty for none. The zero value is
// nothing verified.
type VerifyReport = local.VerifyReport

// VerifiedFile is a file of a [VerifyReport]: its name in the directory,
// its size, and whether an open would remove it as a leftover.
type VerifiedFile = local.VerifiedFile

// Verify reads every file of the durable collection in dir and checks it,
// as an open does (each frame's checksum, each record, the chain of logs,
// each document parsed, then the structures built of them), without
// writing to dir: what an open would cut or repair it reports. It locks
// dir while it reads, so it refuses a directory a collection has open,
// whose files change as it runs; a directory whose file LOCK it cannot
// open for writing (another user's, or on a read-only file system) it
// locks without that file, which keeps out the collections of this
// version on this machine, not those of an older ttldb (which lock LOCK
// alone) or of another NFS client: what they write as it reads may show
// as damage. It costs the time and memory of an open.
// ctx is looked at between two files.
//
// Errors: [ErrCorrupt], as a [*CorruptError] naming the file and the
// offset, for what an open would refuse; [ErrLocked]; [ErrInvalidOption]
// for a nil ctx, or a directory that does not exist, holds no collection
// or cannot be read.
func Verify(ctx context.Context, dir string) (VerifyReport, error) {
	return local.Verify(ctx, nil, dir, documents)
}
