package ref

// What SPEC.md says of a written document (R2, R10): the oracle of
// FuzzDocument and of the patched document of the reference patch.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Expect is what SPEC.md says of a document written to a collection whose
// partition-key path is path.
type Expect struct {
	// ScanErr: the input is not a JSON object within R10's depth, or not
	// UTF-8: the only answer is ErrInvalidDocument.
	ScanErr bool
	// Faults are the sentinels the input breaks; empty when it must be
	// accepted. When it breaks several, any of them may be reported.
	Faults map[Fault]bool
	// BigInput: over MaxDocumentSize bytes, so ErrTooLarge may be reported
	// (whether it must depends on the whitespace and system properties
	// dropped).
	BigInput bool

	Tree   *Node // the input
	ID     string
	TTL    *Node // nil when absent
	TTLVal int64
	PK     Key
}

// Key is a partition key as the oracle reads it: its kind ('s', 'n', 't',
// 'f' or 'z' for null; 0 for none) and its value.
type Key struct {
	Kind byte
	Str  string
	Num  float64
}

// ExpectDocument is what SPEC.md says of the document b written to a
// collection whose partition-key path is path.
func ExpectDocument(b []byte, path string) Expect {
	e := Expect{Faults: map[Fault]bool{}, BigInput: len(b) > MaxDocumentSize}
	if !json.Valid(b) || !utf8.Valid(b) {
		// Invalid JSON is never accepted; valid JSON holds bytes >= 0x80
		// only in strings, where R10 wants UTF-8 (the library is stricter
		// than encoding/json, which replaces bad bytes with U+FFFD).
		e.ScanErr = true
		return e
	}
	tree, err := Parse(b)
	if err != nil {
		panic(fmt.Sprintf("json.Valid accepts %q but the Decoder says %v", b, err))
	}
	e.Tree = tree
	// R10's depth is that of what is stored: without _ts and _etag, which
	// are only read, and whose nesting the scanner bounds at 10,000.
	if tree.Kind != 'o' || tree.Without("_ts", "_etag").Depth() > MaxDepth || tree.Depth() > 10_000 {
		e.ScanErr = true
		return e
	}
	if e.BigInput && len(tree.Members("_ts"))+len(tree.Members("_etag")) == 0 {
		// R10's size is that of the compact encoding (json.Compact keeps
		// strings as written, as the library does).
		var compact bytes.Buffer
		if err := json.Compact(&compact, b); err != nil {
			panic(err)
		}
		if compact.Len() > MaxDocumentSize {
			e.Faults[TooLarge] = true
		}
		e.BigInput = false
	}
	segs := strings.Split(path[1:], "/")

	// Members that R2 and R10 read must appear once (the library is
	// stricter than encoding/json, where the last one wins).
	for _, name := range []string{"id", "ttl", segs[0]} {
		if len(tree.Members(name)) > 1 {
			e.Faults[InvalidDocument] = true
		}
	}

	// id (R10)
	switch ids := tree.Members("id"); {
	case len(ids) == 0 || ids[0].Kind != 's':
		e.Faults[InvalidID] = true
	case !IDOK(ids[0].Str) || ids[0].Lone:
		e.Faults[InvalidID] = true
	default:
		e.ID = ids[0].Str
	}

	// ttl (R2)
	if ttls := tree.Members("ttl"); len(ttls) > 0 {
		e.TTL = ttls[0]
		lit := "null"
		switch e.TTL.Kind {
		case 'z':
		case 'n':
			lit = e.TTL.Str
		default:
			lit = "not a number"
		}
		v, ok := ttlOracle(lit)
		if !ok {
			e.Faults[InvalidTTL] = true
		}
		e.TTLVal = v
	}

	// partition key (R10): follow the path; a member along it must not
	// appear twice.
	cur := tree
	found := true
	for _, seg := range segs {
		if cur.Kind != 'o' {
			found = false
			break
		}
		vs := cur.Members(seg)
		if len(vs) > 1 {
			e.Faults[InvalidDocument] = true
		}
		if len(vs) == 0 {
			found = false
			break
		}
		cur = vs[0]
	}
	if found {
		switch cur.Kind {
		case 's':
			if !PKStringOK(cur.Str) || cur.Lone {
				e.Faults[InvalidPartitionKey] = true
			}
			e.PK = Key{Kind: 's', Str: cur.Str}
		case 'n':
			f, err := strconv.ParseFloat(cur.Str, 64)
			if err != nil || math.IsInf(f, 0) {
				e.Faults[InvalidPartitionKey] = true
			}
			e.PK = Key{Kind: 'n', Num: f}
		case 't':
			e.PK = Key{Kind: 't'}
		case 'f':
			e.PK = Key{Kind: 'f'}
		case 'z':
			e.PK = Key{Kind: 'z'}
		default:
			e.Faults[InvalidPartitionKey] = true
		}
	}
	return e
}
