package ttldb

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPartitionedByIDStoresOnce: under the path /id, the id is the
// partition key and is not stored twice (the rest of R10's /id collection
// is the conformance suite's, R10/PartitionedByID).
func TestPartitionedByIDStoresOnce(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/id", TTLSeconds(60))
	for _, id := range []string{"b", "a", "é", "a b", "z", "key:0000000042"} {
		d := mustCreate(t, c, `{"id":"`+id+`","n":1}`)
		require.Equal(t, string(StringKey(id).appendEncoded(nil)), d.d.Key(), "the id is not stored twice")
	}
}
