package ttldb

import (
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"hash/fnv"
	"strings"
)

// A continuation token is the base64url encoding of:
//
//	version      1 byte, tokenVersion
//	collection   8 bytes, big-endian: the issuing collection's tokenID
//	name         4 bytes, big-endian: the FNV-1a hash (32 bits) of its name
//	read         1 byte: readList, readQuery, or readFeed plus the
//	             feed's mode
//	partition    8 bytes, big-endian: the FNV-1a hash of "partition", a
//	             0x00 byte and the key encoding of the partition read; 0
//	             for all partitions
//	query        a query's only: 8 bytes, big-endian, the FNV-1a hash of
//	             its text, then 8 of its parameters (see queryRun.tokenScope)
//	position     a listing's: the key of the last document returned; a
//	             query's: see queryRun.token; the change feed's: 8 bytes,
//	             big-endian, the LSN it resumes after
//	checksum     4 bytes, big-endian: the CRC-32 (IEEE) of all the above
//
// The fields before the position bind a token to the collection and the
// read that issued it, so that a token is never taken by another, whose
// keys it would misread and skip silently ([ErrInvalidContinuation]
// instead); each is its own field so that the error can say which differs.
// The name serves only that message: the collection is told by its
// tokenID, which a durable collection keeps across reopens. The checksum
// catches damage; it is no seal against forgery, which could only choose
// where a read of the same collection resumes.
const tokenVersion = 3

// The kinds of read a token resumes.
const (
	readList  = 1 // List, All
	readQuery = 2 // Query
	readFeed  = 3 // ReadFeed, WatchFeed: readFeed+mode
)

// tokenHeader is the size of a token's fields before the position, but
// for a query's own.
const tokenHeader = 1 + 8 + 4 + 1 + 8

// tokenScope is what a token is bound to: the issuing collection, and the
// read, as token.go's layout says.
type tokenScope struct {
	collection   uint64 // the collection's tokenID
	name         uint32 // the hash of its name, for messages
	read         byte
	partition    uint64 // 0: all partitions
	text, params uint64 // a query's
}

// scopeOf returns the scope of the tokens of c's read of kind read, of all
// partitions or of the one whose key encoding is prefix. A Filter, which
// is Go code, cannot be part of it.
func scopeOf(c *Collection, read byte, partition bool, prefix string) tokenScope {
	s := tokenScope{collection: c.tokenID, read: read}
	h := fnv.New32a()
	h.Write([]byte(c.name))
	s.name = h.Sum32()
	if partition {
		h := fnv.New64a()
		h.Write([]byte("partition\x00"))
		h.Write([]byte(prefix))
		s.partition = max(h.Sum64(), 1) // 0 is all partitions
	}
	return s
}

// sealToken returns the token for a position in scope.
func sealToken(scope tokenScope, position string) string {
	b := make([]byte, 0, tokenHeader+16+len(position)+4)
	b = append(b, tokenVersion)
	b = binary.BigEndian.AppendUint64(b, scope.collection)
	b = binary.BigEndian.AppendUint32(b, scope.name)
	b = append(b, scope.read)
	b = binary.BigEndian.AppendUint64(b, scope.partition)
	if scope.read == readQuery {
		b = binary.BigEndian.AppendUint64(b, scope.text)
		b = binary.BigEndian.AppendUint64(b, scope.params)
	}
	b = append(b, position...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return base64.RawURLEncoding.EncodeToString(b)
}

// openToken returns the position a token holds, if it was issued in scope;
// name is the collection's, for messages, which say what differs.
func openToken(tok string, scope tokenScope, name string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	switch {
	case err == nil && len(b) >= 1+8+8+4 && b[0] == 2 && crc32.ChecksumIEEE(b[:len(b)-4]) == binary.BigEndian.Uint32(b[len(b)-4:]):
		return "", errorf(ErrInvalidContinuation, "token %.40q was issued by an earlier version of ttldb: start the read again, without it", tok)
	case err != nil || len(b) < tokenHeader+4 || b[0] != tokenVersion:
		return "", errorf(ErrInvalidContinuation, "token %.40q was not issued by this version of ttldb", tok)
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return "", errorf(ErrInvalidContinuation, "token %.40q is damaged", tok)
	}
	t := tokenScope{
		collection: binary.BigEndian.Uint64(body[1:]),
		name:       binary.BigEndian.Uint32(body[9:]),
		read:       body[13],
		partition:  binary.BigEndian.Uint64(body[14:]),
	}
	pos := body[tokenHeader:]
	if t.read == readQuery {
		if len(pos) < 16 {
			return "", errorf(ErrInvalidContinuation, "token %.40q is damaged: it holds no query", tok)
		}
		t.text, t.params = binary.BigEndian.Uint64(pos), binary.BigEndian.Uint64(pos[8:])
		pos = pos[16:]
	}
	if err := scope.refuse(t, tok, name); err != nil {
		return "", err
	}
	return string(pos), nil
}

// refuse returns the error that says how the scope t of token tok differs
// from s, the scope of the read it is given to, or nil when it does not;
// name is the collection's.
func (s tokenScope) refuse(t tokenScope, tok, name string) error {
	switch {
	case t.collection != s.collection && t.name == s.name:
		return errorf(ErrInvalidContinuation, "token %.40q was issued by another collection named %q (its id %016x, this one's %016x): another instance of the name, such as one in another directory, or one made again since; a token resumes only the reads of the collection that issued it", tok, name, t.collection, s.collection)
	case t.collection != s.collection:
		return errorf(ErrInvalidContinuation, "token %.40q was issued by another collection than %q, of another name: a token resumes only the reads of the collection that issued it", tok, name)
	case t.read != s.read && t.read >= readFeed && s.read >= readFeed:
		return errorf(ErrInvalidContinuation, "token %.40q was issued for %s, not in mode %v: resume with the mode that issued it", tok, readName(t.read), FeedMode(s.read-readFeed))
	case t.read != s.read:
		return errorf(ErrInvalidContinuation, "token %.40q was issued for %s, not %s: resume with the call that issued it", tok, readName(t.read), readName(s.read))
	}
	var diff []string
	switch {
	case t.partition == s.partition:
	case t.partition == 0:
		diff = append(diff, "of all partitions, not of one")
	case s.partition == 0:
		diff = append(diff, "of one partition, not of all")
	default:
		diff = append(diff, "of another partition")
	}
	if t.text != s.text {
		diff = append(diff, "with another text")
	}
	if t.params != s.params {
		diff = append(diff, "with other parameter values")
	}
	if diff == nil {
		return nil
	}
	what := "listing"
	switch s.read {
	case readQuery:
		what = "query"
	case readFeed, readFeed + 1:
		what = "read of the change feed"
	}
	return errorf(ErrInvalidContinuation, "token %.40q was issued for a %s %s: resume with the %s that issued it", tok, what, strings.Join(diff, " and "), what)
}

// readName names a kind of read, for messages.
func readName(read byte) string {
	switch read {
	case readList:
		return "a listing (List, All)"
	case readQuery:
		return "a query (Query)"
	case readFeed + byte(LatestVersion), readFeed + byte(AllVersionsAndDeletes):
		return "the change feed in mode " + FeedMode(read-readFeed).String()
	}
	return "no read of this version of ttldb"
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
