package ttldb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// fzFeed is the fuzz fixture of the change feed: a collection whose
// history has creates, replaces, deletes and expiries, more than its
// retention keeps, and the whole of both feeds read once, as the oracle.
type fzFeed struct {
	c      *Collection
	parts  []*PartitionKey // nil: all partitions
	all    []Change        // the records kept, in LSN order
	latest []Change        // the live documents, in the order of their last writes
	oldest uint64          // the oldest record kept
}

func fzFeedFixture(f *testing.F) *fzFeed {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("fuzzfeed", "/pk", &Options{DefaultTTL: TTLSeconds(100), Now: clk.Now, ManualSweep: true, Feed: FeedOptions{MaxRecords: 40}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { c.Close() })
	for i := range 60 {
		doc := fmt.Sprintf(`{"id":"d%d","pk":"p%d","ttl":%d}`, i%17, i%3, 1+i%5*50)
		if _, err := c.Upsert(bg, []byte(doc)); err != nil {
			f.Fatal(err)
		}
		if i%7 == 0 {
			_ = c.Delete(bg, StringKey(fmt.Sprint("p", (i+1)%3)), fmt.Sprint("d", (i+1)%17))
		}
		clk.Advance(10 * time.Second)
	}
	if _, err := c.Sweep(bg); err != nil {
		f.Fatal(err)
	}
	p0, p1 := StringKey("p0"), NumberKey(1)
	fx := &fzFeed{c: c, parts: []*PartitionKey{nil, &p0, &p1}}
	st, err := c.FeedStats(bg)
	if err != nil {
		f.Fatal(err)
	}
	fx.oldest = st.Oldest
	if fx.oldest < 2 {
		f.Fatal("the fixture's log was not trimmed")
	}
	for _, mode := range []FeedMode{LatestVersion, AllVersionsAndDeletes} {
		page, err := c.ReadFeed(bg, FeedQuery{Mode: mode, AfterLSN: fx.oldest - 1, Limit: MaxFeedLimit})
		if err != nil || page.More {
			f.Fatal(err, page.More)
		}
		if mode == LatestVersion {
			page, _ = c.ReadFeed(bg, FeedQuery{Limit: MaxFeedLimit})
			fx.latest = page.Changes
		} else {
			fx.all = page.Changes
		}
	}
	return fx
}

// fzFeedShape is the shape of a feed read of the collection name, as
// token.go documents it: a read of kind 3 + mode.
func fzFeedShape(name string, mode FeedMode, part *PartitionKey) string {
	return fzReadShape(name, 3+byte(mode), part)
}

// FuzzFeedContinuation: any continuation, damaged, truncated, foreign or
// forged around any LSN, is refused with ErrInvalidContinuation (or, before
// the retention, ErrFeedTrimmed) and changes nothing, or resumes exactly
// after the LSN it holds: the oracle's changes after it, in order (R11).
func FuzzFeedContinuation(f *testing.F) {
	fx := fzFeedFixture(f)
	last := fx.c.LastLSN()
	for _, mode := range []uint8{0, 1} {
		for _, lsn := range []uint64{0, 1, fx.oldest - 2, fx.oldest - 1, fx.oldest, last - 1, last, last + 1, 1 << 63} {
			f.Add("", mode, uint8(0), true, lsn, uint8(3))
		}
	}
	page, _ := fx.c.ReadFeed(bg, FeedQuery{Limit: 3})
	f.Add(page.Continuation, uint8(0), uint8(0), false, uint64(0), uint8(3))
	f.Add(page.Continuation[:len(page.Continuation)-2], uint8(0), uint8(0), false, uint64(0), uint8(3))
	f.Add("not a token", uint8(1), uint8(1), false, uint64(0), uint8(1))
	// forge seals lsn in a token of mode and part; the high bits of limit
	// make it another collection's (0x80) or another partition's (0x40).
	f.Fuzz(func(t *testing.T, tok string, mode, part uint8, forge bool, lsn uint64, limit uint8) {
		m, p := FeedMode(mode%2), fx.parts[int(part)%len(fx.parts)]
		if forge {
			collection, shape := fx.c.tokenID, fzFeedShape(fx.c.name, m, p)
			if limit&0x80 != 0 {
				collection++
			}
			if limit&0x40 != 0 {
				shape = fzFeedShape(fx.c.name, m, fx.parts[(int(part)+1)%len(fx.parts)])
			}
			var b [8]byte
			binary.BigEndian.PutUint64(b[:], lsn)
			tok = fzForgeToken(fzToken{collection, shape, string(b[:])})
		}
		if tok == "" {
			return // no continuation: from the beginning, tested elsewhere
		}
		n := 1 + int(limit&0x3f)%5
		q := FeedQuery{Mode: m, Partition: p, Continuation: tok, Limit: n}
		got, err := fx.c.ReadFeed(bg, q)
		if after := fx.c.LastLSN(); after != last {
			t.Fatalf("a read changed the collection: last LSN %d, then %d", last, after)
		}
		valid := forge && limit&0xc0 == 0 && lsn <= last
		if !forge { // a token of the fuzzer's: valid if well formed, in scope, and not beyond the last change
			ft, ok := fzDecodeToken(tok)
			valid = ok && ft.collection == fx.c.tokenID && ft.shape == fzFeedShape(fx.c.name, m, p) && len(ft.key) == 8
			if valid {
				lsn = binary.BigEndian.Uint64([]byte(ft.key))
				valid = lsn <= last
			}
		}
		if err != nil {
			switch {
			case errors.Is(err, ErrFeedTrimmed) && valid && m == AllVersionsAndDeletes && lsn+1 < fx.oldest:
			case errors.Is(err, ErrInvalidContinuation) && !valid:
			default:
				t.Fatalf("%+v: error %v (valid %v)", q, err, valid)
			}
			return
		}
		if !valid {
			t.Fatalf("%+v: accepted, holding LSN %d of %d, another collection %v, another partition %v", q, lsn, last, limit&0x80 != 0, limit&0x40 != 0)
		}
		want := fx.latest
		if m == AllVersionsAndDeletes {
			want = fx.all
		}
		want = slices.DeleteFunc(slices.Clone(want), func(ch Change) bool {
			return ch.LSN <= lsn || p != nil && ch.PartitionKey != *p
		})
		if len(want) > n {
			want = want[:n]
		}
		if len(got.Changes) != len(want) {
			t.Fatalf("%+v after LSN %d: %d changes, want %d", q, lsn, len(got.Changes), len(want))
		}
		for i := range want {
			if g, w := got.Changes[i], want[i]; g.LSN != w.LSN || g.Op != w.Op || g.ID != w.ID || g.Document.JSON() != w.Document.JSON() {
				t.Fatalf("%+v after LSN %d: change %d is %+v, want %+v", q, lsn, i, g, w)
			}
		}
	})
}
