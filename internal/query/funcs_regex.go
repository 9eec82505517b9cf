package query

import (
	"regexp"
	"strings"
	"sync"
)

// fnRegexMatch is REGEXMATCH(s, pattern[, modifiers]): whether pattern
// matches somewhere in s. The modifiers are letters of "imsx" (case
// insensitive; ^ and $ at line ends; . matching a newline; white space
// and # comments in the pattern ignored), "" being none. The service's
// patterns are PCRE; this one's are Go's (RE2), which has no
// backreferences nor lookaround: a pattern it cannot compile, or an
// unknown modifier, makes the call undefined.
func fnRegexMatch(b *Bound, e *expr, r Row) val {
	s, pat := b.arg(e, &r, 0), b.arg(e, &r, 1)
	mods := strVal("")
	if len(e.args) == 3 {
		mods = b.arg(e, &r, 2)
	}
	if s.Kind != String || pat.Kind != String || mods.Kind != String {
		return undef
	}
	re := compileRegex(pat.Str, mods.Str)
	if re == nil {
		return undef
	}
	return boolVal(re.MatchString(s.Str))
}

// regexCache holds the patterns compiled lately, so that a query compiles
// its pattern once rather than once a row. It is emptied when full.
var regexCache struct {
	sync.Mutex
	m map[[2]string]*regexp.Regexp // by pattern and modifiers; nil: does not compile
}

const regexCacheSize = 256

// compileRegex returns pattern compiled with the modifiers mods, or nil
// when it does not compile or a modifier is unknown.
func compileRegex(pattern, mods string) *regexp.Regexp {
	key := [2]string{pattern, mods}
	regexCache.Lock()
	re, ok := regexCache.m[key]
	regexCache.Unlock()
	if ok {
		return re
	}
	re = compileRegexUncached(pattern, mods)
	regexCache.Lock()
	if len(regexCache.m) >= regexCacheSize || regexCache.m == nil {
		regexCache.m = map[[2]string]*regexp.Regexp{}
	}
	regexCache.m[key] = re
	regexCache.Unlock()
	return re
}

func compileRegexUncached(pattern, mods string) *regexp.Regexp {
	flags := ""
	for _, m := range mods {
		switch m {
		case 'i', 'm', 's':
			if !strings.ContainsRune(flags, m) {
				flags += string(m)
			}
		case 'x':
			pattern = extended(pattern)
		default:
			return nil
		}
	}
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil
	}
	return re
}

// extended returns pattern without what PCRE's x modifier ignores: white
// space and comments from # to the end of the line, outside a character
// class and unescaped.
func extended(pattern string) string {
	var sb strings.Builder
	inClass, comment := false, false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case comment:
			comment = c != '\n'
		case c == '\\' && i+1 < len(pattern):
			if n := pattern[i+1]; !inClass && isSpaceByte(n) { // an escaped space is one
				sb.WriteString("[" + string(n) + "]")
			} else {
				sb.WriteByte(c)
				sb.WriteByte(n)
			}
			i++
		case inClass:
			inClass = c != ']'
			sb.WriteByte(c)
		case c == '[':
			inClass = true
			sb.WriteByte(c)
			if i+1 < len(pattern) && pattern[i+1] == ']' { // []...] holds ]
				sb.WriteByte(']')
				i++
			}
		case c == '#':
			comment = true
		case isSpaceByte(c):
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
