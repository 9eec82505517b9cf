package local

// The settings a durable collection keeps in its directory, and what the
// options of a reopen do to them (R12). Open keeps them: its options are
// those of a collection it makes, and a non-zero one that differs from the
// stored value refuses the open (checkStored). For NewCollection, options
// describe the collection the program wants: a reopen gives each setting that can change on a live
// collection the value of its options, as if its setter were called right
// after the open (logged, so that the next reopen finds it; DefaultTTL with
// R7's cut-offs at the open's instant), and the Recovery lists what changed.
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

import (
	"fmt"
	"slices"

	"github.com/ttldb/ttldb/engine"
)

// checkSettings refuses to reopen the directory dir with options that ask
// for a change its setter would refuse. Call it once the files are read,
// before anything is written to them: a refused open changes nothing.
// (A different name or partition-key path is refused as the snapshot is
// read.)
func (c *collection) checkSettings(dir string, o *Config) error {
	if o.AsStored {
		return c.checkStored(dir, o)
	}
	if !o.KeepSettings && o.Indexing == engine.None && c.mode != engine.None && len(c.sec.loaded) > 0 {
		return errorf(engine.ErrInvalidOption, "Options.Indexing none, and %s holds collection %q in indexing mode %v with the secondary indexes %q, which mode none does not keep: drop them first (DropIndex), or open with the mode it has (R8, R12)", dir, c.name, c.mode, c.sec.loaded)
	}
	return nil
}

// changed records in the collection's Recovery that the open changed a
// setting.
func (c *collection) changed(setting, old, new string) {
	c.recovery.Changed = append(c.recovery.Changed, engine.SettingChange{Setting: setting, Old: old, New: new})
}

// indexList writes a list of index paths for a [engine.SettingChange].
func indexList(paths []string) string { return fmt.Sprint(paths) }

// checkStored refuses Open's options for the existing directory dir where
// a setting is not zero and differs from the stored one: Open keeps a
// collection's settings, and names the setter that changes them.
func (c *collection) checkStored(dir string, o *Config) error {
	const keeps = "Open keeps the settings of a collection it did not make"
	if o.DefaultTTL != (engine.DefaultTTL{}) && o.DefaultTTL != c.exp.def {
		return errorf(engine.ErrInvalidOption, "Options.DefaultTTL %v, and %s holds collection %q with DefaultTTL %v: %s; change it with SetDefaultTTL once it is open, or leave Options.DefaultTTL zero for the stored one (R12)", o.DefaultTTL, dir, c.name, c.exp.def, keeps)
	}
	if o.Indexing != engine.Consistent && o.Indexing != c.mode {
		return errorf(engine.ErrInvalidOption, "Options.Indexing %v, and %s holds collection %q in indexing mode %v: %s; change it with SetIndexingMode once it is open, or leave Options.Indexing zero for the stored one (R12)", o.Indexing, dir, c.name, c.mode, keeps)
	}
	if len(o.Indexes) > 0 {
		asked, stored := slices.Sorted(slices.Values(o.Indexes)), slices.Sorted(slices.Values(c.sec.loaded))
		if !slices.Equal(asked, stored) {
			return errorf(engine.ErrInvalidOption, "Options.Indexes %q, and %s holds collection %q with the indexes %q: %s; change them with CreateIndex and DropIndex once it is open, or leave Options.Indexes nil for the stored ones (R12)", o.Indexes, dir, c.name, c.sec.loaded, keeps)
		}
	}
	return nil
}
