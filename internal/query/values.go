package query

import "github.com/ttldb/ttldb/internal/jsontext"

// maxValues is the most paths Values reads in one pass over a document.
const maxValues = 8

// Values sets vals[i] to r.Value(ps[i]) for each of ps, reading r's body
// once for the first members of all of them, where a call of Value per
// path reads it once per path: a write keeps one secondary index per path,
// for the old document and the new (issue 31). vals must have len(ps)
// values. It costs one pass over the body's top-level members (for up to
// maxValues paths; beyond, one per path) and does not allocate but where
// Value does (a string with escapes).
func (r Row) Values(ps []Path, vals []Value) {
	var raw [maxValues]string
	var seen [maxValues]uint8 // 1: found once; 2: found more than once
	obj := bytesOf(r.Body)
	if len(ps) > maxValues || len(obj) == 0 || obj[0] != '{' {
		for i, p := range ps {
			vals[i] = r.Value(p)
		}
		return
	}
	for i := 1; i < len(obj) && obj[i] != '}'; {
		kEnd := jsontext.Skip(obj, i)
		vEnd := jsontext.Skip(obj, kEnd+1)
		for j, p := range ps {
			if bodyPath(p) && jsontext.KeyIs(obj[i:kEnd], p[0].Name) {
				seen[j] = min(seen[j]+1, 2) // a byte that counted on would wrap: 256 times is 0
				raw[j] = stringOf(obj[kEnd+1 : vEnd])
			}
		}
		i = vEnd
		if i < len(obj) && obj[i] == ',' {
			i++
		}
	}
	for j, p := range ps {
		switch {
		case !bodyPath(p):
			vals[j] = r.Value(p)
		case seen[j] != 1: // none, or a name the object holds twice: undefined
			vals[j] = Value{}
		default:
			v, ok := lookupIn(raw[j], p[1:])
			if !ok {
				vals[j] = Value{}
				continue
			}
			vals[j], _ = FromJSON(v)
		}
	}
}

// bodyPath reports whether p starts with the name of a member of the
// document, which Values reads in its pass: not a system property.
func bodyPath(p Path) bool {
	if len(p) == 0 || p[0].IsIndex {
		return false
	}
	return len(p) > 1 || p[0].Name != "_ts" && p[0].Name != "_etag"
}
