package ttldb

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/local"
	"github.com/ttldb/ttldb/internal/vfs"
)

// recorder is a slog.Handler that keeps every record, for the tests of
// what a collection logs (slog has no such handler of its own).
type recorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *recorder) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recorder) WithGroup(string) slog.Handler            { return h }

func (h *recorder) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r.Clone())
	return nil
}

// logged is a record as the tests read it: its level, message and
// attributes.
type logged struct {
	level slog.Level
	msg   string
	attrs map[string]slog.Value
}

// records returns the records whose message holds msg.
func (h *recorder) records(msg string) []logged {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []logged
	for _, r := range h.recs {
		if !strings.Contains(r.Message, msg) {
			continue
		}
		l := logged{level: r.Level, msg: r.Message, attrs: map[string]slog.Value{}}
		r.Attrs(func(a slog.Attr) bool { l.attrs[a.Key] = a.Value; return true })
		out = append(out, l)
	}
	return out
}

// noContent checks that no record holds secret, which the tests put in
// every document: a log never shows a document's content (R17).
func (h *recorder) noContent(t *testing.T, secret string) {
	t.Helper()
	for _, l := range h.records("") {
		require.NotContains(t, l.msg, secret)
		for k, v := range l.attrs {
			require.NotContains(t, v.String(), secret, k)
		}
	}
}

// TestLogOpen: an open logs at Info, with the collection's name; a
// durable one what recovery found, the torn tail it cut included (R17).
func TestLogOpen(t *testing.T) { // R17
	h := &recorder{}
	log := slog.New(h)
	m, err := NewCollection("mem", "/pk", &Options{Logger: log, ManualSweep: true})
	require.NoError(t, err)
	require.NoError(t, m.Close())
	got := h.records("opened in memory")
	require.Len(t, got, 1)
	require.Equal(t, slog.LevelInfo, got[0].level)
	require.Equal(t, "mem", got[0].attrs["collection"].String())

	mem := &vfs.Mem{}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, mem, "db", clk, Options{Logger: log})
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p","v":"SECRET"}`)
	mustCreate(t, c, `{"id":"b","pk":"p","v":"SECRET"}`)
	require.NoError(t, c.Close())
	name := filepath.Join("db", local.LogName(0))
	setFile(t, mem, name, append(fileBytes(t, mem, name), "torn SECRET"...))
	c, err = openDurable(t, mem, "db", clk, Options{Logger: log})
	require.NoError(t, err)
	defer c.Close()
	got = h.records("opened from its directory")
	require.Len(t, got, 2, "the new directory and the reopen")
	r := got[1]
	require.Equal(t, slog.LevelInfo, r.level)
	require.Equal(t, "test", r.attrs["collection"].String())
	require.Equal(t, "db", r.attrs["dir"].String())
	require.Equal(t, int64(1), r.attrs["logs"].Int64())
	require.Equal(t, int64(2), r.attrs["changes"].Int64())
	require.Equal(t, uint64(2), r.attrs["last_lsn"].Uint64())
	require.Equal(t, slog.KindDuration, r.attrs["took"].Kind())
	require.Equal(t, name, r.attrs["torn_tail"].String())
	require.Equal(t, c.Recovery().Dropped, r.attrs["torn_bytes"].Int64())
	require.NotContains(t, got[0].attrs, "torn_tail", "a new directory cut nothing")
	h.noContent(t, "SECRET")
}

// TestLogCompaction: a compaction logs its start and its end at Info,
// with the files' sizes (R17).
func TestLogCompaction(t *testing.T) { // R17
	h := &recorder{}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, &vfs.Mem{}, "db", clk, Options{Logger: slog.New(h)})
	require.NoError(t, err)
	defer c.Close()
	for range 20 {
		_, err := c.Upsert(bg, []byte(`{"id":"a","pk":"p","v":"SECRET"}`))
		require.NoError(t, err)
	}
	require.NoError(t, c.Compact(bg))
	start, done := h.records("compaction started"), h.records("compaction done")
	require.Len(t, start, 1)
	require.Len(t, done, 1)
	require.Equal(t, slog.LevelInfo, start[0].level)
	require.Equal(t, slog.LevelInfo, done[0].level)
	require.Equal(t, "test", done[0].attrs["collection"].String())
	before, after := done[0].attrs["files_bytes_before"].Int64(), done[0].attrs["files_bytes"].Int64()
	require.Equal(t, before, start[0].attrs["files_bytes"].Int64())
	require.Less(t, after, before, "twenty versions of a document became one")
	require.Empty(t, h.records("failed"))
	h.noContent(t, "SECRET")
}

