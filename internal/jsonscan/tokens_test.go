package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// firstSpecial is special8's oracle: the index of the first byte of w that
// a string cannot hold as it is, or 8.
func firstSpecial(w [8]byte) int {
	for i, c := range w {
		if !plain[c] {
			return i
		}
	}
	return 8
}

// TestSpecial8 checks the word-at-a-time test of str against the byte
// table: zero for eight plain bytes, else its lowest marked byte is the first
// byte that is not plain, whatever follows it (R10: strings are checked
// for escapes, control characters and UTF-8 through this test).
func TestSpecial8(t *testing.T) {
	check := func(w [8]byte) {
		t.Helper()
		m := special8(binary.LittleEndian.Uint64(w[:]))
		got := 8
		if m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if want := firstSpecial(w); got != want {
			t.Fatalf("special8(%q) finds byte %d, want %d", w[:], got, want)
		}
	}
	// Every byte value at every position, among plain bytes and among
	// bytes that borrow (0x00, 0x20, 0x21, 0x22, 0x5c, 0x80).
	for _, fill := range []byte{'a', ' ', '!', 0x00, 0x20, 0x21, '"', '\\', 0x80, 0x7f} {
		for pos := range 8 {
			for c := range 256 {
				var w [8]byte
				for i := range w {
					w[i] = fill
				}
				w[pos] = byte(c)
				check(w)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'a', 'Z', ' ', '!', '#', '"', '\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xff, '[', ']'}
	for range 200_000 {
		var w [8]byte
		for i := range w {
			if r.IntN(3) == 0 {
				w[i] = byte(r.IntN(256))
			} else {
				w[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		check(w)
	}
}
