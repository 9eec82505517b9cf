package wal

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// logOf writes a log of groups (each a list of records), tagging group i
// with i+1, as if synced after each group, and returns it and the offset
// where each group begins.
func logOf(t testing.TB, groups [][][]byte) ([]byte, []int64) {
	var b bytes.Buffer
	b.Write(Header())
	w := NewWriter(&b, HeaderSize)
	var starts []int64
	for i, g := range groups {
		starts = append(starts, int64(b.Len()))
		w.Synced(int64(b.Len()))
		for _, r := range g {
			if err := w.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		end, err := w.Commit(uint64(i + 1))
		if err != nil || end != int64(b.Len()) {
			t.Fatal(err, end, b.Len())
		}
	}
	return b.Bytes(), starts
}

// scanAll scans data and returns the groups it found, copied.
func scanAll(data []byte) ([][][]byte, Result, error) {
	var got [][][]byte
	res, err := Scan(bytes.NewReader(data), int64(len(data)), func(g Group) error {
		var rs [][]byte
		for _, r := range g.Records {
			rs = append(rs, bytes.Clone(r))
		}
		if g.Tag != uint64(len(got)+1) {
			return fmt.Errorf("group %d has tag %d", len(got), g.Tag)
		}
		got = append(got, rs)
		return nil
	})
	return got, res, err
}

func randomGroups(rng *rand.Rand, n int) [][][]byte {
	groups := make([][][]byte, n)
	for i := range groups {
		for range rng.IntN(4) { // empty groups too
			r := make([]byte, rng.IntN(300))
			for j := range r {
				r[j] = byte(rng.IntN(256))
			}
			groups[i] = append(groups[i], r)
		}
	}
	return groups
}

// TestRoundTrip: what is committed reads back, group by group, with its
// tags, and the whole log is valid.
func TestRoundTrip(t *testing.T) {
	groups := randomGroups(rand.New(rand.NewPCG(1, 1)), 50)
	data, _ := logOf(t, groups)
	got, res, err := scanAll(data)
	require.NoError(t, err)
	require.Equal(t, Result{Groups: 50, End: int64(len(data))}, res)
	require.Equal(t, len(groups), len(got))
	for i := range groups {
		require.Equal(t, len(groups[i]), len(got[i]), "group %d", i)
		for j := range groups[i] {
			require.True(t, bytes.Equal(groups[i][j], got[i][j]), "group %d record %d", i, j)
		}
	}
	empty, res, err := scanAll(Header())
	require.NoError(t, err)
	require.Empty(t, empty)
	require.Equal(t, Result{End: HeaderSize}, res)
}

// TestTruncatedAtEveryOffset: a log cut at any byte keeps exactly the
// groups before the cut, reports the rest of the cut group as dropped,
// and never fails: what a crash in the middle of a write leaves.
func TestTruncatedAtEveryOffset(t *testing.T) { // R12 (the log format's part: a torn tail is cut back)
	groups := randomGroups(rand.New(rand.NewPCG(2, 2)), 6)
	groups = append(groups, [][]byte{[]byte("last"), []byte("group"), bytes.Repeat([]byte{0}, 40)})
	data, starts := logOf(t, groups)
	for cut := 0; cut < len(data); cut++ {
		got, res, err := scanAll(data[:cut])
		require.NoError(t, err, "cut at %d", cut)
		whole := 0
		for whole < len(starts) && (whole+1 < len(starts) && starts[whole+1] <= int64(cut)) {
			whole++
		}
		switch {
		case cut < HeaderSize:
			require.Equal(t, Result{Dropped: int64(cut), Reason: res.Reason}, res, "cut at %d", cut)
			require.Equal(t, cut > 0, res.Reason != "", "cut at %d: %q", cut, res.Reason)
		default:
			require.Equal(t, whole, len(got), "cut at %d", cut)
			require.Equal(t, starts[whole], res.End, "cut at %d", cut)
			require.Equal(t, int64(cut)-starts[whole], res.Dropped, "cut at %d", cut)
			require.Equal(t, res.Dropped > 0, res.Reason != "", "cut at %d: %q", cut, res.Reason)
		}
	}
}

// TestGarbageAfterTheEnd: zeros or garbage after the last group (a file
// extended by a crash) are a torn tail.
func TestGarbageAfterTheEnd(t *testing.T) {
	data, _ := logOf(t, randomGroups(rand.New(rand.NewPCG(3, 3)), 5))
	for name, tail := range map[string][]byte{
		"zeros":                make([]byte, 4096),
		"garbage":              bytes.Repeat([]byte("\xde\xad\xbe\xef"), 100),
		"a frame header alone": {0, 0, 0, 5, 1, 2, 3, 4, 1},
	} {
		got, res, err := scanAll(append(bytes.Clone(data), tail...))
		require.NoError(t, err, name)
		require.Equal(t, 5, len(got), name)
		require.Equal(t, int64(len(data)), res.End, name)
		require.Equal(t, int64(len(tail)), res.Dropped, name)
	}
}

// TestDamageIsRefused: a damaged byte followed by whole groups is refused
// with the offset of the damaged frame; so is a header of another format
// or version. Truncating at the offset gives a log that opens.
func TestDamageIsRefused(t *testing.T) { // R12 (the log format's part: other damage names its offset)
	groups := randomGroups(rand.New(rand.NewPCG(4, 4)), 8)
	groups[2] = [][]byte{[]byte("first"), []byte("second")}
	data, starts := logOf(t, groups)
	bad := bytes.Clone(data)
	at := starts[2] + frameHeader + 2 // inside the first record of group 2
	bad[at] ^= 0x40
	_, _, err := scanAll(bad)
	require.ErrorIs(t, err, ErrCorrupt)
	var ce *CorruptError
	require.True(t, errors.As(err, &ce))
	require.Equal(t, starts[2], ce.Offset, "the damaged frame's offset")
	require.ErrorContains(t, err, "fails its checksum")
	got, res, err := scanAll(bad[:ce.Offset])
	require.NoError(t, err, "truncated at the offset, the log opens")
	require.Equal(t, 2, len(got))
	require.Equal(t, int64(0), res.Dropped)

	// A whole record frame missing (a splice: every frame checks out) is
	// caught by the commit's count.
	frame := int64(frameHeader + len("first"))
	spliced := append(bytes.Clone(data[:starts[2]]), data[starts[2]+frame:]...)
	_, _, err = scanAll(spliced)
	require.True(t, errors.As(err, &ce), "%v", err)
	require.ErrorContains(t, err, "closes 2 records, and its group has 1")

	for name, head := range map[string][]byte{
		"another format":  []byte("notattldbloghere"),
		"another version": append([]byte(Magic), 0, 0, 0, 9, 1, 2, 3, 4),
	} {
		_, _, err := scanAll(append(head, data[HeaderSize:]...))
		require.True(t, errors.As(err, &ce), name)
		require.Equal(t, int64(0), ce.Offset, name)
	}
}

// failWriter fails every write after ok bytes, having written part of it.
type failWriter struct {
	bytes.Buffer
	ok int
}

func (f *failWriter) Write(p []byte) (int, error) {
	if f.Len()+len(p) > f.ok {
		n := max(0, f.ok-f.Len())
		f.Buffer.Write(p[:n])
		return n, errors.New("disk full")
	}
	return f.Buffer.Write(p)
}

// TestWriteErrorsStick: after a failed write the Writer refuses every call
// with that error, and what reached the log recovers to the last whole
// group.
func TestWriteErrorsStick(t *testing.T) {
	f := &failWriter{ok: 100}
	f.Buffer.Write(Header())
	w := NewWriter(f, HeaderSize)
	require.NoError(t, w.Add(make([]byte, 30)))
	_, err := w.Commit(1)
	require.NoError(t, err)
	require.NoError(t, w.Add(make([]byte, 30)))
	_, err = w.Commit(2)
	require.ErrorContains(t, err, "disk full")
	require.ErrorContains(t, w.Add([]byte("x")), "disk full")
	_, err = w.Commit(3)
	require.ErrorContains(t, err, "disk full")
	got, res, err := scanAll(f.Bytes())
	require.NoError(t, err)
	require.Equal(t, 1, len(got))
	require.Positive(t, res.Dropped, "the half-written group is a torn tail")
	require.ErrorIs(t, NewWriter(f, 0).Add(make([]byte, MaxRecord+1)), ErrTooLarge)
}

// FuzzScan: no bytes make Scan panic or report an impossible result; a
// log that scans without error accounts for every byte.
func FuzzScan(f *testing.F) {
	data, _ := logOf(f, randomGroups(rand.New(rand.NewPCG(5, 5)), 4))
	f.Add(data)
	f.Add(data[:len(data)-3])
	f.Add(append(bytes.Clone(data), 0, 0, 0, 20, 1, 2, 3, 4, 2))
	f.Add([]byte{})
	f.Add(Header())
	f.Fuzz(func(t *testing.T, data []byte) {
		end := int64(HeaderSize)
		res, err := Scan(bytes.NewReader(data), int64(len(data)), func(g Group) error {
			if g.End <= end || g.End > int64(len(data)) {
				t.Fatalf("group ends at %d after %d, in %d bytes", g.End, end, len(data))
			}
			end = g.End
			return nil
		})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if res.End+res.Dropped != int64(len(data)) || res.End > int64(len(data)) || res.Groups > 0 && res.End != end {
			t.Fatalf("result %+v for %d bytes (last group ends at %d)", res, len(data), end)
		}
	})
}

// TestBeginEndMatchAdd: a group encoded in place with Begin, End and
// AppendCommit is byte for byte the one Writer writes, and scans back.
func TestBeginEndMatchAdd(t *testing.T) {
	var viaWriter bytes.Buffer
	w := NewWriter(&viaWriter, HeaderSize)
	records := [][]byte{[]byte("one"), {}, bytes.Repeat([]byte{7}, 300)}
	for _, r := range records {
		require.NoError(t, w.Add(r))
	}
	_, err := w.Commit(42)
	require.NoError(t, err)

	var b []byte
	for _, r := range records {
		var mark int
		b, mark = Begin(b)
		b = append(b, r...)
		b = End(b, mark)
	}
	b = AppendCommit(b, uint32(len(records)), 42, 0)
	require.Equal(t, viaWriter.Bytes(), b)

	log := append(Header(), b...)
	var got [][]byte
	res, err := Scan(bytes.NewReader(log), int64(len(log)), func(g Group) error {
		require.Equal(t, uint64(42), g.Tag)
		for _, r := range g.Records {
			got = append(got, bytes.Clone(r))
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 1, res.Groups)
	require.Equal(t, records, got)
}

// TestTornOutOfOrder: a crash may keep later bytes of what was not synced
// and lose earlier ones (pages reach the disk in any order; a copy into a
// mapped file is made in any order): bad bytes followed by whole groups
// that say the log was synced only before them are a torn tail, not
// damage.
func TestTornOutOfOrder(t *testing.T) { // R12 (the log format's part)
	var b bytes.Buffer
	b.Write(Header())
	w := NewWriter(&b, HeaderSize)
	for i := range 6 {
		if i == 2 {
			w.Synced(int64(b.Len())) // groups 0 and 1 are synced; 2 to 5 are not
		}
		require.NoError(t, w.Add(bytes.Repeat([]byte{byte(i + 1)}, 100)))
		_, err := w.Commit(uint64(i + 1))
		require.NoError(t, err)
	}
	data := b.Bytes()
	ends := []int64{}
	_, err := Scan(bytes.NewReader(data), int64(len(data)), func(g Group) error { ends = append(ends, g.End); return nil })
	require.NoError(t, err)
	hole := bytes.Clone(data)
	clear(hole[ends[2] : ends[2]+40]) // group 3's start lost, groups 4 and 5 kept
	got, res, err := scanAll(hole)
	require.NoError(t, err, "an unsynced part torn out of order is a torn tail")
	require.Equal(t, 3, len(got))
	require.Equal(t, ends[2], res.End)
	require.Equal(t, int64(len(data))-ends[2], res.Dropped)

	hole = bytes.Clone(data)
	clear(hole[ends[0] : ends[0]+40]) // group 1 was synced, as group 2 says
	_, _, err = scanAll(hole)
	var ce *CorruptError
	require.ErrorAs(t, err, &ce, "a synced part that is bad is damage")
	require.Equal(t, ends[0], ce.Offset)
}

// TestZerosAreACreationInterrupted: a log of zeros only, as a file grown
// ahead of its writes leaves when its creation is interrupted before the
// header reaches it, is a torn tail; zeros in a header followed by other
// bytes are damage.
func TestZerosAreACreationInterrupted(t *testing.T) { // R12 (the log format's part)
	zeros := make([]byte, 100_000)
	got, res, err := scanAll(zeros)
	require.NoError(t, err)
	require.Empty(t, got)
	require.Equal(t, int64(len(zeros)), res.Dropped)
	require.Zero(t, res.End)
	zeros[50_000] = 1
	_, _, err = scanAll(zeros)
	require.ErrorIs(t, err, ErrCorrupt)
}

// TestScanAllocatesPerLogNotPerGroup: Scan reuses its buffers from group
// to group, as its documentation says ("allocates no more than the
// largest group"): a reopen reads a snapshot of a million documents as a
// million groups, and an allocation for each was a third of the reopen's
// (R12: the reopen's cost).
func TestScanAllocatesPerLogNotPerGroup(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	small, _ := logOf(t, randomGroups(rng, 10))
	big, _ := logOf(t, randomGroups(rng, 2000))
	allocs := func(data []byte) float64 {
		return testing.AllocsPerRun(5, func() {
			_, _ = Scan(bytes.NewReader(data), int64(len(data)), func(Group) error { return nil })
		})
	}
	a, b := allocs(small), allocs(big)
	t.Logf("Scan: %v allocations for 10 groups, %v for 2,000", a, b)
	require.Less(t, b, a+40, "Scan of 2,000 groups: %v allocations; of 10: %v", b, a)
}

// BenchmarkFrame: encoding a group of one record of 262 bytes (a 200-byte
// document's put record is about that) in place, with its commit frame:
// the copy and the CRC-32Cs a write under SyncEverySecond pays to be
// logged, before the bytes reach the file (internal/vfs, BenchmarkLogFloor).
func BenchmarkFrame(b *testing.B) {
	payload := bytes.Repeat([]byte("x"), 262)
	var buf []byte
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		var mark int
		buf, mark = Begin(buf[:0])
		buf = append(buf, payload...)
		buf = End(buf, mark)
		buf = AppendCommit(buf, 1, 1, 0)
	}
}
