package engine

import (
	"context"
	"io"
)

// Backuper is the capability of an engine that writes a consistent copy
// of its collection to a stream while writers go on
// (ttldb.Collection.Backup): the in-process engine, in memory or on a
// directory, which writes the stream ttldb.Restore reads. An engine
// without it is backed up by its own means (PostgreSQL's: pg_dump of the
// collection's tables), and ttldb's Backup refuses it with
// ErrInvalidOption.
type Backuper interface {
	// Backup writes the collection as of one instant to w, and returns
	// what it wrote. It holds no other call for longer than a sweep's
	// batch (R5). When ctx ends, or w fails, it stops and returns the
	// error; what it wrote is then not a whole backup, and a restore
	// refuses it.
	Backup(ctx context.Context, w io.Writer) (BackupInfo, error)
}

// BackupInfo is what a backup holds: the collection as of its LastLSN,
// Documents documents (expired ones not yet swept included) in Bytes
// bytes. The zero value is no backup.
type BackupInfo struct {
	Name             string
	PartitionKeyPath string
	LastLSN          uint64
	Documents        int
	Bytes            int64
}
