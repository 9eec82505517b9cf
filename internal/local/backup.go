package local

import (
	"context"
	"fmt"
	"io"

	"github.com/ttldb/ttldb/engine"
)

// A backup (R17) is a snapshot file, the one format an open reads: the wal
// header (magic and format version), the state record (identity,
// settings, R7's cut-offs, the last LSN, the clock, the index paths), the
// documents in the order of their LSNs, and the end record that counts
// them, in groups each closed by a checksummed commit frame. So a backup
// checks itself as a snapshot does: a stream cut anywhere lacks its end
// record, or ends inside a group; a damaged byte fails its frame's
// checksum; either is an [engine.CorruptError] naming the offset. Restore
// makes of it the directory an open reads, as bbolt's Tx.WriteTo writes a
// database file, rather than a stream of writes to replay, as Badger's
// backup is: a restore then costs a copy and one check, and what it gives
// is the collection the backup's instant held, LSNs and etags included,
// not one whose writes were made again.

// Backup implements [engine.Backuper]: it writes the collection as of one
// instant to w. It takes that instant in O(1) under the lock, as a
// compaction does (a view and the start of a walk of the key map, which
// Backup and compactions take one at a time), reads the key map a few
// tables per hold of the lock, letting waiting callers go first between
// two (R5), then writes without the lock. It costs O(n log n) for n
// documents, and the memory of a pointer each while it runs; writers go
// on meanwhile, and what they write is not in the backup.
//
// Errors: [engine.ErrInvalidOption] for a nil w; [engine.ErrClosed] when
// the collection closes before or while it writes; ctx's error, wrapped,
// checked before each hold of the walk (nothing written yet) and between
// groups; w's error, wrapped. After an error what w got is
// not a whole backup, and Restore refuses it.
func (x *Engine) Backup(ctx context.Context, w io.Writer) (engine.BackupInfo, error) {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return engine.BackupInfo{}, engine.ContextError(ctx, "Backup")
	}
	if w == nil {
		return engine.BackupInfo{}, errorf(engine.ErrInvalidOption, "Backup of collection %q to a nil io.Writer", c.name)
	}
	select {
	case c.walking <- struct{}{}:
	case <-ctx.Done():
		return engine.BackupInfo{}, engine.ContextError(ctx, "Backup")
	case <-c.stop:
		return engine.BackupInfo{}, c.errClosed("Backup")
	}
	c.lock()
	if c.unusable() {
		c.mu.Unlock()
		<-c.walking
		return engine.BackupInfo{}, c.errClosed("Backup")
	}
	s := c.openView()
	wk := c.startWalk()
	st := c.savedState()
	c.mu.Unlock()
	docs, err := c.snapshotDocs(ctx, "Backup", s, wk, st.docs)
	s.release()
	<-c.walking
	if err != nil {
		return engine.BackupInfo{}, err
	}
	if !ctxLive(ctx) {
		return engine.BackupInfo{}, engine.ContextError(ctx, "Backup")
	}
	info := engine.BackupInfo{Name: st.name, PartitionKeyPath: st.path, LastLSN: st.seq, Documents: len(docs)}
	var stopped error
	size, err := encodeSnapshot(w, st, docs, c.etagBase, func() error {
		switch {
		case !ctxLive(ctx):
			stopped = engine.ContextError(ctx, "Backup")
		case c.unusable():
			stopped = c.errClosed("Backup")
		}
		return stopped
	})
	switch {
	case stopped != nil:
		return engine.BackupInfo{}, stopped
	case err != nil:
		return engine.BackupInfo{}, fmt.Errorf("ttldb: Backup of collection %q: writing: %w", c.name, err)
	}
	info.Bytes = size
	return info, nil
}
