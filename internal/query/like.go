package query

import (
	"strings"
	"unicode/utf8"
)

// LIKE, as the service documents it (Learn, "LIKE"): % matches any string
// of zero or more characters, _ any one character, [a-f] or [abcdef] one
// character of the range or the set, [^a-f] one character outside it; a
// wildcard in brackets is an ordinary character ([%] matches %, [[] matches
// [), as is a ] outside brackets, and so is the character after the ESCAPE
// character. Characters are Unicode code points, compared exactly (LIKE is
// case-sensitive, as RegexMatch without the "i" flag, its documented
// equivalent). A value or a pattern that is no string, or an ESCAPE that
// is no string of one character, makes LIKE undefined, as is a pattern
// that ends with its escape character (the documentation is silent; ttldb
// chose undefined over guessing).

// likeKind is the kind of a pattern's element.
type likeKind uint8

const (
	likeChar  likeKind = iota // one character, c
	likeOne                   // _: any one character
	likeAny                   // %: any string
	likeClass                 // [...] or [^...]: one character in (or, with not, outside) ranges
)

// likeElem is an element of a compiled pattern.
type likeElem struct {
	kind   likeKind
	c      rune
	not    bool
	ranges [][2]rune // likeClass: inclusive ranges
}

// likePattern is a compiled LIKE pattern; nil: an invalid one (LIKE is
// undefined).
type likePattern struct {
	elems  []likeElem
	prefix string    // the characters every match starts with, before the first wildcard
	pre    []byte    // prefix, while compileLike builds it
	segs   []likeSeg // elems split at each %: one more than the %s
}

// compileLike compiles pat, with esc its escape character (0: none).
func compileLike(pat string, esc rune) *likePattern {
	p := &likePattern{elems: make([]likeElem, 0, len(pat))}
	literal := true // no wildcard yet: characters go to the prefix
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case esc != 0 && r == esc:
			if i+1 == len(rs) {
				return nil
			}
			i++
			p.add(likeElem{kind: likeChar, c: rs[i]}, &literal)
		case r == '%':
			literal = false
			if n := len(p.elems); n == 0 || p.elems[n-1].kind != likeAny {
				p.elems = append(p.elems, likeElem{kind: likeAny})
			}
		case r == '_':
			literal = false
			p.elems = append(p.elems, likeElem{kind: likeOne})
		case r == '[':
			el, n, ok := likeBracket(rs[i+1:])
			if !ok { // no closing ]: an ordinary [
				p.add(likeElem{kind: likeChar, c: r}, &literal)
				continue
			}
			i += n
			if el.kind == likeClass {
				literal = false
				p.elems = append(p.elems, el)
			} else {
				p.add(el, &literal)
			}
		default:
			p.add(likeElem{kind: likeChar, c: r}, &literal)
		}
	}
	p.prefix, p.pre = string(p.pre), nil
	p.segs = likeSegments(p.elems)
	return p
}

// add appends el, a likeChar, to p, and to its prefix while literal.
func (p *likePattern) add(el likeElem, literal *bool) {
	p.elems = append(p.elems, el)
	if *literal {
		p.pre = utf8.AppendRune(p.pre, el.c)
	}
}

// likeBracket parses what follows a [: the class up to the first ], or
// the one character it holds when that is a wildcard or a [ ([%], [[]);
// n is how many runes it read, ] included; false without a ] or with
// nothing inside.
func likeBracket(rs []rune) (el likeElem, n int, ok bool) {
	end := -1
	for j, r := range rs {
		if r == ']' {
			end = j
			break
		}
	}
	if end <= 0 {
		return likeElem{}, 0, false
	}
	body := rs[:end]
	if len(body) == 1 {
		return likeElem{kind: likeChar, c: body[0]}, end + 1, true
	}
	el.kind = likeClass
	if body[0] == '^' {
		el.not, body = true, body[1:]
	}
	for j := 0; j < len(body); j++ {
		if j+2 < len(body) && body[j+1] == '-' {
			el.ranges = append(el.ranges, [2]rune{body[j], body[j+2]})
			j += 2
			continue
		}
		el.ranges = append(el.ranges, [2]rune{body[j], body[j]})
	}
	return el, end + 1, true
}

// one reports whether el, no likeAny, matches the character r.
func (el *likeElem) one(r rune) bool {
	switch el.kind {
	case likeChar:
		return r == el.c
	case likeOne:
		return true
	}
	in := false
	for _, rg := range el.ranges {
		if r >= rg[0] && r <= rg[1] {
			in = true
			break
		}
	}
	return in != el.not
}

// match reports whether s matches p, in time O(len(s) + the pattern's
// length) but for a segment with _ or a class (see matchSteps), and no
// allocation but for such a segment's state.
func (p *likePattern) match(s string) bool {
	return p.matchSteps(s, nil)
}

