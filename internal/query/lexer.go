package query

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// tokKind is the kind of a token.
type tokKind uint8

const (
	tEOF    tokKind = iota // the end of the text
	tError                 // a lexical error: msg says which
	tIdent                 // a name or a keyword: text
	tParam                 // @name: str is the name
	tNumber                // an unsigned number: num
	tString                // a string literal: str is its value
	tPunct                 // an operator or punctuation: text
)

// token is one token of a query, at text[off:end].
type token struct {
	kind tokKind
	off  int
	end  int
	text string  // the source text
	str  string  // tParam: the name; tString: the value
	num  float64 // tNumber
	msg  string  // tError
}

// is reports whether t is the punctuation or operator s.
func (t token) is(s string) bool { return t.kind == tPunct && t.text == s }

// isKeyword reports whether t is the keyword kw (upper case), in any case.
func (t token) isKeyword(kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

// keywords are the words that name no property, alias or container: true
// for those of the language, false for those of Cosmos SQL it refuses as
// not supported. [Keywords] lists the first, and the README and the
// package documentation of ttldb list them (a test checks it).
var keywords = map[string]bool{
	"SELECT": true, "TOP": true, "VALUE": true, "FROM": true, "AS": true, "WHERE": true,
	"ORDER": true, "BY": true, "ASC": true, "DESC": true, "OFFSET": true, "LIMIT": true,
	"AND": true, "OR": true, "NOT": true, "IN": true, "BETWEEN": true, "TRUE": true,
	"FALSE": true, "NULL": true, "UNDEFINED": true,
	"GROUP": true, "LIKE": true, "ESCAPE": true, "JOIN": true, "DISTINCT": true,
	"EXISTS": true, "ARRAY": true,
}

// isReserved reports whether t is a keyword.
func (t token) isReserved() bool {
	if t.kind != tIdent {
		return false
	}
	_, ok := keywords[strings.ToUpper(t.text)]
	return ok
}

// operators are the operators and punctuation, longest first.
var operators = []string{
	">>>", "!=", "<>", "<=", ">=", "<<", ">>", "||", "??",
	"(", ")", "[", "]", "{", "}", ",", ".", "*", "=", "<", ">",
	"+", "-", "/", "%", "|", "&", "^", "~", "?", ":",
}

// lexer reads the tokens of a text one after the other.
type lexer struct {
	text string
	i    int   // where the next token is looked for
	last token // the token read last
	n    int   // how many tokens were read
}

// next returns the next token. After a tError or the tEOF, it returns that
// token again.
func (l *lexer) next() token {
	if l.n > 0 && (l.last.kind == tEOF || l.last.kind == tError) {
		return l.last
	}
	text, i := l.text, skipSpace(l.text, l.i)
	var t token
	if i == len(text) {
		t = token{kind: tEOF, off: i, end: i}
	} else {
		// After an operand, .5 is a member access gone wrong (c.5), not
		// a number.
		afterOperand := l.n > 0 && (l.last.kind != tPunct || l.last.text == "]" || l.last.text == ")")
		t = lexOne(text, i, afterOperand)
	}
	l.i, l.last = t.end, t
	l.n++
	return t
}

// skipSpace returns where the first token at or after text[i] starts,
// passing white space and comments: -- to the end of the line, as the
// service reads them (Azure/azure-cosmos-db-emulator-docker issue 272;
// microsoft/vscode-cosmosdb issue 2414).
func skipSpace(text string, i int) int {
	for i < len(text) {
		switch {
		case strings.IndexByte(" \t\n\r\f\v", text[i]) >= 0:
			i++
		case strings.HasPrefix(text[i:], "--"):
			j := strings.IndexAny(text[i:], "\n\r")
			if j < 0 {
				return len(text)
			}
			i += j
		default:
			return i
		}
	}
	return i
}

// lex splits text into tokens. It stops at the first lexical error, which
// it gives as a tError token; otherwise the last token is tEOF.
func lex(text string) []token {
	l := lexer{text: text}
	var toks []token
	for {
		t := l.next()
		toks = append(toks, t)
		if t.kind == tEOF || t.kind == tError {
			return toks
		}
	}
}

// lexOne reads the token at text[i], which is no space; afterOperand is
// set when the token before ends an operand.
func lexOne(text string, i int, afterOperand bool) token {
	c := text[i]
	switch {
	case isIdentStart(c):
		j := i + 1
		for j < len(text) && isIdentPart(text[j]) {
			j++
		}
		return token{kind: tIdent, off: i, end: j, text: text[i:j]}
	case c == '@':
		j := i + 1
		for j < len(text) && isIdentPart(text[j]) {
			j++
		}
		if j == i+1 {
			return lexError(i, "expected a parameter name after '@'")
		}
		return token{kind: tParam, off: i, end: j, text: text[i:j], str: text[i+1 : j]}
	case isDigit(c) || c == '.' && !afterOperand && i+1 < len(text) && isDigit(text[i+1]):
		return lexNumber(text, i)
	case c == '"' || c == '\'':
		return lexString(text, i)
	}
	if strings.HasPrefix(text[i:], "/*") {
		return lexError(i, "/* is no comment in Cosmos SQL (the service refuses it: SC1001, microsoft/vscode-cosmosdb issue 2414): write -- and the comment to the end of the line")
	}
	for _, op := range operators {
		if strings.HasPrefix(text[i:], op) {
			return token{kind: tPunct, off: i, end: i + len(op), text: op}
		}
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return lexError(i, "unexpected character "+strconv.QuoteRune(r))
}

func lexError(off int, msg string) token {
	return token{kind: tError, off: off, end: off, msg: msg}
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lexNumber reads a number without its sign, as Cosmos DB writes them:
// digits, a decimal point and digits (either may be left out, not both),
// then optionally an exponent.
func lexNumber(text string, i int) token {
	j := i
	for j < len(text) && isDigit(text[j]) {
		j++
	}
	if j < len(text) && text[j] == '.' {
		j++
		for j < len(text) && isDigit(text[j]) {
			j++
		}
	}
	if j < len(text) && (text[j] == 'e' || text[j] == 'E') {
		j++
		if j < len(text) && (text[j] == '+' || text[j] == '-') {
			j++
		}
		if j == len(text) || !isDigit(text[j]) {
			return lexError(j, "expected a digit in the exponent")
		}
		for j < len(text) && isDigit(text[j]) {
			j++
		}
	}
	if j < len(text) && isIdentPart(text[j]) {
		return lexError(j, "expected a space or an operator after the number "+text[i:j])
	}
	f, err := strconv.ParseFloat(text[i:j], 64)
	if err != nil {
		return lexError(i, "the number "+text[i:j]+" is out of range")
	}
	return token{kind: tNumber, off: i, end: j, text: text[i:j], num: f}
}

// lexString reads a string literal in single or double quotes, with the
// escapes \' \" \\ \/ \b \f \n \r \t and \uXXXX.
func lexString(text string, i int) token {
	quote := text[i]
	var b strings.Builder
	j := i + 1
	for {
		k := j
		for k < len(text) && text[k] != quote && text[k] != '\\' {
			k++
		}
		b.WriteString(text[j:k])
		if k == len(text) {
			return lexError(i, "the string is not closed: expected "+string(quote)+" at its end")
		}
		if text[k] == quote {
			return token{kind: tString, off: i, end: k + 1, text: text[i : k+1], str: b.String()}
		}
		if k+1 == len(text) {
			return lexError(i, "the string is not closed: expected "+string(quote)+" at its end")
		}
		e := text[k+1]
		j = k + 2
		switch e {
		case '\'', '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hexRune(text, j)
			if !ok {
				return lexError(k, `expected four hexadecimal digits after \u`)
			}
			j += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if strings.HasPrefix(text[j:], `\u`) {
					r2, ok = hexRune(text, j+2)
				}
				if r = utf16.DecodeRune(r, r2); !ok || r == utf8.RuneError {
					return lexError(k, `a \u escape of a surrogate is followed by the \u escape of its pair`)
				}
				j += 6
			}
			b.WriteRune(r)
		default:
			r, _ := utf8.DecodeRuneInString(text[k+1:])
			return lexError(k, `unknown escape \`+string(r)+`: use \' \" \\ \/ \b \f \n \r \t or \uXXXX`)
		}
	}
}

// hexRune reads four hexadecimal digits at text[i].
func hexRune(text string, i int) (rune, bool) {
	if i+4 > len(text) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(text[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
