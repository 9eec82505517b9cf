package query

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// stringFuncs are the string functions but STARTSWITH, ENDSWITH and
// CONTAINS (funcs.go). Each is undefined unless its arguments are of the
// kinds it takes. Lengths and positions count UTF-16 code units, as the
// service does (see doc.go): a character beyond U+FFFF counts two, and a
// cut between the two halves of one gives U+FFFD for the half kept.
var stringFuncs = []*funcDef{
	{"CONCAT", 2, -1, fnConcat},
	{"INDEX_OF", 2, 3, fnIndexOf},
	{"LEFT", 2, 2, fnLeft},
	{"LENGTH", 1, 1, str1(func(s string) val { return numVal(float64(utf16Len(s))) })},
	{"LOWER", 1, 1, str1(func(s string) val { return strVal(strings.ToLower(s)) })},
	{"LTRIM", 1, 2, trim(true, false)},
	{"REPLACE", 3, 3, fnReplace},
	{"REPLICATE", 2, 2, fnReplicate},
	{"REVERSE", 1, 1, str1(reverse)},
	{"RIGHT", 2, 2, fnRight},
	{"RTRIM", 1, 2, trim(false, true)},
	{"STRINGEQUALS", 2, 3, fnStringEquals},
	{"STRINGJOIN", 2, 2, fnStringJoin},
	{"STRINGSPLIT", 2, 2, fnStringSplit},
	{"SUBSTRING", 3, 3, fnSubstring},
	{"TRIM", 1, 2, trim(true, true)},
	{"UPPER", 1, 1, str1(func(s string) val { return strVal(strings.ToUpper(s)) })},
	{"REGEXMATCH", 2, 3, fnRegexMatch},
}

// str1 returns the function of one string that is f.
func str1(f func(string) val) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, e *expr, r Row) val {
		x := b.arg(e, &r, 0)
		if x.Kind != String {
			return undef
		}
		return f(x.Str)
	}
}

// intArg returns v as an int, if it is an integral number, clamped to
// ±2^40 (beyond any string's length).
func intArg(v val) (int, bool) {
	if v.Kind != Number || v.Num != math.Trunc(v.Num) {
		return 0, false
	}
	return int(math.Max(-1<<40, math.Min(v.Num, 1<<40))), true
}

// The string tests: STARTSWITH, ENDSWITH, CONTAINS.
const (
	testPrefix = iota
	testSuffix
	testContains
)

// stringTest returns STARTSWITH, ENDSWITH or CONTAINS (test): undefined
// unless the first two arguments are strings and the third, if any, a
// boolean, which true makes the test ignore case.
func stringTest(test int) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, e *expr, r Row) val {
		s, sub := b.arg(e, &r, 0), b.arg(e, &r, 1)
		if s.Kind != String || sub.Kind != String {
			return undef
		}
		x, y := s.Str, sub.Str
		if len(e.args) == 3 {
			ic := b.arg(e, &r, 2)
			if ic.Kind != Bool {
				return undef
			}
			if ic.Bool {
				return boolVal(foldTest(test, x, y))
			}
		}
		switch test {
		case testPrefix:
			return boolVal(strings.HasPrefix(x, y))
		case testSuffix:
			return boolVal(strings.HasSuffix(x, y))
		}
		return boolVal(strings.Contains(x, y))
	}
}

// foldTest is STARTSWITH, ENDSWITH or CONTAINS of x and y, ignoring case
// as Cosmos does (.NET's ordinal ignore-case): character by character, two
// characters equal when their upper cases are. So ς, σ and Σ are one, and
// so are ı, i and I, as UPPER makes them.
func foldTest(test int, x, y string) bool {
	xs, ys := []rune(x), []rune(y)
	at := func(i int) bool { // whether ys is at xs[i:]
		for j, r := range ys {
			if a := xs[i+j]; a != r && unicode.ToUpper(a) != unicode.ToUpper(r) {
				return false
			}
		}
		return true
	}
	switch {
	case len(ys) > len(xs):
		return false
	case test == testPrefix:
		return at(0)
	case test == testSuffix:
		return at(len(xs) - len(ys))
	}
	for i := 0; i+len(ys) <= len(xs); i++ {
		if at(i) {
			return true
		}
	}
	return false
}