// likeSeg is a run of elements between two %s (or the pattern's start or
// end), each matching one character.
type likeSeg struct {
	elems []likeElem
	lit   string // the characters, when all are likeChar but utf8.RuneError
	isLit bool
	// For a middle segment not isLit, Shift-And (Baeza-Yates and Gonnet)
	// in blocks of 64 elements: bit i of a block's mask is set when its
	// element i matches the character. ascii[128*b+c] is block b's for
	// c < 128; for another, lits[b][c] | ones[b] | its classes' bits.
	ascii   []uint64
	lits    []map[rune]uint64
	ones    []uint64
	classes []int // the elements that are classes
	ranges  int   // how many ranges the classes hold
}

// likeSegments splits elems at each likeAny, in time O(len(elems)) (128
// tries of each element, and each range of a class, for a middle segment
// not literal).
func likeSegments(elems []likeElem) []likeSeg {
	var segs []likeSeg
	from := 0
	for j, el := range elems {
		if el.kind == likeAny {
			segs = append(segs, likeSeg{elems: elems[from:j:j]})
			from = j + 1
		}
	}
	segs = append(segs, likeSeg{elems: elems[from:]})
	for i := range segs {
		sg := &segs[i]
		sg.isLit = true
		var lit []byte
		for _, el := range sg.elems {
			if el.kind != likeChar || el.c == utf8.RuneError {
				sg.isLit = false
				break
			}
			lit = utf8.AppendRune(lit, el.c)
		}
		if sg.isLit {
			sg.lit = string(lit)
			continue
		}
		if i == 0 || i == len(segs)-1 {
			continue // anchored: checked element by element
		}
		blocks := (len(sg.elems) + 63) / 64
		sg.ascii = make([]uint64, 128*blocks)
		sg.lits, sg.ones = make([]map[rune]uint64, blocks), make([]uint64, blocks)
		for j := range sg.elems {
			el, b, bit := &sg.elems[j], j/64, uint64(1)<<(j%64)
			for c := rune(0); c < 128; c++ {
				if el.one(c) {
					sg.ascii[128*b+int(c)] |= bit
				}
			}
			switch el.kind {
			case likeChar:
				if sg.lits[b] == nil {
					sg.lits[b] = map[rune]uint64{}
				}
				sg.lits[b][el.c] |= bit
			case likeOne:
				sg.ones[b] |= bit
			case likeClass:
				sg.classes = append(sg.classes, j)
				sg.ranges += len(el.ranges)
			}
		}
	}
	return segs
}

// at reports where sg matches s from byte i, if it does: element by
// element.
func (sg *likeSeg) at(s string, i int) (int, bool) {
	if sg.isLit {
		return i + len(sg.lit), len(s)-i >= len(sg.lit) && s[i:i+len(sg.lit)] == sg.lit
	}
	for j := range sg.elems {
		if i >= len(s) {
			return 0, false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !sg.elems[j].one(r) {
			return 0, false
		}
		i += size
	}
	return i, true
}

// find returns the end of sg's leftmost match in s, a middle segment's
// (not empty); -1 if none. A literal by strings.Index; otherwise
// Shift-And, with len(sg.elems)/64 words of state, in time
// O(len(s) × words()) (each class's ranges tried on each character not
// ASCII).
func (sg *likeSeg) find(s string) int {
	if sg.isLit {
		if i := strings.Index(s, sg.lit); i >= 0 {
			return i + len(sg.lit)
		}
		return -1
	}
	k := len(sg.elems)
	var small [2][2]uint64             // no allocation for 128 elements or fewer
	d, cls := small[0][:], small[1][:] // cls: the classes' bits for a character not ASCII
	if w := (k + 63) / 64; w > len(d) {
		d, cls = make([]uint64, w), make([]uint64, w)
	} else {
		d, cls = d[:w], cls[:w]
	}
	if len(sg.classes) == 0 {
		cls = nil
	}
	last := uint64(1) << ((k - 1) % 64)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 128 && cls != nil {
			clear(cls)
			for _, j := range sg.classes {
				if sg.elems[j].one(r) {
					cls[j/64] |= 1 << (j % 64)
				}
			}
		}
		carry := uint64(1) // a match may start at each character
		for b := range d {
			var m uint64
			if r < 128 {
				m = sg.ascii[128*b+int(r)]
			} else {
				m = sg.lits[b][r] | sg.ones[b]
				if cls != nil {
					m |= cls[b]
				}
			}
			next := d[b] >> 63
			d[b] = (d[b]<<1 | carry) & m
			carry = next
		}
		if d[len(d)-1]&last != 0 {
			return i
		}
	}
	return -1
}

