package jsonscan

import "testing"

// sessionDoc is the document of bench/'s write workloads (bench/data.go):
// compact, about 200 bytes, most strings shorter than 8 bytes.
const sessionDoc = `{"id":"key:0000004242","ttl":3600,"type":"session","user":"u-4711","tenant":"acme",` +
	`"status":"active","roles":["reader","writer"],` +
	`"createdAt":"2026-11-21T22:24:00Z","device":{"os":"linux","app":"b/1"}}`

// BenchmarkDocument scans the write workloads' document, as a write does
// (the fast path), for the scanner's share of a write's time.
func BenchmarkDocument(b *testing.B) {
	src := []byte(sessionDoc)
	dst := make([]byte, 0, 512)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := Document(dst, src, "id")
		if err != nil || !r.ID.Set() {
			b.Fatalf("Document: %v, %+v", err, r)
		}
		dst = r.Out
	}
}
