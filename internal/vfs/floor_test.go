//go:build linux

package vfs

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkLogFloor is what a log's bytes cost a write under SyncEverySecond,
// apart from everything else the log does: 280-byte records (about a
// 200-byte document's record and its group's commit, which BenchmarkDurable's
// writes log in 256 bytes) appended to a file of this
// package, which grows ahead of the writes by writing zeros and maps what
// it grew (grown); appended into a mapping of a file of the same length
// whose pages are already the file's, in the page cache and on disk, as a
// log file used again would be (recycled); and copied into memory
// (memory). Every 64 MB the file is synced and started again, untimed, as
// the sync of the second keeps the dirty pages few. Issue 31 measured the
// floor of SyncEverySecond with it (BENCHMARKS.md).
func BenchmarkLogFloor(b *testing.B) {
	const record, span = 280, 64 << 20
	rec := make([]byte, record)
	for i := range rec {
		rec[i] = byte(i)
	}
	b.Run("grown", func(b *testing.B) {
		d, err := OS{}.OpenDir(b.TempDir())
		require.NoError(b, err)
		defer d.Close()
		var f File
		written := span
		b.SetBytes(record)
		for b.Loop() {
			if written+record > span {
				b.StopTimer()
				if f != nil {
					require.NoError(b, f.Sync())
					require.NoError(b, f.Close())
				}
				f, err = d.Create("log")
				require.NoError(b, err)
				written = 0
				b.StartTimer()
			}
			if _, err := f.Write(rec); err != nil {
				b.Fatal(err)
			}
			written += record
		}
		require.NoError(b, f.Close())
	})
	b.Run("recycled", func(b *testing.B) {
		d, err := OS{}.OpenDir(b.TempDir())
		require.NoError(b, err)
		defer d.Close()
		f, err := d.Create("log")
		require.NoError(b, err)
		defer f.Close()
		mf, ok := f.(*mappedFile)
		if !ok {
			b.Skip("the file is not mapped here")
		}
		zeros := make([]byte, span)
		_, err = f.Write(zeros)
		require.NoError(b, err)
		require.NoError(b, f.Sync())
		data, err := syscall.Mmap(int(mf.Fd()), 0, span, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
		require.NoError(b, err)
		defer syscall.Munmap(data)
		written := 0
		b.SetBytes(record)
		for b.Loop() {
			if written+record > span {
				b.StopTimer()
				require.NoError(b, f.Sync())
				written = 0
				b.StartTimer()
			}
			copy(data[written:], rec)
			written += record
		}
	})
	b.Run("memory", func(b *testing.B) {
		data := make([]byte, span)
		written := 0
		b.SetBytes(record)
		for b.Loop() {
			if written+record > span {
				written = 0
			}
			copy(data[written:], rec)
			written += record
		}
	})
}
