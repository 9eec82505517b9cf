package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ttldb/ttldb"
)

// params is --param name=JSON, repeatable.
type params map[string]any

func (p params) String() string { return "" }

func (p params) Set(s string) error {
	name, v, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("%q: want name=JSON, such as @tenant='\"t1\"' or @n=3", s)
	}
	if !json.Valid([]byte(v)) {
		return fmt.Errorf("%q: the value %q is not JSON (a string is quoted: %s='\"%s\"')", s, v, name, v)
	}
	p[name] = json.RawMessage(v)
	return nil
}

var queryCmd = &command{
	name:    "query",
	summary: "run a query in Cosmos SQL; results as JSON lines or a table",
	usage: `[flags] DIR|URL 'SELECT ...'

Runs the query (Cosmos DB's SQL, R13) and prints every result, from one
snapshot: one JSON value a line (--format json, the default), or a table
whose columns are the results' top-level members (--format table, which
reads every result before it prints).`,
	setup: func(fs *flag.FlagSet) func(context.Context, env, []string) error {
		var t target
		t.flags(fs, false)
		format := fs.String("format", "json", "`json` (one result a line) or table")
		ps := params{}
		fs.Var(ps, "param", "a parameter's value, `@name=JSON`, such as --param @tenant='\"t1\"'; repeat for each")
		return func(ctx context.Context, e env, args []string) (err error) {
			if err := needArgs(args, 2, 2, "DIR|URL 'SELECT ...'"); err != nil {
				return err
			}
			if *format != "json" && *format != "table" {
				return usagef("--format %q: want json or table", *format)
			}
			c, err := t.open(ctx, e.stderr, args[0], ttldb.Options{})
			if err != nil {
				return err
			}
			defer closeInto(c, &err)
			q := ttldb.SQL{Text: args[1], Params: ps}
			if *format == "table" {
				return table(ctx, e.stdout, c, q)
			}
			for r, err := range c.QueryAll(ctx, q) {
				if err != nil {
					return fmt.Errorf("query %q: %w", q.Text, err)
				}
				if _, err := e.stdout.Write(append(r, '\n')); err != nil {
					return err
				}
			}
			return nil
		}
	},
}

// table prints the results as a table: a column for each top-level member
// of the objects, in the order of first appearance, and a column "value"
// for results that are not objects (SELECT VALUE).
func table(ctx context.Context, w io.Writer, c *ttldb.Collection, q ttldb.SQL) error {
	var cols []string
	seen := map[string]bool{}
	var rows []map[string]json.RawMessage
	for r, err := range c.QueryAll(ctx, q) {
		if err != nil {
			return fmt.Errorf("query %q: %w", q.Text, err)
		}
		row, order, ok := members(r)
		if !ok {
			row, order = map[string]json.RawMessage{"value": r}, []string{"value"}
		}
		for _, k := range order {
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
		}
		rows = append(rows, row)
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	for i, k := range cols {
		fmt.Fprint(tw, cell(k), sep(i, len(cols)))
	}
	for _, row := range rows {
		for i, k := range cols {
			s := ""
			if v, ok := row[k]; ok {
				s = text(v)
			}
			fmt.Fprint(tw, s, sep(i, len(cols)))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(buf.String()) {
		if _, err := fmt.Fprintln(w, strings.TrimRight(line, " \n")); err != nil {
			return err
		}
	}
	plural := "s"
	if len(rows) == 1 {
		plural = ""
	}
	_, err := fmt.Fprintf(w, "(%d result%s)\n", len(rows), plural)
	return err
}

func sep(i, n int) string {
	if i == n-1 {
		return "\n"
	}
	return "\t"
}

// members returns an object's members and their order; ok is false for
// any other JSON value.
func members(r json.RawMessage) (map[string]json.RawMessage, []string, bool) {
	d := json.NewDecoder(bytes.NewReader(r))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	m := map[string]json.RawMessage{}
	var order []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, nil, false
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, nil, false
		}
		if _, dup := m[k]; !dup {
			order = append(order, k)
		}
		m[k] = v
	}
	return m, order, true
}

// text is a cell: a string without its quotes, anything else as JSON.
func text(v json.RawMessage) string {
	var s string
	if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return cell(s)
	}
	return cell(string(v))
}

// cell keeps a table's lines and columns: tabs and newlines become spaces.
func cell(s string) string {
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}
