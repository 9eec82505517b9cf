package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
is off while ttldb has the collection open.`,
	setup: func(fs *flag.FlagSet) func(context.Context, env, []string) error {
		var t target
		t.flags(fs, false)
		now := fs.String("now", "", "count expiry as at this `instant` (RFC 3339, such as 2026-11-27T10:00:00Z) instead of the clock's now; not later than the clock's now, since a collection records its clock and never goes back: a later one would expire the application's documents early. An instant before the clock the directory last recorded counts, for the live and expired counts, as that one")
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
			return stats(ctx, e.stdout, &t, args[0], opts, at)
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

func stats(ctx context.Context, w io.Writer, t *target, arg string, opts ttldb.Options, now time.Time) (err error) {
	c, err := t.open(ctx, arg, opts)
	if err != nil {
		return err
	}
	defer closeInto(c, &err)
	st, err := c.Stats(ctx)
	if err != nil {
		return err
	}
	hist := make([]int, len(buckets)+2) // the buckets, later, never
	for d, err := range c.All(ctx, ttldb.Query{}) {
		if err != nil {
			return err
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
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "collection\t%s\n", c.Name())
	fmt.Fprintf(tw, "partition key\t%s\n", c.PartitionKeyPath())
	fmt.Fprintf(tw, "default ttl\t%s\n", describeTTL(c.DefaultTTL()))
	fmt.Fprintf(tw, "indexing\t%v\n", c.IndexingMode())
	if ix := c.Indexes(); len(ix) > 0 {
		fmt.Fprintf(tw, "indexes\t%v\n", ix)
	}
	fmt.Fprintf(tw, "live\t%d\n", st.Live)
	fmt.Fprintf(tw, "expired, not yet swept\t%d\n", st.Expired)
	fmt.Fprintf(tw, "live documents expire, from\t%s\n", now.UTC().Format(time.RFC3339))
	for i, b := range buckets {
		fmt.Fprintf(tw, "  within the %s\t%d\n", b.label, hist[i])
	}
	fmt.Fprintf(tw, "  later\t%d\n", hist[len(buckets)])
	fmt.Fprintf(tw, "  never\t%d\n", hist[len(buckets)+1])
	fs, err := c.FeedStats(ctx)
	switch {
	case errors.Is(err, ttldb.ErrInvalidOption):
		fmt.Fprintf(tw, "feed\toff\n")
	case err != nil:
		return err
	default:
		fmt.Fprintf(tw, "feed last LSN\t%d\n", fs.LastLSN)
		kept := "none"
		if fs.Oldest <= fs.LastLSN {
			kept = fmt.Sprintf("LSN %d to %d", fs.Oldest, fs.LastLSN)
		}
		fmt.Fprintf(tw, "feed history kept\t%s: %d records, %s\n", kept, fs.Records, size(fs.Bytes))
	}
	if _, dir, _ := targetURL(arg); dir != "" {
		if err := files(tw, dir); err != nil {
			return err
		}
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
func files(w io.Writer, dir string) error {
	es, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var total int64
	fmt.Fprintf(w, "files\t%s\n", dir)
	for _, e := range es {
		info, err := e.Info()
		if err != nil {
			return err
		}
		if info.IsDir() {
			fmt.Fprintf(w, "  %s\tdirectory\n", filepath.Join(e.Name())+"/")
			continue
		}
		total += info.Size()
		fmt.Fprintf(w, "  %s\t%s\n", e.Name(), size(info.Size()))
	}
	fmt.Fprintf(w, "  total\t%s\n", size(total))
	return nil
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