// fnStringEquals is STRINGEQUALS(a, b[, ignoreCase]).
func fnStringEquals(b *Bound, e *expr, r Row) val {
	x, y := b.arg(e, &r, 0), b.arg(e, &r, 1)
	if x.Kind != String || y.Kind != String {
		return undef
	}
	if len(e.args) == 3 {
		ic := b.arg(e, &r, 2)
		if ic.Kind != Bool {
			return undef
		}
		if ic.Bool {
			return boolVal(utf8.RuneCountInString(x.Str) == utf8.RuneCountInString(y.Str) && foldTest(testPrefix, x.Str, y.Str))
		}
	}
	return boolVal(x.Str == y.Str)
}

// fnConcat is CONCAT(s1, s2...): undefined unless every argument is a
// string.
func fnConcat(b *Bound, e *expr, r Row) val {
	var sb strings.Builder
	for i := range e.args {
		s := b.arg(e, &r, i)
		if s.Kind != String {
			return undef
		}
		sb.WriteString(s.Str)
	}
	return strVal(sb.String())
}

// utf16Len returns the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, c := range s {
		n++
		if c >= 0x10000 {
			n++
		}
	}
	return n
}

// utf16Cut returns s's code units from..to (to excluded), each within
// 0..utf16Len(s); a half of a pair kept alone is U+FFFD.
func utf16Cut(s string, from, to int) string {
	if from >= to {
		return ""
	}
	var sb strings.Builder
	u := 0 // the unit c starts at
	for _, c := range s {
		w := 1
		if c >= 0x10000 {
			w = 2
		}
		switch {
		case u >= to:
			return sb.String()
		case u >= from && u+w <= to:
			sb.WriteRune(c)
		case u+w > from: // half of a pair
			sb.WriteRune(utf8.RuneError)
		}
		u += w
	}
	return sb.String()
}

// substring returns SUBSTRING(s, start, n) of the service: "" for a start
// out of s or a length of 0 or less, else up to n units from start.
func substring(s string, start, n int) string {
	l := utf16Len(s)
	if start < 0 || start >= l || n <= 0 {
		return ""
	}
	return utf16Cut(s, start, start+min(n, l-start))
}

// fnSubstring is SUBSTRING(s, start, length), with integral start and
// length (zero-based).
func fnSubstring(b *Bound, e *expr, r Row) val {
	s := b.arg(e, &r, 0)
	start, okS := intArg(b.arg(e, &r, 1))
	n, okN := intArg(b.arg(e, &r, 2))
	if s.Kind != String || !okS || !okN {
		return undef
	}
	return strVal(substring(s.Str, start, n))
}

// fnLeft is LEFT(s, n): the first n units.
func fnLeft(b *Bound, e *expr, r Row) val {
	s := b.arg(e, &r, 0)
	n, ok := intArg(b.arg(e, &r, 1))
	if s.Kind != String || !ok {
		return undef
	}
	return strVal(substring(s.Str, 0, n))
}

// fnRight is RIGHT(s, n): the last n units.
func fnRight(b *Bound, e *expr, r Row) val {
	s := b.arg(e, &r, 0)
	n, ok := intArg(b.arg(e, &r, 1))
	if s.Kind != String || !ok {
		return undef
	}
	l := utf16Len(s.Str)
	return strVal(substring(s.Str, max(l-n, 0), l))
}

// fnIndexOf is INDEX_OF(s, sub[, start]): the unit where sub first occurs
// in s at or after start (0 when left out; a negative start counts as 0),
// or -1.
func fnIndexOf(b *Bound, e *expr, r Row) val {
	s, sub := b.arg(e, &r, 0), b.arg(e, &r, 1)
	start := 0
	if len(e.args) == 3 {
		var ok bool
		if start, ok = intArg(b.arg(e, &r, 2)); !ok {
			return undef
		}
	}
	if s.Kind != String || sub.Kind != String {
		return undef
	}
	u, i := 0, 0 // unit and byte where the search starts
	for u < start && i < len(s.Str) {
		c, w := utf8.DecodeRuneInString(s.Str[i:])
		i += w
		u++
		if c >= 0x10000 {
			u++
		}
	}
	if u < start {
		return numVal(-1)
	}
	j := strings.Index(s.Str[i:], sub.Str)
	if j < 0 {
		return numVal(-1)
	}
	return numVal(float64(u + utf16Len(s.Str[i:i+j])))
}

