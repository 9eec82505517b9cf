package engine

import "fmt"

// Recovery says what opening a durable collection found in its directory
// (R12). The zero value is a collection that is not durable, or a new
// directory.
type Recovery struct {
	// Snapshot is the snapshot loaded, a path; empty for a new directory.
	Snapshot string
	// Documents is the number of documents it held, expired ones
	// included: the sweeper deletes them, as changes of the feed.
	Documents int
	// Logs is the number of logs replayed after it, and Changes the
	// changes they held.
	Logs, Changes int
	// LastLSN is the LSN of the last change recovered.
	LastLSN uint64
	// Truncated is the log whose torn tail, a write a crash interrupted,
	// the open cut off; empty when there was none. Dropped is its size in
	// bytes and Reason says what was wrong with it. Only changes that
	// were never acknowledged are in a torn tail.
	Truncated string
	Dropped   int64
	Reason    string
	// Changed lists the stored settings the open changed to what its
	// options asked for, in the order it changed them (see ttldb.Options);
	// nil when the options asked for the settings the directory held.
	Changed []SettingChange
}

// SettingChange is a stored setting of a durable collection that its
// reopen changed to what the options asked for (R12). The zero value
// changes nothing.
type SettingChange struct {
	// Setting is "DefaultTTL", "Indexing" or "Indexes".
	Setting string
	// Old is the value the directory held, New the value the open gave
	// it, each as its String method writes it (ttldb's DefaultTTL.String,
	// IndexingMode.String, or the list of index paths).
	Old, New string
}

// String returns "Setting: Old → New", such as "DefaultTTL: 3600 → 7200".
func (s SettingChange) String() string { return s.Setting + ": " + s.Old + " → " + s.New }

// CorruptError is damage found while opening a durable collection: in
// File, a path, at byte Offset. Nothing was dropped: the open failed. For a
// log (a file named log-...), truncating it at Offset (truncate -s Offset
// File) repairs it, losing the changes from there on; a damaged snapshot
// (snap-...) is beyond repair by truncation: restore the directory from a
// backup. A missing log is damage too: File is the log, Offset -1, and
// Reason says the LSNs it held and how the other files show it existed;
// restore it from a backup.
type CorruptError struct {
	File string
	// Offset is where in File the damage begins; -1 when it is not at a
	// place in a file: File is missing, or its whole content is wrong.
	Offset int64
	Reason string
}

// Error says what is damaged and where.
func (e *CorruptError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("%v: %s: %s", ErrCorrupt, e.File, e.Reason)
	}
	return fmt.Sprintf("%v: %s at offset %d: %s", ErrCorrupt, e.File, e.Offset, e.Reason)
}

// Unwrap returns [ErrCorrupt].
func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// Recoverer is the capability of an engine that opens a collection from
// files it recovers (the in-process engine with a directory): Recovery
// says what the open found. An engine without it recovers nothing the
// caller need know of, and ttldb's Collection.Recovery returns the zero
// Recovery for it.
type Recoverer interface {
	Recovery() Recovery
}
