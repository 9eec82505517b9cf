package ttldb

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// TestEngineSizes: the in-process engine's own sizes: a document's header,
// and an entry with the links of the order of last writes (R11). (The
// limits of R10 are the conformance suite's, R10/Limits*.)
func TestEngineSizes(t *testing.T) {
	require.Equal(t, 32, engine.HeaderSize, "a document's header")
	require.Equal(t, 32, int(unsafe.Sizeof(entry{})), "an entry, with the links of the order of last writes (R11)")
}
