package query

import (
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
	prefix string // the characters every match starts with, before the first wildcard
	pre    []byte // prefix, while compileLike builds it
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

// match reports whether s matches p: the classic scan that, on a
// mismatch, lets the last % take one more character, in time
// O(len(s) × len(p.elems)) at worst, and no allocation.
func (p *likePattern) match(s string) bool {
	i, j := 0, 0        // byte in s, element of p
	star, back := -1, 0 // the last % seen, and the byte of s it was tried at
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
