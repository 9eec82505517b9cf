package ref

import "strconv"

// Never stands for "never expires" in R3's table and in Lifetime.
const Never int64 = 0

// R3N is the DefaultTTL n of R3's table, in seconds.
const R3N = 100

// TTLRow is a row of the table of R3 in SPEC.md: a document's ttl as
// written (Raw, its JSON; "" when the document has none) and its effective
// TTL in seconds under DefaultTTL off, -1 and n = R3N, or Never. The
// "m=250" row checks that an own ttl overrides a smaller default as well as
// a larger one.
type TTLRow struct {
	Name, Raw         string
	Off, NoDefault, N int64
}

// R3 is the table of R3, one row per kind of document ttl.
var R3 = []TTLRow{
	{"absent", "", Never, Never, R3N},
	{"null", "null", Never, Never, R3N},
	{"-1", "-1", Never, Never, Never},
	{"m=30", "30", Never, 30, 30},
	{"m=250", "250", Never, 250, 250},
}

// Lifetime is the reference's reading of R3 for any DefaultTTL: the
// seconds after _ts a document whose ttl is written raw ("" for none)
// lives, or Never. on is false when DefaultTTL is off; n is its seconds, or
// -1 for "no default". It panics on a raw ttl that is not an integer, which
// only a broken test gives it.
func Lifetime(on bool, n int64, raw string) int64 {
	switch {
	case !on, raw == "-1":
		return Never
	case raw == "" || raw == "null":
		if n == -1 {
			return Never
		}
		return n
	}
	own, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		panic("ref.Lifetime: ttl " + raw)
	}
	return own
}
