package conformance

// The model's inputs of a write: documents, valid or invalid (R2, R10), their
// ttls, and if-match conditions (R5).

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ttldb/ttldb"
)

// genTTL draws a valid document ttl (R2), in one of its literal forms.
func (h *modelHarness) genTTL() mTTL {
	r := h.r
	switch r.IntN(10) {
	case 0, 1:
		return mTTL{kind: ttlAbsent}
	case 2:
		return mTTL{kind: ttlNull, lit: "null"}
	case 3:
		return mTTL{kind: ttlNever, n: -1, lit: pick(r, []string{"-1", "-1", "-1.0", "-10e-1"})}
	case 4:
		if r.IntN(3) == 0 {
			return mTTL{kind: ttlSeconds, n: ttldb.MaxTTL, lit: pick(r, []string{"2147483647", "2147483647.0"})}
		}
	}
	n := 1 + r.Int64N(8)
	s := strconv.FormatInt(n, 10)
	return mTTL{kind: ttlSeconds, n: n, lit: pick(r, []string{s, s, s + ".0", s + "e0", s + "0e-1", s + "E+0"})}
}

// docInput is what a write passes, and what the model expects of it.
type docInput struct {
	payload any
	text    string
	doc     *mDoc  // the document the library must store, nil for bad input
	class   string // the error class of bad input
	msg     string // a value the error text must name, or ""
}

// render writes members as a JSON object, with random insignificant
// whitespace between the tokens.
func (h *modelHarness) render(ms []mMember) string {
	ws := func() string {
		if h.r.IntN(8) == 0 {
			return pick(h.r, []string{" ", "\n", "\t", "\r\n  "})
		}
		return ""
	}
	var b strings.Builder
	b.WriteString(ws() + "{")
	for i, m := range ms {
		if i > 0 {
			b.WriteString(ws() + ",")
		}
		b.WriteString(ws() + strconv.Quote(m.name) + ws() + ":" + ws() + m.raw)
	}
	b.WriteString(ws() + "}" + ws())
	return b.String()
}

func setMember(ms []mMember, name, raw string) []mMember {
	for i := range ms {
		if ms[i].name == name {
			ms[i].raw = raw
			return ms
		}
	}
	return append(ms, mMember{name, raw})
}