// trim returns LTRIM, RTRIM or TRIM: without a second argument they take
// off white space; with one, any of its characters (TRIM("-_-a-_-", "-_")
// is "a", the sample corpus's trim; LTRIM("AdventureWorks", "Adventure")
// is "Works", its ltrim).
func trim(left, right bool) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, e *expr, r Row) val {
		s := b.arg(e, &r, 0)
		if s.Kind != String {
			return undef
		}
		cut := unicode.IsSpace
		if len(e.args) == 2 {
			set := b.arg(e, &r, 1)
			if set.Kind != String {
				return undef
			}
			cut = func(c rune) bool { return strings.ContainsRune(set.Str, c) }
		}
		out := s.Str
		if left {
			out = strings.TrimLeftFunc(out, cut)
		}
		if right {
			out = strings.TrimRightFunc(out, cut)
		}
		return strVal(out)
	}
}

// fnReplace is REPLACE(s, old, new): every occurrence of old replaced;
// undefined for an empty old, as the SDK's evaluator has it.
func fnReplace(b *Bound, e *expr, r Row) val {
	s, old, repl := b.arg(e, &r, 0), b.arg(e, &r, 1), b.arg(e, &r, 2)
	if s.Kind != String || old.Kind != String || repl.Kind != String || old.Str == "" {
		return undef
	}
	return strVal(strings.ReplaceAll(s.Str, old.Str, repl.Str))
}

// maxReplicate is the longest string REPLICATE makes, in UTF-16 units
// (the Learn reference); a longer one is undefined.
const maxReplicate = 10000

// fnReplicate is REPLICATE(s, n): s n times, n truncated to an integer;
// undefined for a negative n or a result beyond maxReplicate units.
func fnReplicate(b *Bound, e *expr, r Row) val {
	s, n := b.arg(e, &r, 0), b.arg(e, &r, 1)
	if s.Kind != String || n.Kind != Number || n.Num < 0 || math.IsNaN(n.Num) {
		return undef
	}
	count := math.Trunc(n.Num)
	if s.Str == "" {
		return s
	}
	if count > 0 && float64(utf16Len(s.Str))*count > maxReplicate {
		return undef
	}
	return strVal(strings.Repeat(s.Str, int(count)))
}

// reverse is REVERSE: the characters in reverse order (a pair of UTF-16
// halves kept whole, in order).
func reverse(s string) val {
	rs := []rune(s)
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return strVal(string(rs))
}

// fnStringJoin is STRINGJOIN(arr, sep): the strings of arr joined by sep;
// undefined unless every element is a string.
func fnStringJoin(b *Bound, e *expr, r Row) val {
	arr, sep := b.arg(e, &r, 0), b.arg(e, &r, 1)
	if arr.Kind != Array || sep.Kind != String {
		return undef
	}
	var parts []string
	ok := true
	Elements(arr.Raw, func(raw string) bool {
		v, valid := FromJSON(raw)
		ok = valid && v.Kind == String
		parts = append(parts, v.Str)
		return ok
	})
	if !ok {
		return undef
	}
	return strVal(strings.Join(parts, sep.Str))
}

// fnStringSplit is STRINGSPLIT(s, sep): the array of the parts of s
// between occurrences of sep; an empty sep gives [s] (the Learn
// reference's examples).
func fnStringSplit(b *Bound, e *expr, r Row) val {
	s, sep := b.arg(e, &r, 0), b.arg(e, &r, 1)
	if s.Kind != String || sep.Kind != String {
		return undef
	}
	parts := []string{s.Str}
	if sep.Str != "" {
		parts = strings.Split(s.Str, sep.Str)
	}
	elems := make([]string, len(parts))
	for i, p := range parts {
		elems[i] = string(appendString(nil, p))
	}
	return arrayOf(elems)
}
