package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// R17 (and R3, R4): stats shows the settings, the live and the expired
// documents not yet swept, when the live ones expire, the feed's position
// and what it keeps, and the directory's files, as at --now.
func TestStats(t *testing.T) {
	clk := &clock{now: t0}
	dir, c := collection(t, clk, ttldb.TTLSeconds(3600),
		`{"id":"gone","tenant":"a","ttl":10}`, // expired at t0+10s
	)
	clk.add(100 * time.Second)
	for _, d := range []string{
		`{"id":"m","tenant":"a","ttl":30}`,        // within the minute
		`{"id":"m60","tenant":"a","ttl":60}`,      // at the minute's end: within it
		`{"id":"w7","tenant":"b","ttl":604800}`,   // at the week's end: within it
		`{"id":"h","tenant":"a"}`,                 // DefaultTTL, 3600: within the hour
		`{"id":"d","tenant":"b","ttl":7200}`,      // within the day
		`{"id":"w","tenant":"b","ttl":259200}`,    // 3 days: within the week
		`{"id":"l","tenant":"b","ttl":2592000}`,   // 30 days: later
		`{"id":"n1","tenant":"c","ttl":-1}`,       // never
		`{"id":"n2","tenant":"c","ttl":-1,"x":1}`, // never
	} {
		if _, err := c.UpsertJSON(context.Background(), []byte(d)); err != nil {
			t.Fatal(err)
		}
	}
	mustClose(t, c)
	r := ttl(t, "", "stats", "--now", clk.Now().Format(time.RFC3339), dir)
	r.want(t, 0, nil, nil)
	for _, line := range []string{
		`collection +sessions`,
		`partition key +/tenant`,
		`default ttl +3600 s \(1h0m0s after`,
		`indexing +consistent`,
		`live +9\n`,
		`expired, not yet swept +1\n`,
		`live documents expire, from +2025-03-01T12:01:40Z`,
		`within the next minute +2\n`,
		`within the next hour +1\n`,
		`within the next day +1\n`,
		`within the next week +2\n`,
		`later +1\n`,
		`never +2\n`,
		`feed last LSN +10\n`,
		`feed history kept +LSN \d+ to 10: \d+ records, \d+ B`,
		`files +` + regexp.QuoteMeta(dir),
		`  LOCK +0 B`,
		`  log-\d+ +\d`,
		`  total +\d`,
	} {
		if !regexp.MustCompile(line).MatchString(r.stdout) {
			t.Errorf("stats lacks %q:\n%s", line, r.stdout)
		}
	}
	// The same, for a program.
	j := ttl(t, "", "stats", "--format", "json", "--now", clk.Now().Format(time.RFC3339), dir)
	j.want(t, 0, nil, nil)
	var rep struct {
		Collection, PartitionKeyPath string
		DefaultTTL                   *int64 `json:"defaultTtl"`
		Live, ExpiredNotSwept        int
		Expiry                       []struct {
			Within string
			Count  int
		}
		Feed  *struct{ LastLSN, OldestLSN uint64 }
		Files []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil {
		t.Fatalf("stats --format json: %v\n%s", err, j.stdout)
	}
	var counts []string
	for _, b := range rep.Expiry {
		counts = append(counts, fmt.Sprintf("%s:%d", b.Within, b.Count))
	}
	lock := false
	for _, f := range rep.Files {
		lock = lock || f.Name == "LOCK"
	}
	if got := fmt.Sprintf("%s %s %v %d %d %v %+v %v", rep.Collection, rep.PartitionKeyPath, *rep.DefaultTTL, rep.Live, rep.ExpiredNotSwept, counts, *rep.Feed, lock); got != "sessions /tenant 3600 9 1 [1m0s:2 1h0m0s:1 24h0m0s:1 168h0m0s:2 later:1 never:2] {LastLSN:10 OldestLSN:1} true" {
		t.Errorf("stats --format json gives %s:\n%s", got, j.stdout)
	}
	ttl(t, "", "stats", "--format", "yaml", dir).want(t, 2, nil, []string{`--format "yaml"`})

	// stats deletes nothing: the expired document is still there to count.
	again := ttl(t, "", "stats", "--now", clk.Now().Format(time.RFC3339), dir)
	if !regexp.MustCompile(`expired, not yet swept +1\n`).MatchString(again.stdout) {
		t.Errorf("a second stats:\n%s", again.stdout)
	}
}

// R17, R4: stats --now refuses an instant later than the clock's: the
// open would record it as the collection's clock, which never goes back,
// and the application's documents would expire early.
func TestStatsNowNotLater(t *testing.T) {
	clk := &clock{now: t0}
	dir, c := collection(t, clk, ttldb.TTLSeconds(60), `{"id":"a","tenant":"t"}`)
	mustClose(t, c)
	later := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	ttl(t, "", "stats", "--now", later, dir).want(t, 2, nil, []string{`--now "` + later + `" is later than the clock's now`})
	// The document is there for a test clock at t0: nothing was recorded.
	r := ttl(t, "", "stats", "--now", t0.Format(time.RFC3339), dir)
	r.want(t, 0, []string{"within the next minute"}, nil)
	if !regexp.MustCompile(`live +1\n`).MatchString(r.stdout) {
		t.Errorf("the document expired:\n%s", r.stdout)
	}
}

// R17, R12: a directory another process has open is refused for writing,
// with ErrLocked's message and the directory named, and opened read-only
// by the commands that read: the collection as of their open, the
// directory unchanged; once it is closed, the same commands work.
func TestLockedDirectory(t *testing.T) {
	clk := &clock{now: t0}
	dir, c := collection(t, clk, ttldb.TTLOff(), `{"id":"a","tenant":"t"}`)
	for _, args := range [][]string{
		{"put", dir, `{"id":"b","tenant":"t"}`},
		{"load", dir},
		{"delete", dir, "t", "a"},
		{"compact", dir},
		{"verify", dir},
	} {
		ttl(t, "", args...).want(t, 1, nil, []string{dir, "in use"})
	}
	ttl(t, "", "stats", dir).want(t, 0, []string{"live", "1"}, nil)
	ttl(t, "", "get", dir, "t", "a").want(t, 0, []string{`"id":"a"`}, nil)
	ttl(t, "", "dump", dir).want(t, 0, []string{`"id":"a"`}, nil)
	ttl(t, "", "query", dir, "SELECT VALUE c.id FROM c").want(t, 0, []string{`"a"`}, nil)
	ttl(t, "", "backup", dir, "-").want(t, 0, nil, []string{"1 documents"})
	if _, err := c.UpsertJSON(t.Context(), []byte(`{"id":"z","tenant":"t"}`)); err != nil {
		t.Fatal(err) // the read-only opens took nothing from the collection
	}
	ttl(t, "", "get", dir, "t", "z").want(t, 0, []string{`"id":"z"`}, nil)
	mustClose(t, c)
	ttl(t, "", "stats", dir).want(t, 0, []string{"live", "2"}, nil)
	ttl(t, "", "put", dir, `{"id":"b","tenant":"t"}`).want(t, 0, []string{`"id":"b"`}, nil)
}
