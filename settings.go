package ttldb

import (
	"fmt"
	"slices"
)

// The settings a durable collection keeps in its directory, and what the
// options of a reopen do to them (R12). Open keeps them: its options are
// those of a collection it makes, and a non-zero one that differs from the
// stored value refuses the open (checkStored). For NewCollection, options
// describe the collection the program wants: a reopen gives each setting that can change on a live
// collection the value of its options, as if its setter were called right
// after the open (logged, so that the next reopen finds it; DefaultTTL with
// R7's cut-offs at the open's instant), and [Recovery] lists what changed.
// What cannot change (the name, the partition-key path), or a change its
// setter would refuse, refuses the open, which then changes nothing in the
// directory. Options equal to what the directory holds log nothing.
//
//	                  NewCollection                      Open
//	DefaultTTL        applied (SetDefaultTTL)            zero or equal, else refused
//	Indexing          applied (SetIndexingMode)          zero or equal, else refused
//	Indexes           those missing made (CreateIndex)   nil or the same set, else refused
//	Feed              not stored: every open keeps the feed its options say
//	name, key path    stored; a different one is refused (Open: empty is the stored one)

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
func (c *local) checkSettings(dir string, o *Options) error {
	if o.asStored {
		return c.checkStored(dir, o)
	}
	if !o.keepSettings && o.Indexing == IndexingNone && c.mode != IndexingNone && len(c.sec.loaded) > 0 {
		return errorf(ErrInvalidOption, "Options.Indexing none, and %s holds collection %q in indexing mode %v with the secondary indexes %q, which mode none does not keep: drop them first (DropIndex), or open with the mode it has (R8, R12)", dir, c.name, c.mode, c.sec.loaded)
	}
	return nil
}

// changed records in the collection's Recovery that the open changed a
// setting.
func (c *local) changed(setting, old, new string) {
	c.recovery.Changed = append(c.recovery.Changed, SettingChange{Setting: setting, Old: old, New: new})
}

// indexList writes a list of index paths for a [SettingChange].
func indexList(paths []string) string { return fmt.Sprint(paths) }

// checkStored refuses Open's options for the existing directory dir where
// a setting is not zero and differs from the stored one: Open keeps a
// collection's settings, and names the setter that changes them.
func (c *local) checkStored(dir string, o *Options) error {
	const keeps = "Open keeps the settings of a collection it did not make"
	if o.DefaultTTL != TTLOff() && o.DefaultTTL != c.exp.def {
		return errorf(ErrInvalidOption, "Options.DefaultTTL %v, and %s holds collection %q with DefaultTTL %v: %s; change it with SetDefaultTTL once it is open, or leave Options.DefaultTTL zero for the stored one (R12)", o.DefaultTTL, dir, c.name, c.exp.def, keeps)
	}
	if o.Indexing != IndexingConsistent && o.Indexing != c.mode {
		return errorf(ErrInvalidOption, "Options.Indexing %v, and %s holds collection %q in indexing mode %v: %s; change it with SetIndexingMode once it is open, or leave Options.Indexing zero for the stored one (R12)", o.Indexing, dir, c.name, c.mode, keeps)
	}
	if len(o.Indexes) > 0 {
		asked, stored := slices.Sorted(slices.Values(o.Indexes)), slices.Sorted(slices.Values(c.sec.loaded))
		if !slices.Equal(asked, stored) {
			return errorf(ErrInvalidOption, "Options.Indexes %q, and %s holds collection %q with the indexes %q: %s; change them with CreateIndex and DropIndex once it is open, or leave Options.Indexes nil for the stored ones (R12)", o.Indexes, dir, c.name, c.sec.loaded, keeps)
		}
	}
	return nil
}
