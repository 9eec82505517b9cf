package ttldb

import (
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"hash/fnv"
)

// A continuation token is the base64url encoding of:
//
//	version      1 byte, tokenVersion
//	collection   8 bytes, big-endian: the issuing collection's tokenID
//	shape        8 bytes, big-endian: the FNV-1a hash of the query's shape
//	position     a listing's: the key of the last document returned;
//	             the change feed's: 8 bytes, big-endian, the LSN it
//	             resumes after
//	checksum     4 bytes, big-endian: the CRC-32 (IEEE) of all the above
//
// The collection and the shape bind a token to the collection and the
// query that issued it, so that a token is never taken by another, whose
// keys it would misread and skip silently ([ErrInvalidContinuation] instead).
// The checksum catches damage; it is no seal against forgery, which could
// only choose where a listing of the same collection resumes.
const tokenVersion = 2

// tokenScope is what a token is bound to: the issuing collection and the
// shape of the query.
type tokenScope struct{ collection, shape uint64 }

// shapeOf returns the hash of a query's shape: all partitions, or the one
// whose key encoding is prefix. A Filter, which is Go code, cannot be part
// of it.
func shapeOf(partition bool, prefix string) uint64 {
	h := fnv.New64a()
	if partition {
		h.Write([]byte("partition\x00"))
		h.Write([]byte(prefix))
	} else {
		h.Write([]byte("all"))
	}
	return h.Sum64()
}

// feedShape returns the hash of a change-feed query's shape: its mode, and
// all partitions or the one whose key encoding is prefix. It never equals
// a listing's.
func feedShape(mode FeedMode, partition bool, prefix string) uint64 {
	h := fnv.New64a()
	h.Write([]byte{'f', 'e', 'e', 'd', 0, byte(mode), 0})
	if partition {
		h.Write([]byte("partition\x00"))
		h.Write([]byte(prefix))
	}
	return h.Sum64()
}

// sealToken returns the token for a position in scope.
func sealToken(scope tokenScope, position string) string {
	b := make([]byte, 0, 1+8+8+len(position)+4)
	b = append(b, tokenVersion)
	b = binary.BigEndian.AppendUint64(b, scope.collection)
	b = binary.BigEndian.AppendUint64(b, scope.shape)
	b = append(b, position...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return base64.RawURLEncoding.EncodeToString(b)
}

// openToken returns the position a token holds, if it was issued in scope;
// name is the collection's, for messages.
func openToken(tok string, scope tokenScope, name string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) < 1+8+8+4 || b[0] != tokenVersion {
		return "", errorf(ErrInvalidContinuation, "token %.40q was not issued by this version of ttldb", tok)
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return "", errorf(ErrInvalidContinuation, "token %.40q is damaged", tok)
	}
	if binary.BigEndian.Uint64(body[1:]) != scope.collection {
		return "", errorf(ErrInvalidContinuation, "token %.40q was issued by another collection than %q: a token resumes only the read that issued it", tok, name)
	}
	if binary.BigEndian.Uint64(body[9:]) != scope.shape {
		return "", errorf(ErrInvalidContinuation, "token %.40q was issued for a read of another kind, mode or partition: resume with the query that issued it", tok)
	}
	return string(body[17:]), nil
}

// decodeToken returns the key a listing's token resumes after, if the token
// was issued in scope; name is the collection's, for messages.
func decodeToken(tok string, scope tokenScope, name string) (string, error) {
	key, err := openToken(tok, scope, name)
	if err != nil {
		return "", err
	}
	enc, id, ok := splitKey(key)
	var pk PartitionKey
	if ok {
		pk, ok = decodePartitionKey(enc)
	}
	if ok && id == "" && pk.kind == pkString {
		id = pk.s // a key of a collection partitioned by /id: see keyFor
	}
	if !ok || pk.validate() != nil || validateID(id) != nil {
		return "", errorf(ErrInvalidContinuation, "token %.40q holds no document key", tok)
	}
	return key, nil
}

// encodeFeedToken returns the token of a feed read that resumes after lsn.
func encodeFeedToken(scope tokenScope, lsn uint64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], lsn)
	return sealToken(scope, string(b[:]))
}

// decodeFeedToken returns the LSN a feed token resumes after.
func decodeFeedToken(tok string, scope tokenScope, name string) (uint64, error) {
	pos, err := openToken(tok, scope, name)
	if err != nil {
		return 0, err
	}
	if len(pos) != 8 {
		return 0, errorf(ErrInvalidContinuation, "token %.40q holds no change-feed position", tok)
	}
	return binary.BigEndian.Uint64([]byte(pos)), nil
}
