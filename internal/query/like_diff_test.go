package query

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// likeRegexp is a reference for p: the regexp its elements spell, as the
// conformance model builds one (characters as code points, an invalid
// byte one U+FFFD, as for utf8.DecodeRuneInString).
func likeRegexp(p *likePattern) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for _, el := range p.elems {
		switch el.kind {
		case likeChar:
			b.WriteString(regexp.QuoteMeta(string(el.c)))
		case likeOne:
			b.WriteString(`.`)
		case likeAny:
			b.WriteString(`.*`)
		case likeClass:
			var set strings.Builder
			for _, rg := range el.ranges {
				if rg[0] <= rg[1] { // [z-a] holds nothing
					fmt.Fprintf(&set, `\x{%x}-\x{%x}`, rg[0], rg[1])
				}
			}
			switch {
			case set.Len() == 0 && el.not:
				b.WriteString(`.`)
			case set.Len() == 0:
				b.WriteString(`[^\x00-\x{10FFFF}]`)
			case el.not:
				b.WriteString(`[^` + set.String() + `]`)
			default:
				b.WriteString(`[` + set.String() + `]`)
			}
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

// likeBacktrack is the matcher match replaced, a second reference: on a
// mismatch the last % takes one more character, O(len(s) × len(p.elems)).
func likeBacktrack(p *likePattern, s string) bool {
	i, j := 0, 0
	star, back := -1, 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case j < len(p.elems) && p.elems[j].kind == likeAny:
			star, back = j, i
			j++
		case j < len(p.elems) && p.elems[j].one(r):
			i += size
			j++
		case star >= 0:
			_, bs := utf8.DecodeRuneInString(s[back:])
			back += bs
			i, j = back, star+1
		default:
			return false
		}
	}
	for j < len(p.elems) && p.elems[j].kind == likeAny {
		j++
	}
	return j == len(p.elems)
}

// R13: LIKE matches as a regexp spelled from its pattern and as the
// backtracking scan it replaced, on many random patterns and values of a
// small alphabet with the wildcards, brackets, the escape, a character of
// two bytes, one of four and an invalid byte; some patterns long enough
// for Shift-And's second word.
func TestLikeMatchesReferences(t *testing.T) {
	alpha := []string{"a", "b", "a", "b", "%", "_", "[", "]", "^", "-", "!", "é", "😀", "\xff"}
	r := rand.New(rand.NewPCG(1, 2))
	draw := func(n int) string {
		var b strings.Builder
		for range r.IntN(n + 1) {
			b.WriteString(alpha[r.IntN(len(alpha))])
		}
		return b.String()
	}
	matched := 0
	for i := range 200000 {
		pat := draw(8)
		long := i%20 == 0
		var fit string // a value a long pattern's middle matches
		if long {
			pat, fit = longSegment(r)
			pat = "%" + pat + "%" + draw(3)
		}
		var esc rune
		if r.IntN(3) == 0 {
			esc = '!'
		}
		p := compileLike(pat, esc)
		if p == nil {
			continue
		}
		re := likeRegexp(p)
		for range 4 {
			s := draw(12)
			if long {
				s = draw(20) + fit + draw(20)
				if r.IntN(2) == 0 { // most often no longer a match
					at := r.IntN(len(s))
					s = s[:at] + alpha[r.IntN(len(alpha))] + s[at+1:]
				}
			}
			got := p.match(s)
			require.Equal(t, re.MatchString(s), got, "%q LIKE %q ESCAPE %q", s, pat, esc)
			require.Equal(t, likeBacktrack(p, s), got, "%q LIKE %q ESCAPE %q", s, pat, esc)
			if got {
				matched++
			}
		}
	}
	require.Greater(t, matched, 10000) // both answers drawn often
}

// longSegment draws a pattern of 50 to 150 elements with no %, for
// Shift-And's words, and a value it matches.
func longSegment(r *rand.Rand) (pat, fit string) {
	elems := []struct{ pat, fit string }{
		{"a", "a"}, {"b", "b"}, {"é", "é"}, {"_", "a"}, {"_", "😀"}, {"_", "\xff"},
		{"[aé]", "é"}, {"[^a]", "b"}, {"[^a]", "😀"}, {"[é-😀]", "😀"}, {"[%]", "%"}, {"[_]", "_"},
	}
	var p, f strings.Builder
	for range 50 + r.IntN(100) {
		e := elems[r.IntN(len(elems))]
		p.WriteString(e.pat)
		f.WriteString(e.fit)
	}
	return p.String(), f.String()
}

// R13: LIKE's cost is linear: the review's adversarial pattern, % then
// 4,000 a's then b (or _b, or [b]), on 200,000 a's reads O(n + m)
// characters (with 64 elements to a word of Shift-And's state), where the
// backtracking scan read n × m.
func TestLikeLinear(t *testing.T) {
	n, m := 200000, 4000
	s := strings.Repeat("a", n)
	for _, tc := range []struct {
		pat   string
		words int // of Shift-And's state, 0 for a literal
	}{
		{"%" + strings.Repeat("a", m) + "b", 0},
		{"%" + strings.Repeat("a", m) + "b%a", 0},
		{strings.Repeat("%a", m) + "%b", 0},
		{"%" + strings.Repeat("a", m) + "_b", 1 + m/64},
		{"%" + strings.Repeat("a", m) + "[b]%", 2 + m/64},
		{"%" + strings.Repeat("é", m) + "_b", 1 + m/64},
	} {
		p := compileLike(tc.pat, 0)
		steps := 0
		require.False(t, p.matchSteps(s, &steps), tc.pat[:10])
		require.LessOrEqual(t, steps, 4*(n+m)*max(1, tc.words), tc.pat[:10])
		steps = 0
		require.False(t, p.matchSteps(strings.Repeat("é", n/2), &steps), tc.pat[:10])
		require.LessOrEqual(t, steps, 4*(n+m)*max(1, tc.words), tc.pat[:10])
	}
}
