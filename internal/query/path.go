package query

import (
	"errors"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/jsontext"
)

// Step is one step of a [Path]: a member name, or an array index.
type Step struct {
	Name    string
	Index   int
	IsIndex bool
}

// Path is a property path from a document's root: c.user.name is
// [{Name: "user"} {Name: "name"}]; c.tags[0] is [{Name: "tags"} {Index: 0,
// IsIndex: true}].
type Path []Step

// ParsePointer returns the path of a JSON Pointer of member names, as
// "/user/name" ("~1" stands for "/" and "~0" for "~"), the form in which
// secondary indexes are declared. Every segment is a member name.
func ParsePointer(ptr string) (Path, error) {
	if !strings.HasPrefix(ptr, "/") {
		return nil, errors.New("a path starts with '/', as /status or /user/name")
	}
	var p Path
	for _, seg := range strings.Split(ptr[1:], "/") {
		if seg == "" {
			return nil, errors.New("a path has no empty segment")
		}
		name, err := unescapeSegment(seg)
		if err != nil {
			return nil, err
		}
		p = append(p, Step{Name: name})
	}
	return p, nil
}

func unescapeSegment(seg string) (string, error) {
	if !strings.Contains(seg, "~") {
		return seg, nil
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		if seg[i] != '~' {
			b.WriteByte(seg[i])
			continue
		}
		if i+1 == len(seg) || (seg[i+1] != '0' && seg[i+1] != '1') {
			return "", errors.New("'~' in a path is followed by 0 or 1 (~0 is '~', ~1 is '/')")
		}
		b.WriteByte("~/"[seg[i+1]-'0'])
		i++
	}
	return b.String(), nil
}

// Pointer returns the path as a JSON Pointer, and false if it has an array
// index step, which no index path holds.
func (p Path) Pointer() (string, bool) {
	var b strings.Builder
	for _, s := range p {
		if s.IsIndex {
			return "", false
		}
		b.WriteByte('/')
		pointerEscaper.WriteString(&b, s.Name)
	}
	return b.String(), true
}

// IsPointer reports whether ptr is p's Pointer (and p has one), without
// making it: O(len(ptr)), no allocation.
func (p Path) IsPointer(ptr string) bool {
	for _, s := range p {
		if s.IsIndex || ptr == "" || ptr[0] != '/' {
			return false
		}
		ptr = ptr[1:]
		for i := 0; i < len(s.Name); i++ {
			esc := ""
			switch c := s.Name[i]; c {
			case '~':
				esc = "~0"
			case '/':
				esc = "~1"
			default:
				if ptr == "" || ptr[0] != c {
					return false
				}
				ptr = ptr[1:]
				continue
			}
			if !strings.HasPrefix(ptr, esc) {
				return false
			}
			ptr = ptr[2:]
		}
	}
	return ptr == ""
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// String returns the path as a query writes it, from the alias c.
func (p Path) String() string {
	var b strings.Builder
	b.WriteString("c")
	for _, s := range p {
		switch {
		case s.IsIndex:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case isIdent(s.Name):
			b.WriteString("." + s.Name)
		default:
			b.WriteString("[" + strconv.Quote(s.Name) + "]")
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Row is a stored document as a query reads it: its body, the compact JSON
// object as written, and the system properties the collection keeps beside
// it.
type Row struct {
	Body string // without _ts and _etag
	TS   int64
	ETag string
	agg  *aggRow // the result of all the rows or of a group: what xAgg and xGroupRef read; nil for a row

	binds  []string // a row of a product (Bound.Each): each join's element, as JSON
	budget *budget  // what its document may still spend (MaxJoinRows), shared by its rows; nil: none yet
}

// aggRow is what the SELECT clause of a query with aggregates or GROUP BY
// reads: the aggregates' values, by idx, and the group's values of GROUP
// BY's expressions.
type aggRow struct {
	aggs, keys []val
}

// Lookup returns the raw JSON value at p, and false when p leads nowhere
// (undefined): a missing member, an index out of range, a step through a
// scalar, or a member name its object holds twice. c._ts and c._etag read
// the system properties.
func (r Row) Lookup(p Path) (string, bool) {
	if len(p) == 0 {
		return r.Body, true
	}
	if !p[0].IsIndex && len(p) == 1 {
		switch p[0].Name {
		case "_ts":
			return strconv.FormatInt(r.TS, 10), true
		case "_etag":
			return strconv.Quote(r.ETag), true
		}
	}
	return lookupIn(r.Body, p)
}

// lookupIn returns the raw JSON value at p in the compact JSON value doc,
// and false when p leads nowhere.
func lookupIn(doc string, p Path) (string, bool) {
	cur := bytesOf(doc)
	for _, s := range p {
		if s.IsIndex {
			v, ok := element(cur, s.Index)
			if !ok {
				return "", false
			}
			cur = v
			continue
		}
		v, found, _ := jsontext.Member(cur, s.Name)
		if !found {
			return "", false
		}
		cur = v
	}
	return stringOf(cur), true
}

// Value returns the value at p: undefined when p leads nowhere.
func (r Row) Value(p Path) Value {
	raw, ok := r.Lookup(p)
	if !ok {
		return Value{}
	}
	v, _ := FromJSON(raw)
	return v
}

// element returns element i of arr, a compact JSON array.
func element(arr []byte, i int) ([]byte, bool) {
	if len(arr) == 0 || arr[0] != '[' || i < 0 {
		return nil, false
	}
	j := 1
	for n := 0; j < len(arr) && arr[j] != ']'; n++ {
		end := jsontext.Skip(arr, j)
		if n == i {
			return arr[j:end], true
		}
		j = end
		if j < len(arr) && arr[j] == ',' {
			j++
		}
	}
	return nil, false
}

// Elements calls fn with each element of raw, a compact JSON array, until
// fn returns false.
func Elements(raw string, fn func(elem string) bool) {
	arr := bytesOf(raw)
	if len(arr) == 0 || arr[0] != '[' {
		return
	}
	for j := 1; j < len(arr) && arr[j] != ']'; {
		end := jsontext.Skip(arr, j)
		if !fn(stringOf(arr[j:end])) {
			return
		}
		j = end
		if j < len(arr) && arr[j] == ',' {
			j++
		}
	}
}

// RowOf returns d as a query reads it; its etag is written into tag, which
// must outlive the row's use. The row has no budget of its own: a query
// gives it the document's with [Row.Spend], so that the calls reading the
// document share one (see Row.Err). It allocates nothing.
func RowOf(d *engine.Doc, tag []byte) Row {
	t := engine.AppendETag(tag[:0], d.Tag)
	return Row{Body: d.Body(), TS: d.TS, ETag: unsafe.String(unsafe.SliceData(t), len(t))}
}
