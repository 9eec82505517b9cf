package ttldb

import (
	"encoding/json"
	"fmt"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/jsonscan"
	"github.com/ttldb/ttldb/internal/jsontext"
)

// encodeInput turns what a caller passes to a write into JSON text: []byte
// and json.RawMessage are taken as JSON; any other value is encoded with
// encoding/json.
func encodeInput(v any) ([]byte, error) {
	switch x := v.(type) {
	case []byte:
		return x, nil
	case json.RawMessage:
		return x, nil
	case nil:
		return nil, errorf(ErrInvalidDocument, "document is nil, want a JSON object")
	case string:
		return nil, errorf(ErrInvalidDocument, "document is a Go string %.40q, which encodes to a JSON string, not an object; pass []byte for JSON text", x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, errorf(ErrInvalidDocument, "document of type %T does not encode to JSON: %v", v, err)
	}
	return b, nil
}

// intake is a validated incoming document: its compact JSON without the
// system properties, and its ttl. Its key comes apart, so that escape
// analysis can keep the key's buffer on the stack.
type intake struct {
	out []byte // the compact object, system properties removed
	at  engine.Layout
	ttl int32
}

// parseDocument validates src as a document of a collection whose partition
// key lives at the path pkPath (split into segments), appending its compact
// form to buf and its key (as keyFor builds it) to keyBuf. Errors wrap
// [ErrInvalidDocument], [ErrTooLarge], [ErrInvalidID],
// [ErrInvalidPartitionKey] or [ErrInvalidTTL], naming the value at fault.
func parseDocument(buf, keyBuf, src []byte, pkPath []string) (in intake, key []byte, err error) {
	s, err := jsonscan.Document(buf, src, pkPath[0])
	if err != nil {
		if e, ok := err.(*jsonscan.Error); ok && e.TooLarge {
			return intake{}, nil, errorf(ErrTooLarge, "%s", e.Msg)
		}
		return intake{}, nil, errorf(ErrInvalidDocument, "%s", err)
	}
	in = intake{out: s.Out}

	// id (R10)
	if !s.ID.Set() {
		if s.IDLike != "" {
			return intake{}, nil, errorf(ErrInvalidID, "document has no \"id\" member, but has %q: member names are case-sensitive; a Go struct field ID encodes as \"ID\" unless tagged `json:\"id\"` (R10)", s.IDLike)
		}
		return intake{}, nil, errorf(ErrInvalidID, "document has no id (R10)")
	}
	idRaw := s.Out[s.ID.Start:s.ID.End]
	if idRaw[0] != '"' {
		return intake{}, nil, errorf(ErrInvalidID, "id %s is a JSON %s, want a string (R10)", clip(idRaw), jsontext.Kind(idRaw[0]))
	}
	id, ok := jsontext.Unquote(idRaw)
	if !ok {
		return intake{}, nil, errorf(ErrInvalidID, "id %s holds a lone surrogate escape, which is not Unicode text (R10)", clip(idRaw))
	}
	if err := validateID(id); err != nil {
		return intake{}, nil, err
	}

	// ttl (R2)
	if s.TTL.Set() {
		t, err := parseDocTTL(id, s.Out[s.TTL.Start:s.TTL.End])
		if err != nil {
			return intake{}, nil, err
		}
		in.ttl = t
	}

	// partition key (R10): follow the path from the top-level member; a
	// document without it is in the "none" partition.
	pkRaw := []byte(nil)
	if s.PK.Set() {
		pkRaw = s.Out[s.PK.Start:s.PK.End]
		for _, seg := range pkPath[1:] {
			val, found, dup := jsontext.Member(pkRaw, seg)
			if dup {
				return intake{}, nil, errorf(ErrInvalidDocument, "document %q: member %q of the partition-key path appears twice", id, seg)
			}
			pkRaw = val
			if !found {
				break
			}
		}
	}
	key, err = appendPartitionKeyJSON(keyBuf[:0], pkRaw)
	if err != nil {
		return intake{}, nil, fmt.Errorf("document %q: %w", id, err)
	}
	if isIDPath(pkPath) {
		// The key is the encoding of the id as a string key: see keyFor.
		in.at = engine.Layout{PK: uint16(len(key)), IDAt: 1, IDEnd: uint16(len(key) - 2)}
		return in, key, nil
	}
	in.at = splitLayout(len(key), len(key)+len(id))
	return in, append(key, id...), nil
}

// describeKey names the document with the key for messages. It copies what
// it formats, so the key does not escape.
func describeKey(key []byte, at engine.Layout) string {
	pk, _ := decodePartitionKey(string(key[:at.PK]))
	return fmt.Sprintf("document %q in partition %v", string(key[at.IDAt:at.IDEnd]), pk)
}
