package ttldb

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadsDoNotAllocate(t *testing.T) {
	c, _ := newTestCollection(t, "/id", TTLNoDefault())
	want := `{"id":"k","ttl":60,"v":"` + strings.Repeat("x", 200) + `"}`
	mustCreate(t, c, want)
	var body string
	require.Zero(t, testing.AllocsPerRun(100, func() {
		d, err := c.Get(StringKey("k"), "k")
		if err != nil {
			panic(err)
		}
		body = d.Body()
	}), "Get and Body")
	require.Equal(t, want, body)
	d, _ := c.Get(StringKey("k"), "k")
	buf := make([]byte, 0, 512)
	require.Zero(t, testing.AllocsPerRun(100, func() { buf = d.AppendJSON(buf[:0]) }), "AppendJSON into room")
	require.Equal(t, d.JSON(), string(buf))
	tag := d.ETag()
	other := "1" + tag[1:]
	if tag[0] == '1' {
		other = "2" + tag[1:]
	}
	require.Zero(t, testing.AllocsPerRun(100, func() {
		if !d.d.hasETag(tag) || d.d.hasETag(other) || d.d.hasETag(tag[1:]) {
			panic("hasETag")
		}
	}), "etag comparison")
}
