package main

import (
	"bufio"
	"context"
	"flag"

	"github.com/ttldb/ttldb"
)

var dumpCmd = &command{
	name:    "dump",
	summary: "write every live document as NDJSON, with its system properties",
	usage: `[flags] DIR|URL > out.ndjson

Writes every live document, one JSON object a line with its system
properties (_ts, _etag), as Cosmos DB's export tools write them, in the
order of partition key, then id, from one snapshot. Expired documents are
left out. A progress line with the rate goes to stderr when stderr is a
terminal, or with --progress.`,
	setup: func(fs *flag.FlagSet) func(context.Context, env, []string) error {
		var t target
		t.flags(fs, false)
		force := fs.Bool("progress", false, "show progress on stderr even when it is not a terminal")
		return func(ctx context.Context, e env, args []string) (err error) {
			if err := needArgs(args, 1, 1, "DIR|URL"); err != nil {
				return err
			}
			c, err := t.open(ctx, e.stderr, args[0], ttldb.Options{})
			if err != nil {
				return err
			}
			defer closeInto(c, &err)
			p := newProgress(e.stderr, *force, "dumped")
			defer p.done() // before an error's message, which run writes
			w := bufio.NewWriterSize(e.stdout, 1<<16)
			var buf []byte
			for d, err := range c.All(ctx, ttldb.Query{}) {
				if err != nil {
					return err
				}
				buf = append(d.AppendJSON(buf[:0]), '\n')
				if _, err := w.Write(buf); err != nil {
					return err
				}
				p.add(1)
			}
			return w.Flush()
		}
	},
}