// genDoc draws a document for key k: valid, or with exactly one defect.
func (h *modelHarness) genDoc(k mKey, valid bool) docInput {
	r := h.r
	ms := []mMember{{"id", h.idLit(k.id)}}
	if m, ok := h.pkMember(k.pk, ""); ok {
		ms = append(ms, m)
	}
	if h.idPath {
		if k != idKey(k.id) {
			panic(fmt.Sprintf("key %v in a collection partitioned by /id", k))
		}
		// With the path /id a "pk" member is ordinary data, whatever it
		// holds: it puts the document in no other partition.
		if r.IntN(3) == 0 {
			ms = append(ms, mMember{"pk", pick(r, modelOrdinaryPKs)})
		}
	}
	ttl := h.genTTL()
	if ttl.kind != ttlAbsent {
		ms = append(ms, mMember{"ttl", ttl.lit})
	}
	if r.IntN(4) > 0 {
		ms = append(ms, mMember{"v", strconv.Itoa(r.IntN(1000))})
	}
	if r.IntN(5) == 0 { // R9: a nested ttl is just data
		ms = append(ms, mMember{"sub", `{"ttl":"soon","id":7,"pk":[1],"_ts":1,"x":[1,{"ttl":0}]}`})
	}
	r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	stored := slices.Clone(ms)
	if r.IntN(6) == 0 { // the library writes _ts and _etag itself
		for _, sys := range []mMember{{"_ts", "12"}, {"_etag", `"0000000000000000"`}} {
			at := r.IntN(len(ms) + 1)
			ms = slices.Insert(ms, at, sys)
		}
	}
	in := docInput{doc: &mDoc{members: stored, ttl: ttl}}
	if valid {
		in.text = h.render(ms)
		switch r.IntN(6) {
		case 0:
			in.payload = json.RawMessage(in.text)
		case 1: // a Go value: encoding/json writes the members sorted by name
			m := map[string]any{}
			for _, x := range ms {
				m[x.name] = json.RawMessage(x.raw)
			}
			in.payload = m
			slices.SortFunc(in.doc.members, func(a, b mMember) int { return strings.Compare(a.name, b.name) })
		default:
			in.payload = []byte(in.text)
		}
		return in
	}

	in.doc = nil
	whole := false // the defect is the whole text, not a member
	switch r.IntN(10) {
	case 0, 1: // R2
		bad := pick(r, modelBadTTLs)
		ms = setMember(ms, "ttl", bad)
		in.class, in.msg = classInvalidTTL, bad
	case 2: // R10
		ms = setMember(ms, "id", pick(r, modelBadIDLits))
		in.class = classInvalidID
	case 3:
		ms = slices.DeleteFunc(ms, func(x mMember) bool { return x.name == "id" })
		in.class = classInvalidID
	case 4:
		if h.idPath { // the partition key is the id: a bad one is a bad id (R10)
			ms = setMember(ms, "id", pick(r, modelBadIDPKLits))
			in.class = classInvalidID
			break
		}
		m, _ := h.pkMember(k.pk, pick(r, modelBadPKLits))
		ms = setMember(ms, m.name, m.raw)
		in.class = classInvalidPK
	case 5:
		in.text, in.class, whole = pick(r, modelNotObjects), classInvalidDoc, true
	case 6:
		in.text, in.class, whole = pick(r, modelBadJSON), classInvalidDoc, true
	case 7:
		ms = append(ms, mMember{"deep", strings.Repeat("[", 200) + strings.Repeat("]", 200)})
		in.class = classInvalidDoc
	case 8:
		if r.IntN(40) == 0 {
			ms = append(ms, mMember{"big", `"` + strings.Repeat("b", ttldb.MaxDocumentSize) + `"`})
			in.class = classTooLarge
		} else {
			ms = setMember(ms, "ttl", "0")
			in.class, in.msg = classInvalidTTL, "0"
		}
	case 9: // Go values that are not JSON objects
		in.class = classInvalidDoc
		v := pick(r, []any{"{}", nil, []int{1}, make(chan int), 42})
		in.payload, in.text = v, fmt.Sprintf("Go value of type %T", v)
		return in
	}
	if !whole {
		in.text = h.render(ms)
	}
	in.payload = []byte(in.text)
	return in
}

// genIfMatch draws the write options: none, or an if-match etag that is
// current, stale, of another key, or made up.
func (h *modelHarness) genIfMatch(k mKey) ([]ttldb.WriteOption, *string, string) {
	r := h.r
	if r.IntN(2) == 0 {
		if r.IntN(4) == 0 {
			return []ttldb.WriteOption{{}}, nil, " opts=[zero]" // the zero WriteOption adds no condition
		}
		return nil, nil, ""
	}
	var etag, what string
	switch n := r.IntN(10); {
	case n < 5 && h.m.docs[k] != nil:
		etag, what = h.m.docs[k].etag, "current"
	case n < 8 && len(h.etags[k]) > 0:
		etag, what = pick(r, h.etags[k]), "earlier"
	case n < 9 && len(h.etags) > 0:
		keys := slices.SortedFunc(maps.Keys(h.etags), cmpKey) // sorted: a seed must replay
		e := h.etags[pick(r, keys)]
		etag, what = e[len(e)-1], "some key's last"
	}
	if what == "" {
		etag, what = pick(r, []string{"0000000000000000", "bogus", `"x"`}), "made-up"
	}
	desc := fmt.Sprintf(" IfMatch(%s %q)", what, etag)
	if r.IntN(6) == 0 { // the last IfMatch wins
		return []ttldb.WriteOption{ttldb.IfMatch("stale"), ttldb.IfMatch(etag)}, &etag, desc + " after IfMatch(stale)"
	}
	return []ttldb.WriteOption{ttldb.IfMatch(etag)}, &etag, desc
}
