package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/ttldb/ttldb"
)

var statsCmd = &command{
	name:    "stats",
	summary: "settings, counts, an expiry histogram, the feed's position, the files",
	usage: `[flags] DIR|URL

Shows the collection's settings (name, partition-key path, DefaultTTL,
indexing, indexes), its live documents and the expired ones the sweeper has
not yet deleted, when the live ones expire (within a minute, an hour, a
day, a week, later, never), the change feed's last LSN and what its
all-versions history keeps, and for a directory its files and their sizes.
It reads every live document once (O(n)). It deletes nothing: the sweeper
is off while ttldb has the collection open, and a directory is opened
read-only (a torn tail is left out, with a warning on stderr).`,
	setup: func(fs *flag.FlagSet) func(context.Context, env, []string) error {
		var t target
		t.flags(fs, false)
		format := fs.String("format", "text", "`text` (for a person) or json (for a program: DefaultTTL null for off, -1, or seconds; the feed null when off)")
		now := fs.String("now", "", "count expiry as at this `instant` (RFC 3339, such as 2026-11-27T10:00:00Z) instead of the clock's now; not later than the clock's now, since a PostgreSQL collection records the clock it is read at and never goes back: a later one would expire the application's documents early (a directory, opened read-only, records nothing, but is refused one alike). An instant before the clock the collection last recorded counts, for the live and expired counts, as that one")
		return func(ctx context.Context, e env, args []string) error {
			if err := needArgs(args, 1, 1, "DIR|URL"); err != nil {
				return err
			}
			var opts ttldb.Options
			at := time.Now()
			if *now != "" {
				var err error
				if at, err = time.Parse(time.RFC3339, *now); err != nil {
					return usagef("--now %q: not an RFC 3339 instant such as 2026-11-27T10:00:00Z", *now)
				}
				if at.After(time.Now()) {
					return usagef("--now %q is later than the clock's now: the collection would record it as its clock, and the application's documents would then expire early (R4: a collection's now never goes back)", *now)
				}
				opts.Now = func() time.Time { return at }
			}
			if *format != "text" && *format != "json" {
				return usagef("--format %q: want text or json", *format)
			}
			return stats(ctx, e, &t, args[0], opts, at, *format == "json")
		}
	},
}

// buckets are the expiry histogram's: a live document falls in the first
// whose bound its expiry is within.
var buckets = []struct {
	label  string
	within time.Duration
}{
	{"next minute", time.Minute},
	{"next hour", time.Hour},
	{"next day", 24 * time.Hour},
	{"next week", 7 * 24 * time.Hour},
}

// report is what stats shows; --format json writes it as it is.
type report struct {
	Collection   string   `json:"collection"`
	PartitionKey string   `json:"partitionKeyPath"`
	DefaultTTL   *int64   `json:"defaultTtl"` // null: off; -1; or seconds, as Cosmos DB writes it
	Indexing     string   `json:"indexingMode"`
	Indexes      []string `json:"indexes"`
	Live         int      `json:"live"`
	Expired      int      `json:"expiredNotSwept"`
	From         string   `json:"expiryFrom"`
	Expiry       []bucket `json:"expiry"`
	Feed         *feed    `json:"feed"` // null when the feed is off
	Files        []file   `json:"files,omitempty"`
	Dir          string   `json:"dir,omitempty"`

	ttl ttldb.DefaultTTL
}

type bucket struct {
	Within string `json:"within"` // "1m0s"...; "later", "never"
	Count  int    `json:"count"`
}

type feed struct {
	LastLSN uint64 `json:"lastLsn"`
	Oldest  uint64 `json:"oldestLsn"` // lastLsn+1 when it keeps none
	Records int64  `json:"records"`
	Bytes   int64  `json:"bytes"`
}

type file struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	Dir  bool   `json:"dir,omitempty"`
}

