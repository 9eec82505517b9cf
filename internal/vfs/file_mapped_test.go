//go:build linux

package vfs

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMappedFileWindow: a mapped file maps a window on its end, never the
// whole file, so that a growth costs the same at any size; writes of any
// length, across windows and larger than one, read back as written, before
// and after a reopen, and the file on disk is what was written. R12.
func TestMappedFileWindow(t *testing.T) { // R12
	dir := t.TempDir()
	d, err := OS{}.OpenDir(dir)
	require.NoError(t, err)
	defer d.Close()
	r := rand.New(rand.NewPCG(1, 31))
	var want []byte
	write := func(f File) {
		t.Helper()
		for range 200 {
			n := r.IntN(4096)
			switch r.IntN(20) {
			case 0:
				n = mapStep + r.IntN(2*mapStep) // larger than a window
			case 1:
				n = 0
			}
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(r.Uint32())
			}
			k, err := f.Write(p)
			require.NoError(t, err)
			require.Equal(t, n, k)
			want = append(want, p...)
			if n > 0 {
				checkWindow(t, f)
			}
		}
		// Writes that end at the window's end exactly, then one of no byte
		// and one of a byte.
		m := f.(*mappedFile)
		for _, n := range []int{int(m.base + int64(len(m.data)) - m.size), 0, 1} {
			p := bytes.Repeat([]byte{byte(n + 1)}, n)
			k, err := f.Write(p)
			require.NoError(t, err)
			require.Equal(t, n, k)
			want = append(want, p...)
			checkWindow(t, f)
		}
		size, err := f.Size()
		require.NoError(t, err)
		require.Equal(t, int64(len(want)), size)
		got := make([]byte, len(want))
		_, err = f.ReadAt(got, 0)
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, got), "reads see the writes")
	}
	f, err := d.Create("f")
	require.NoError(t, err)
	write(f)
	require.Greater(t, len(want), 8*mapStep, "the test writes across many windows")
	require.NoError(t, f.Close())
	f, err = d.Open("f") // a reopen appends from the end, in a window of its own
	require.NoError(t, err)
	write(f)
	require.NoError(t, f.Truncate(int64(len(want)/3)))
	want = want[:len(want)/3]
	write(f)
	require.NoError(t, f.Close())
	b, err := os.ReadFile(filepath.Join(dir, "f"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, b), "the file is what was written, cut to it")
}

// checkWindow checks f's window: mapped (not written with write(2)), from
// a multiple of mapStep at or before the end written, within the
// file's length on disk, and never more than a few steps long.
func checkWindow(t *testing.T, f File) {
	t.Helper()
	m := f.(*mappedFile)
	require.False(t, m.direct, "the file is mapped")
	require.NotNil(t, m.data, "a write maps the window it wrote to")
	require.LessOrEqual(t, len(m.data), 4*mapStep, "the window at %d bytes", m.size)
	require.Zero(t, m.base%int64(os.Getpagesize()), "the window starts at a page")
	require.Zero(t, m.base%mapStep, "the window starts at a multiple of mapStep (a page's window took 3.8x the faults)")
	require.LessOrEqual(t, m.base, m.size, "the window starts at or before the end")
	require.LessOrEqual(t, m.size, m.base+int64(len(m.data)), "the window holds the end")
	disk, err := fileSize(m.File)
	require.NoError(t, err)
	require.LessOrEqual(t, m.base+int64(len(m.data)), disk, "the window lies within the file")
}
