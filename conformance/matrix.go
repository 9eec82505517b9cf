package conformance

// Matrix tests of time to live: rule R3 (the effective TTL of every
// combination of DefaultTTL and document ttl) seen through every operation
// (R4), R6 (a write restarts the countdown and changes the ttl), R7
// (changing DefaultTTL on a live collection), R8 (TTL needs indexing) and
// R2 (the ttl is stored as written).
//
// Moved from the root package's ttl_matrix_test.go, which keeps the check of
// R3 as a function (it needs the package's internals). All time comes from
// the suite's clock (mxTest): each test's starts at 2000-01-01 00:00:00 UTC,
// an exact second, so a document written at once has _ts equal to that
// second, and mxSleepUntil moves it without waiting. Where the root package
// ran each test also with the background sweeper, whose timing is the
// engine's, the suite runs it also "Swept": Sweep after every move of the
// clock and every change of DefaultTTL, a sweeper that is never behind,
// which must not change any result (R4, R5). Helpers and types of this
// file start with "mx".

import (
	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/internal/ref"
)

// ---------------------------------------------------------------------------
// The cells of R3.

// mxNever stands for "never expires" in the expectation tables.
const mxNever = ref.Never

// mxFar is "far later": ten years, in seconds.
const mxFar = int64(10 * 365 * 24 * 60 * 60)

// mxSetting is a DefaultTTL state of R1, with a name for subtest names.
type mxSetting struct {
	name string
	def  ttldb.DefaultTTL
}

var (
	mxOff   = mxSetting{"off", ttldb.TTLOff()}
	mxNoDef = mxSetting{"-1", ttldb.TTLNoDefault()}
	mxDefN  = mxSetting{"n=100", ttldb.TTLSeconds(100)}
	mxDefM  = mxSetting{"m=40", ttldb.TTLSeconds(40)} // a second n, for R7
)

// mxTTL is a document's ttl member as written: its raw JSON, or "" when the
// document has no ttl.
type mxTTL struct{ name, raw string }

var (
	mxAbsent = mxTTL{"absent", ""}
	mxNull   = mxTTL{"null", "null"}
	mxMinus1 = mxTTL{"-1", "-1"}
	mxOwn30  = mxTTL{"m=30", "30"}   // own ttl below n
	mxOwn250 = mxTTL{"m=250", "250"} // own ttl above n
	mxOwn70  = mxTTL{"own=70", "70"} // own ttl between the two defaults of R7
)

// mxR3Table is the table of R3 in SPEC.md (ref.R3), for DefaultTTL n = 100,
// with the rows as the matrix names them.
var mxR3Table = func() (rows []struct {
	ttl            mxTTL
	off, noDef, is int64
}) {
	for _, r := range ref.R3 {
		rows = append(rows, struct {
			ttl            mxTTL
			off, noDef, is int64
		}{mxTTL{r.Name, r.Raw}, r.Off, r.NoDefault, r.N})
	}
	return rows
}()

// mxCell is one cell of R3: a DefaultTTL, a document ttl and the expected
// effective TTL.
type mxCell struct {
	set  mxSetting
	ttl  mxTTL
	want int64
}

func (c mxCell) String() string { return "DefaultTTL=" + c.set.name + ",ttl=" + c.ttl.name }

func mxR3Cells() []mxCell {
	var cells []mxCell
	for _, row := range mxR3Table {
		cells = append(cells,
			mxCell{mxOff, row.ttl, row.off},
			mxCell{mxNoDef, row.ttl, row.noDef},
			mxCell{mxDefN, row.ttl, row.is})
	}
	return cells
}

// mxLifetime is the reference's reading of R3 (ref.Lifetime), for any
// DefaultTTL: seconds after _ts, or mxNever. TestEffectiveTTLMatrix checks it
// against mxR3Table.
func mxLifetime(s mxSetting, ttl mxTTL) int64 {
	n, on := s.def.Seconds()
	return ref.Lifetime(on, n, ttl.raw)
}

// mxExpired reports whether a document that lives life seconds (or mxNever)
// is expired age seconds after its _ts (R4: at _ts + t <= now).
func mxExpired(life, age int64) bool { return life != mxNever && age >= life }
