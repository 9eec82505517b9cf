package ttldb

import "github.com/ttldb/ttldb/engine"

// splitLayout is the layout of a key made of the partition-key encoding
// (enc bytes) followed by the id.
func splitLayout(enc, keyLen int) engine.Layout {
	return engine.Layout{PK: uint16(enc), IDAt: uint16(enc), IDEnd: uint16(keyLen)}
}

// keyFor appends the key of the document with a valid partition key and id
// to b; byID says the collection's partition-key path is /id. The key is the
// encoding of pk followed by the id, except when the path is /id: then pk
// is the id as a string key, and its encoding alone is the key. The id is
// inside it verbatim, as ids hold no 0x00 byte, so it is not stored twice.
// A key built from a pk that is not the id cannot equal such a key, so a
// lookup by it finds nothing, as it should.
func keyFor(b []byte, pk PartitionKey, id string, byID bool) []byte {
	b = pk.appendEncoded(b)
	if byID && pk.kind == pkString && pk.s == id {
		return b
	}
	return append(b, id...)
}

// isIDPath reports whether the partition-key path (split into segments) is
// /id.
func isIDPath(pkPath []string) bool { return len(pkPath) == 1 && pkPath[0] == "id" }

// splitKey splits a document key into its partition-key encoding and id.
// For the key of a collection partitioned by /id, id is empty: the id is
// the string the encoding holds.
func splitKey(key string) (enc, id string, ok bool) {
	if len(key) == 0 || key[0] == 0 || key[0] > byte(pkString)+1 {
		return "", "", false
	}
	n := 1
	switch pkKind(key[0] - 1) {
	case pkNumber:
		n = 9
	case pkString:
		for n = 1; ; n++ {
			if n+1 >= len(key) {
				return "", "", false
			}
			if key[n] == 0 {
				if key[n+1] == 1 {
					n += 2
					break
				}
				n++ // 0x00 0xff
			}
		}
	}
	if n > len(key) {
		return "", "", false
	}
	return key[:n], key[n:], true
}