// words bounds the cost of reading a character for find: 1 for a
// literal, otherwise the words of Shift-And's state and the classes'
// ranges.
func (sg *likeSeg) words() int {
	if sg.isLit {
		return 1
	}
	return (len(sg.elems)+63)/64 + sg.ranges
}

// matchSteps is match, adding to *steps (when not nil) a bound on the
// work it did: characters read, times words of state for a segment with
// _ or a class. Greedy is exact with % the only wildcard of variable
// length: the first segment must match at the start, the last at the
// end, and each other at its leftmost match after the one before.
func (p *likePattern) matchSteps(s string, steps *int) bool {
	segs := p.segs
	first, last := &segs[0], &segs[len(segs)-1]
	lo, ok := first.at(s, 0)
	if steps != nil {
		*steps += len(first.elems)
	}
	if !ok {
		return false
	}
	if len(segs) == 1 {
		return lo == len(s)
	}
	// The last segment starts len(last.elems) characters before the end (a
	// literal with no U+FFFD at a character's start, as any match of it).
	hi := len(s)
	if k := len(last.elems); last.isLit {
		if steps != nil {
			*steps += len(last.lit)
		}
		if !strings.HasSuffix(s[lo:], last.lit) {
			return false
		}
		hi -= len(last.lit)
	} else {
		n := utf8.RuneCountInString(s[lo:])
		if steps != nil {
			*steps += 2*(len(s)-lo) + k
		}
		if n < k {
			return false
		}
		hi = lo
		for ; n > k; n-- {
			_, size := utf8.DecodeRuneInString(s[hi:])
			hi += size
		}
		if end, ok := last.at(s, hi); !ok || end != len(s) {
			return false
		}
	}
	for i := 1; i < len(segs)-1; i++ {
		end := segs[i].find(s[lo:hi])
		if steps != nil {
			read := end
			if end < 0 {
				read = hi - lo
			}
			*steps += read * segs[i].words()
		}
		if end < 0 {
			return false
		}
		lo += end
	}
	return true
}

// likeOf returns the pattern of e, an xLike, for r: the one Bind compiled
// when constant; nil when LIKE is undefined.
func (b *Bound) likeOf(e *expr, r *Row) *likePattern {
	if e.idx >= 0 {
		return b.likes[e.idx]
	}
	return b.compileLikeOf(e, r)
}

// compileLikeOf compiles the pattern and the escape of e, an xLike, as
// they are for r; nil when LIKE is undefined.
func (b *Bound) compileLikeOf(e *expr, r *Row) *likePattern {
	pat := b.eval(e.args[1], r)
	if pat.Kind != String {
		return nil
	}
	var esc rune
	if len(e.args) == 3 {
		v := b.eval(e.args[2], r)
		if v.Kind != String || utf8.RuneCountInString(v.Str) != 1 {
			return nil
		}
		esc, _ = utf8.DecodeRuneInString(v.Str)
	}
	return compileLike(pat.Str, esc)
}

// like returns the value of e, an xLike: [NOT] LIKE, undefined unless the
// value and the pattern are strings.
func (b *Bound) like(e *expr, r *Row) val {
	x := b.eval(e.args[0], r)
	if x.Kind != String {
		return undef
	}
	p := b.likeOf(e, r)
	if p == nil {
		return undef
	}
	return negate(boolVal(p.match(x.Str)), e.not)
}

// likeRanges returns the keys a value can have when e, an xLike on a path
// with a constant pattern, is true: the strings that start with the
// pattern's prefix; none when LIKE is undefined.
func (b *Bound) likeRanges(e *expr) []Range {
	p := b.likes[e.idx]
	if p == nil {
		return nil
	}
	if p.prefix == "" {
		return []Range{kindRange(String)}
	}
	from := AppendStringPrefixKey(nil, p.prefix)
	return []Range{{From: from, To: PrefixEnd(from)}}
}

// parseLike parses what follows LIKE into e: pattern [ESCAPE escape], each
// a shift expression. A literal escape must be a string of one character.
func (p *parser) parseLike(e *expr) error {
	e.kind = xLike
	pat, err := p.parseBinary(levelShift)
	if err != nil {
		return err
	}
	e.args = append(e.args, pat)
	if p.tok().isKeyword("ESCAPE") {
		p.advance()
		t := p.tok()
		esc, err := p.parseBinary(levelShift)
		if err != nil {
			return err
		}
		if esc.kind == xLit && (esc.lit.Kind != String || utf8.RuneCountInString(esc.lit.Str) != 1) {
			return p.fail(t.off, "ESCAPE takes a string of one character, as '!', not %s", describe(t))
		}
		e.args = append(e.args, esc)
	}
	e.idx = -1
	if pat.isConst() && (len(e.args) == 2 || e.args[2].isConst()) {
		e.idx = p.root.likes // numbered on the whole query, as its subqueries' are
		p.root.likes++
	}
	return nil
}
