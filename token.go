package ttldb

import (
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
)

// A continuation token is the base64url encoding of a version byte, the key
// of the last document returned, and the CRC-32 of both.
const tokenVersion = 1

func encodeToken(key string) string {
	b := make([]byte, 0, 1+len(key)+4)
	b = append(b, tokenVersion)
	b = append(b, key...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeToken(tok string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) < 1+4 || b[0] != tokenVersion {
		return "", errorf(ErrInvalidContinuation, "token %.40q was not issued by ttldb", tok)
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return "", errorf(ErrInvalidContinuation, "token %.40q is damaged", tok)
	}
	key := string(body[1:])
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
