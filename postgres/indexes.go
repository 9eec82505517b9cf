package postgres

import (
	"slices"

	"github.com/ttldb/ttldb/engine"
)

// setIndexes records in the handle's settings the indexing mode and
// indexes read from, or written to, the collection's row: a new slice, as
// Settings gives the handle's own to its callers.
func (e *Engine) setIndexes(m engine.Indexing, idx []string) {
	if s := e.settings.Load(); s == nil || s.Indexing == m && slices.Equal(s.Indexes, idx) {
		return // as held: no copy
	}
	e.updateSettings(func(s *engine.Settings) {
		if s.Indexing != m || !slices.Equal(s.Indexes, idx) {
			s.Indexing, s.Indexes = m, slices.Clip(slices.Clone(idx))
		}
	})
}

// updateSettings changes the handle's settings with change, on a copy
// swapped in atomically, again if another change came first.
func (e *Engine) updateSettings(change func(*engine.Settings)) {
	for {
		old := e.settings.Load()
		if old == nil {
			return
		}
		c := *old
		change(&c)
		if e.settings.CompareAndSwap(old, &c) {
			return
		}
	}
}