// TestLogDiskFailure: a write the disk fails logs at Error, once, with the
// error, and closes the collection (R17).
func TestLogDiskFailure(t *testing.T) { // R17
	h := &recorder{}
	ffs := &vfs.Fault{Mem: &vfs.Mem{}, Kill: true}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, ffs, "db", clk, Options{Logger: slog.New(h), Sync: SyncAlways})
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p","v":"SECRET"}`)
	require.Empty(t, h.records("failed"))
	ffs.Arm(ffs.Events() + 1)
	_, err = c.Create(bg, []byte(`{"id":"b","pk":"p","v":"SECRET"}`))
	require.ErrorIs(t, err, ErrClosed)
	_, err = c.Create(bg, []byte(`{"id":"c","pk":"p","v":"SECRET"}`))
	require.ErrorIs(t, err, ErrClosed)
	c.Close()
	got := h.records("files failed")
	require.Len(t, got, 1)
	require.Equal(t, slog.LevelError, got[0].level)
	require.Equal(t, "test", got[0].attrs["collection"].String())
	require.Equal(t, "db", got[0].attrs["dir"].String())
	require.Contains(t, got[0].attrs["error"].String(), vfs.ErrDead.Error())
	h.noContent(t, "SECRET")
}

// TestLogSweeperBehind: the background sweeper warns when the oldest
// expired document it has not yet swept expired 10 s or more ago, once
// per minute at most however many batches it sweeps meanwhile; a sweeper
// that keeps up warns of nothing (R17). Time is synctest's.
func TestLogSweeperBehind(t *testing.T) { // R17
	synctest.Test(t, func(t *testing.T) {
		h := &recorder{}
		c, err := NewCollection("test", "/pk", &Options{Logger: slog.New(h), SweepBatch: 10, DefaultTTL: TTLNoDefault()})
		require.NoError(t, err)
		defer c.Close()
		put := func(n int, ttl int) {
			for i := range n {
				_, err := c.Upsert(bg, map[string]any{"id": "d" + string(rune('a'+i%26)) + time.Now().Format("150405") + string(rune('0'+i/26)), "pk": "p", "ttl": ttl, "v": "SECRET"})
				require.NoError(t, err)
			}
		}
		// Keeping up: 100 documents swept in the second they expire.
		put(100, 1)
		time.Sleep(2 * time.Second)
		synctest.Wait()
		require.Zero(t, c.Metrics().Backlog)
		require.Empty(t, h.records("behind"))

		// Behind: with TTL off nothing is swept (R5); on again, the
		// documents expired a minute ago, and the sweep takes ten batches.
		behind := func() {
			require.NoError(t, c.SetDefaultTTL(bg, TTLOff()))
			put(100, 1)
			time.Sleep(time.Minute)
			require.NoError(t, c.SetDefaultTTL(bg, TTLNoDefault()))
			synctest.Wait()
			require.Zero(t, c.Metrics().Backlog)
		}
		behind()
		got := h.records("behind")
		require.Len(t, got, 1, "once, not once a batch")
		require.Equal(t, slog.LevelWarn, got[0].level)
		require.Equal(t, "test", got[0].attrs["collection"].String())
		require.Equal(t, int64(90), got[0].attrs["backlog"].Int64(), "after the first batch")
		require.Equal(t, 59*time.Second, got[0].attrs["behind"].Duration())

		behind() // a minute later: a second warning
		require.Len(t, h.records("behind"), 2)
		h.noContent(t, "SECRET")
	})
}

// TestLogQuota: a quota reached is logged at Warn, once a minute at most,
// whether it evicts or refuses, without a document's content (R17).
func TestLogQuota(t *testing.T) { // R17
	for _, policy := range []QuotaPolicy{QuotaEvictSoonest, QuotaRefuse} {
		h := &recorder{}
		clk := &fakeClock{t: time.Unix(1_000_000, 0)}
		c, err := NewCollection("test", "/pk", &Options{Logger: slog.New(h), Now: clk.Now, ManualSweep: true,
			DefaultTTL: TTLSeconds(100), Quota: QuotaOptions{MaxDocuments: 2, Policy: policy}})
		require.NoError(t, err)
		put := func(id string) error {
			_, err := c.CreateJSON(bg, []byte(`{"id":"`+id+`","pk":"p","v":"SECRET"}`))
			return err
		}
		require.NoError(t, put("a"))
		require.NoError(t, put("b"))
		require.Empty(t, h.records("quota"), "within the quota")
		want := "evicting"
		if policy == QuotaRefuse {
			want = "refused"
		}
		for _, id := range []string{"c", "d"} { // two in one minute: one record
			if err := put(id); policy == QuotaRefuse {
				require.ErrorIs(t, err, ErrQuotaExceeded)
			} else {
				require.NoError(t, err)
			}
		}
		got := h.records("quota")
		require.Len(t, got, 1, "%v: once a minute, not once a write", policy)
		require.Equal(t, slog.LevelWarn, got[0].level)
		require.Contains(t, got[0].msg, want)
		require.Equal(t, "test", got[0].attrs["collection"].String())
		require.Equal(t, int64(2), got[0].attrs["quota_documents"].Int64())
		clk.Advance(time.Minute)
		_ = put("e")
		require.Len(t, h.records("quota"), 2, "%v: a minute later, again", policy)
		h.noContent(t, "SECRET")
		require.NoError(t, c.Close())
	}
}