func stats(ctx context.Context, e env, t *target, arg string, opts ttldb.Options, now time.Time, asJSON bool) (err error) {
	w := e.stdout
	c, err := t.open(ctx, e.stderr, arg, opts)
	if err != nil {
		return err
	}
	defer closeInto(c, &err)
	r, err := gather(ctx, c, now)
	if err != nil {
		return err
	}
	if _, dir, _ := targetURL(arg); dir != "" {
		if r.Files, err = files(dir); err != nil {
			return err
		}
		r.Dir = dir
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return r.print(w)
}

// gather reads the collection's report.
func gather(ctx context.Context, c *ttldb.Collection, now time.Time) (*report, error) {
	st, err := c.Stats(ctx)
	if err != nil {
		return nil, err
	}
	hist := make([]int, len(buckets)+2) // the buckets, later, never
	for d, err := range c.All(ctx, ttldb.Query{}) {
		if err != nil {
			return nil, err
		}
		at, ok := c.ExpiresAt(d)
		if !ok {
			hist[len(hist)-1]++
			continue
		}
		i := 0
		for i < len(buckets) && at.Sub(now) > buckets[i].within {
			i++
		}
		hist[i]++
	}
	r := &report{
		Collection: c.Name(), PartitionKey: c.PartitionKeyPath(), ttl: c.DefaultTTL(),
		Indexing: c.IndexingMode().String(), Indexes: c.Indexes(),
		Live: st.Live, Expired: st.Expired, From: now.UTC().Format(time.RFC3339),
	}
	if n, on := r.ttl.Seconds(); on {
		r.DefaultTTL = &n
	}
	if r.Indexes == nil {
		r.Indexes = []string{}
	}
	for i, b := range buckets {
		r.Expiry = append(r.Expiry, bucket{b.within.String(), hist[i]})
	}
	r.Expiry = append(r.Expiry, bucket{"later", hist[len(buckets)]}, bucket{"never", hist[len(buckets)+1]})
	fs, err := c.FeedStats(ctx)
	switch {
	case errors.Is(err, ttldb.ErrInvalidOption): // the feed is off
	case err != nil:
		return nil, err
	default:
		r.Feed = &feed{fs.LastLSN, fs.Oldest, fs.Records, fs.Bytes}
	}
	return r, nil
}

// print writes the report for a person.
func (r *report) print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "collection\t%s\n", r.Collection)
	fmt.Fprintf(tw, "partition key\t%s\n", r.PartitionKey)
	fmt.Fprintf(tw, "default ttl\t%s\n", describeTTL(r.ttl))
	fmt.Fprintf(tw, "indexing\t%v\n", r.Indexing)
	if len(r.Indexes) > 0 {
		fmt.Fprintf(tw, "indexes\t%v\n", r.Indexes)
	}
	fmt.Fprintf(tw, "live\t%d\n", r.Live)
	fmt.Fprintf(tw, "expired, not yet swept\t%d\n", r.Expired)
	fmt.Fprintf(tw, "live documents expire, from\t%s\n", r.From)
	for i, b := range buckets {
		fmt.Fprintf(tw, "  within the %s\t%d\n", b.label, r.Expiry[i].Count)
	}
	fmt.Fprintf(tw, "  later\t%d\n", r.Expiry[len(buckets)].Count)
	fmt.Fprintf(tw, "  never\t%d\n", r.Expiry[len(buckets)+1].Count)
	if f := r.Feed; f == nil {
		fmt.Fprintf(tw, "feed\toff\n")
	} else {
		fmt.Fprintf(tw, "feed last LSN\t%d\n", f.LastLSN)
		kept := "none"
		if f.Oldest <= f.LastLSN {
			kept = fmt.Sprintf("LSN %d to %d", f.Oldest, f.LastLSN)
		}
		fmt.Fprintf(tw, "feed history kept\t%s: %d records, %s\n", kept, f.Records, size(f.Bytes))
	}
	if r.Dir != "" {
		var total int64
		fmt.Fprintf(tw, "files\t%s\n", r.Dir)
		for _, f := range r.Files {
			if f.Dir {
				fmt.Fprintf(tw, "  %s/\tdirectory\n", f.Name)
				continue
			}
			total += f.Size
			fmt.Fprintf(tw, "  %s\t%s\n", f.Name, size(f.Size))
		}
		fmt.Fprintf(tw, "  total\t%s\n", size(total))
	}
	return tw.Flush()
}

// describeTTL says what a DefaultTTL means.
func describeTTL(d ttldb.DefaultTTL) string {
	n, on := d.Seconds()
	switch {
	case !on:
		return "off (nothing expires)"
	case n == -1:
		return "-1 (only documents with their own ttl expire)"
	}
	return fmt.Sprintf("%d s (%v after a document's last write)", n, time.Duration(n)*time.Second)
}

// files lists a directory's files and their sizes.
func files(dir string) ([]file, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fs := []file{}
	for _, e := range es {
		info, err := e.Info()
		if err != nil {
			return nil, err
		}
		fs = append(fs, file{Name: e.Name(), Size: info.Size(), Dir: info.IsDir()})
	}
	return fs, nil
}

// size writes n bytes for a person, with the exact count.
func size(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return fmt.Sprintf("%.1f KiB (%d B)", float64(n)/k, n)
	case n < k*k*k:
		return fmt.Sprintf("%.1f MiB (%d B)", float64(n)/(k*k), n)
	}
	return fmt.Sprintf("%.1f GiB (%d B)", float64(n)/(k*k*k), n)
}
