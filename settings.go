package ttldb

import "fmt"

// The settings a durable collection keeps in its directory, and what the
// options of a reopen do to them (R12). Options describe the collection the
// program wants: a reopen gives each setting that can change on a live
// collection the value of its options, as if its setter were called right
// after the open (logged, so that the next reopen finds it; DefaultTTL with
// R7's cut-offs at the open's instant), and [Recovery] lists what changed.
// What cannot change (the name, the partition-key path), or a change its
// setter would refuse, refuses the open, which then changes nothing in the
// directory. Options equal to what the directory holds log nothing.
//
//	DefaultTTL        stored; applied (SetDefaultTTL)
//	Indexing          stored; applied (SetIndexingMode)
//	Indexes           stored; those missing are made (CreateIndex), others kept
//	Feed              not stored: every open keeps the feed its options say
//	name, key path    stored; a different one is refused

// SettingChange is a stored setting of a durable collection that its
// reopen changed to what the options asked for (R12). The zero value
// changes nothing.
type SettingChange struct {
	// Setting is "DefaultTTL", "Indexing" or "Indexes".
	Setting string
	// Old is the value the directory held, New the value the open gave
	// it, each as its String method writes it ([DefaultTTL.String],
	// [IndexingMode.String], or the list of index paths).
	Old, New string
}

// String returns "Setting: Old → New", such as "DefaultTTL: 3600 → 7200".
func (s SettingChange) String() string { return s.Setting + ": " + s.Old + " → " + s.New }

// checkSettings refuses to reopen the directory dir with options that ask
// for a change its setter would refuse. Call it once the files are read,
// before anything is written to them: a refused open changes nothing.
// (A different name or partition-key path is refused as the snapshot is
// read.)
func (c *Collection) checkSettings(dir string, o *Options) error {
	if !o.keepSettings && o.Indexing == IndexingNone && c.mode != IndexingNone && len(c.sec.loaded) > 0 {
		return errorf(ErrInvalidOption, "Options.Indexing none, and %s holds collection %q in indexing mode %v with the secondary indexes %q, which mode none does not keep: drop them first (DropIndex), or open with the mode it has (R8, R12)", dir, c.name, c.mode, c.sec.loaded)
	}
	return nil
}

// changed records in the collection's Recovery that the open changed a
// setting.
func (c *Collection) changed(setting, old, new string) {
	c.recovery.Changed = append(c.recovery.Changed, SettingChange{Setting: setting, Old: old, New: new})
}

// indexList writes a list of index paths for a [SettingChange].
func indexList(paths []string) string { return fmt.Sprint(paths) }
