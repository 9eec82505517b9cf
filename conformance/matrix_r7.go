package conformance

// The TTL matrix of R7: changing DefaultTTL on a live collection.

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// R7: changing DefaultTTL on a live collection.

// mxR7Settings are the four DefaultTTL states R7 moves between: off, -1, n
// and m; mxR7Docs the document ttls each batch of documents has.
var (
	mxR7Settings = []mxSetting{mxOff, mxNoDef, mxDefN, mxDefM}
	mxR7Docs     = []mxTTL{mxAbsent, mxNull, mxMinus1, mxOwn70}
)

// mxChange sets DefaultTTL to the setting at seconds after the start.
type mxChange struct {
	at int64
	to mxSetting
}

// mxScenario is a collection created with start, whose DefaultTTL then
// changes as changes say (in time order). A batch of documents (one of each
// of mxR7Docs) is written at the start, and another just after the first
// change.
type mxScenario struct {
	start   mxSetting
	changes []mxChange
}

func (s mxScenario) String() string {
	name := s.start.name
	for _, ch := range s.changes {
		name += fmt.Sprintf("->%s@%d", ch.to.name, ch.at)
	}
	return name
}

// visible is the model of R3, R4 and R7: whether a document with ttl,
// written w seconds after the start, is visible now seconds after the start
// once the first applied changes have been made. Under each setting it
// expires as R3 says; and if it was expired at the instant a change was
// made, it stays gone whatever comes after (R7).
func (s mxScenario) visible(w int64, ttl mxTTL, now int64, applied int) bool {
	cur := s.start
	for _, ch := range s.changes[:applied] {
		if ch.at > w && mxExpired(mxLifetime(cur, ttl), ch.at-w) {
			return false // R7: expired when the setting changed
		}
		cur = ch.to
	}
	return !mxExpired(mxLifetime(cur, ttl), now-w)
}

// instants returns the seconds after the start at which run checks
// visibility: around each change and around each instant a document could
// expire at, and ten years later.
func (s mxScenario) instants() []int64 {
	out := []int64{0, mxFar}
	writes := []int64{0}
	for _, ch := range s.changes {
		out = append(out, ch.at-1, ch.at)
	}
	if len(s.changes) > 0 {
		writes = append(writes, s.changes[0].at)
	}
	for _, w := range writes {
		for _, life := range []int64{40, 70, 100} {
			out = append(out, w+life-1, w+life)
		}
	}
	slices.Sort(out)
	return slices.Compact(slices.DeleteFunc(out, func(at int64) bool { return at < 0 }))
}

// mxDocAt is a document of a scenario: its ttl and when it was written.
type mxDocAt struct {
	id  string
	ttl mxTTL
	w   int64
}

// run plays the scenario in a bubble and checks, at every instant, before
// and after each change, that exactly the documents the model says are
// visible through every read.
func (s mxScenario) run(t *testing.T, eng Harness, sweeper bool) {
	mxTest(t, eng, func(t *testing.T) {
		c := mxNewCollection(t, s.start.def, sweeper)
		start := mxNow(t)
		var docs []mxDocAt
		writeBatch := func(w int64) {
			for _, ttl := range mxR7Docs {
				id := fmt.Sprintf("%s@%d", ttl.name, w)
				d := mxCreate(t, c, id, "c1", ttl)
				require.Equal(t, start+w, d.TS())
				docs = append(docs, mxDocAt{id, ttl, w})
			}
		}
		check := func(applied int, when string) {
			t.Helper()
			now := mxNow(t) - start
			var all, want []string
			for _, d := range docs {
				all = append(all, d.id)
				if s.visible(d.w, d.ttl, now, applied) {
					want = append(want, d.id)
				}
			}
			msg := fmt.Sprintf("%s at +%ds %s", s, now, when)
			mxRequireVisible(t, c, all, want, msg)
			if _, on := c.DefaultTTL().Seconds(); sweeper && on {
				// The sweep after the change has deleted what expired,
				// including after a change of setting (R5).
				require.Zero(t, mxStats(t, c).Expired, "%s: Stats.Expired", msg)
			}
		}

		writeBatch(0)
		applied := 0
		for _, at := range s.instants() {
			mxSleepUntil(t, start+at)
			check(applied, "")
			for applied < len(s.changes) && s.changes[applied].at == at {
				to := s.changes[applied].to
				require.NoError(t, c.SetDefaultTTL(bg, to.def))
				mxSwept(t)
				require.Equal(t, to.def, c.DefaultTTL())
				applied++
				check(applied, "just after DefaultTTL became "+to.name)
				if applied == 1 {
					writeBatch(at)
					check(applied, "after the second batch")
				}
			}
		}
	})
}

// mxChangeTimes are the instants a change is made at: before anything
// expires, exactly when a document expires, and between expiries.
var mxChangeTimes = []int64{20, 40, 50, 70, 80, 100, 130}

// R7: every ordered pair of settings, changed at each of mxChangeTimes.
func mxR7MatrixPairs(t *testing.T, eng Harness) {
	for _, mode := range mxSweepModes {
		t.Run(mode.name, func(t *testing.T) {
			for _, from := range mxR7Settings {
				for _, to := range mxR7Settings {
					for _, at := range mxChangeTimes {
						s := mxScenario{start: from, changes: []mxChange{{at, to}}}
						t.Run(s.String(), func(t *testing.T) { s.run(t, eng, mode.sweeper) })
					}
				}
			}
		})
	}
}

