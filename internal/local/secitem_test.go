package local

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestSecItemOrder: items order as their keys do, byte by byte (R13: an
// index's order is that of ORDER BY), whatever the keys share: no prefix,
// the 15 bytes the item holds, zeros where a shorter key is padded, and
// lengths on both sides of longKey; and an item gives its key back. An
// item is 32 bytes, as one with a prefix of 8 was.
func TestSecItemOrder(t *testing.T) { // R13
	require.Equal(t, 32, int(unsafe.Sizeof(secItem{})))
	r := rand.New(rand.NewPCG(31, 1))
	alphabet := []byte{0x00, 0x01, 'a', 'b', 0xFF}
	var keys []string
	for _, n := range []int{0, 1, 7, 8, 9, 14, 15, 16, 17, 30, 253, 254, 255, 256, 300} {
		for range 12 {
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			keys = append(keys, string(b))
			if n > 0 { // and keys that share all but their last byte with it
				keys = append(keys, string(b[:n-1])+"\x00", string(b[:n-1]))
			}
		}
	}
	// keys that share a long prefix, as dates of a month and values of
	// one pattern do
	for i := range 40 {
		keys = append(keys, fmt.Sprintf("\x0a2026-11-07T13:%02d:%02dZ\x00\x01p\x00d%d", i%7, i%13, i))
	}
	for _, a := range keys {
		ia := item(a, nil)
		require.Equal(t, a, ia.key())
		for _, b := range keys {
			require.Equal(t, a < b, secLess(ia, item(b, nil)), "%q < %q", a, b)
		}
	}
}
