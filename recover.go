package ttldb

import "github.com/ttldb/ttldb/engine"

// Recovery says what opening a durable collection found in its directory
// (R12): the snapshot loaded, the logs replayed, a torn tail cut off, the
// settings the open changed. The zero value is a collection that is not
// durable, or a new directory. See [engine.Recovery] for its fields.
type Recovery = engine.Recovery

// SettingChange is a stored setting of a durable collection that its
// reopen changed to what the options asked for (R12): see
// [engine.SettingChange].
type SettingChange = engine.SettingChange

// Recovery returns what opening the collection found in its directory: the
// zero Recovery for a collection in memory, and for an engine that does
// not recover from files of its own ([engine.Recoverer]). It costs a copy.
func (c *Collection) Recovery() Recovery {
	if r, ok := c.eng.(engine.Recoverer); ok {
		return r.Recovery()
	}
	return Recovery{}
}