// mxPermutations returns every order of settings.
func mxPermutations(settings []mxSetting) [][]mxSetting {
	if len(settings) <= 1 {
		return [][]mxSetting{slices.Clone(settings)}
	}
	var out [][]mxSetting
	for i, first := range settings {
		rest := slices.Concat(settings[:i], settings[i+1:])
		for _, p := range mxPermutations(rest) {
			out = append(out, append([]mxSetting{first}, p...))
		}
	}
	return out
}

// R7: longer sequences: the four settings in every order, and back to the
// first (off -> -1 -> n -> m -> off and the 23 others), on two time grids.
func mxR7MatrixSequences(t *testing.T, eng Harness) {
	grids := [][]int64{{20, 50, 80, 130}, {40, 70, 100, 170}}
	for _, mode := range mxSweepModes {
		t.Run(mode.name, func(t *testing.T) {
			for _, order := range mxPermutations(mxR7Settings) {
				for _, grid := range grids {
					s := mxScenario{start: order[0]}
					for i, to := range append(order[1:], order[0]) {
						s.changes = append(s.changes, mxChange{grid[i], to})
					}
					t.Run(s.String(), func(t *testing.T) { s.run(t, eng, mode.sweeper) })
				}
			}
		})
	}
}

// R7: named examples of "a document that had already expired when the
// setting changed stays gone", checked through every operation, including
// the writes: Replace, Touch, Delete and a conditional Upsert do not find
// it, and Create succeeds as over a free key.
func mxR7MatrixExpiredStaysGone(t *testing.T, eng Harness) {
	own10, own20 := mxTTL{"own=10", "10"}, mxTTL{"own=20", "20"}
	cases := []struct {
		name  string
		start ttldb.DefaultTTL
		ttl   mxTTL
		at    int64              // seconds after the write when the settings change
		then  []ttldb.DefaultTTL // the settings, in order, all made at at
		alive bool               // the document is alive after the changes, forever
	}{
		{"n=10, expired at 10, off at 15", ttldb.TTLSeconds(10), mxAbsent, 15, []ttldb.DefaultTTL{ttldb.TTLOff()}, false},
		{"n=10, expired at 10, off then 1000 at 15", ttldb.TTLSeconds(10), mxAbsent, 15, []ttldb.DefaultTTL{ttldb.TTLOff(), ttldb.TTLSeconds(1000)}, false},
		{"n=10, expired at 10, 1000 at 15", ttldb.TTLSeconds(10), mxAbsent, 15, []ttldb.DefaultTTL{ttldb.TTLSeconds(1000)}, false},
		{"n=10, expired at 10, -1 at 15", ttldb.TTLSeconds(10), mxAbsent, 15, []ttldb.DefaultTTL{ttldb.TTLNoDefault()}, false},
		{"n=10, ttl null, expired at 10, off at 15", ttldb.TTLSeconds(10), mxNull, 15, []ttldb.DefaultTTL{ttldb.TTLOff()}, false},
		{"n=10, expired at exactly 10, off at 10", ttldb.TTLSeconds(10), mxAbsent, 10, []ttldb.DefaultTTL{ttldb.TTLOff()}, false},
		{"n=10, off at 9, one second before expiry", ttldb.TTLSeconds(10), mxAbsent, 9, []ttldb.DefaultTTL{ttldb.TTLOff()}, true},
		{"n=10, -1 at 9", ttldb.TTLSeconds(10), mxAbsent, 9, []ttldb.DefaultTTL{ttldb.TTLNoDefault()}, true},
		{"-1, own 10 expired, off at 15", ttldb.TTLNoDefault(), own10, 15, []ttldb.DefaultTTL{ttldb.TTLOff()}, false},
		{"-1, own 10 expired, off then -1 then 1000 at 15", ttldb.TTLNoDefault(), own10, 15, []ttldb.DefaultTTL{ttldb.TTLOff(), ttldb.TTLNoDefault(), ttldb.TTLSeconds(1000)}, false},
		{"-1, own 20 alive, off at 15", ttldb.TTLNoDefault(), own20, 15, []ttldb.DefaultTTL{ttldb.TTLOff()}, true},
		{"n=1000, own 10 expired, off at 15", ttldb.TTLSeconds(1000), own10, 15, []ttldb.DefaultTTL{ttldb.TTLOff()}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mxTest(t, eng, func(t *testing.T) {
				c := mxNewCollection(t, tc.start, false)
				body := mxDoc(mxID, "c1", tc.ttl)
				written, err := c.Create(bg, body)
				require.NoError(t, err)
				var want []string
				if tc.alive {
					want = []string{mxID}
				}
				mxSleepUntil(t, written.TS()+tc.at)
				for _, def := range tc.then {
					require.NoError(t, c.SetDefaultTTL(bg, def))
					mxRequireVisible(t, c, []string{mxID}, want, "after DefaultTTL became "+def.String())
				}
				mxSleepUntil(t, written.TS()+mxFar)
				mxRequireVisible(t, c, []string{mxID}, want, "ten years later")
				if tc.alive {
					return
				}
				_, err = c.Replace(bg, body)
				require.ErrorIs(t, err, ttldb.ErrNotFound, "Replace")
				_, err = c.Touch(bg, mxC1, mxID)
				require.ErrorIs(t, err, ttldb.ErrNotFound, "Touch")
				_, err = c.Upsert(bg, body, ttldb.IfMatch(written.ETag()))
				require.ErrorIs(t, err, ttldb.ErrNotFound, "Upsert with IfMatch")
				require.ErrorIs(t, c.Delete(bg, mxC1, mxID), ttldb.ErrNotFound, "Delete")
				got, err := c.Create(bg, body)
				require.NoError(t, err, "Create over the expired document")
				require.Equal(t, mxNow(t), got.TS())
				mxRequireVisible(t, c, []string{mxID}, []string{mxID}, "after Create")
			})
		})
	}
}
