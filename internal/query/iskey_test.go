package query

import "testing"

// IsKey tells a value's whole key from a part of one, for every kind.
func TestIsKey(t *testing.T) {
	for _, v := range []Value{{}, {Kind: Null}, {Kind: Bool}, {Kind: Bool, Bool: true}, {Kind: Number, Num: -2.5},
		{Kind: String}, {Kind: String, Str: "a\x00b"}, {Kind: String, Str: "\x00"}, {Kind: Array}, {Kind: Object}} {
		k := AppendKey(nil, v)
		if !IsKey(k) {
			t.Errorf("IsKey(%x) of %+v is false", k, v)
		}
		if IsKey(k[:len(k)-1]) {
			t.Errorf("IsKey(%x), a part of %+v's key, is true", k[:len(k)-1], v)
		}
		if IsKey(append(k[:len(k):len(k)], 0x01)) {
			t.Errorf("IsKey of %+v's key and a byte more is true", v)
		}
	}
	for _, p := range []string{"", "a", "a\x00"} {
		if k := AppendStringPrefixKey(nil, p); IsKey(k) {
			t.Errorf("IsKey(%x), the prefix key of %q, is true", k, p)
		}
	}
}
