// Command ttldb is the operator's tool of ttldb (R17): it opens a durable
// directory or a server engine's collection (a postgres:// URL) to look
// inside it (stats), read and write documents (get, put, delete), run a
// query in Cosmos SQL (query), move documents out and in as NDJSON, one
// document a line with its system properties (dump, load), back it up and
// restore it (backup, restore), check its files without writing to them
// (verify) and compact them (compact).
//
// Usage:
//
//	ttldb help [COMMAND]
//	ttldb COMMAND [flags] DIR|URL [ARG...]
//
// Exit codes: 0 success; 1 an error (stderr names the argument at fault);
// 2 bad usage (unknown command or flag, missing or extra arguments).
// Interrupt (Ctrl-C) stops a command after the document (or batch) at hand and closes the
// collection cleanly, exiting 1.
//
// See README.md for the commands and the conventions.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal stops the command cleanly; once it has, the signals
	// are the default again, so that a second one ends a close that hangs.
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// env is what a command reads and writes, other than its arguments.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one subcommand: its name, a line for the command list, its
// usage text (after "ttldb NAME"), and setup, which declares its flags on
// fs and returns what the command does with its positional arguments.
type command struct {
	name, summary, usage string
	setup                func(fs *flag.FlagSet) func(ctx context.Context, e env, args []string) error
}

// run parses args, flags and positional arguments interleaved, and runs c.
func (c *command) run(ctx context.Context, e env, args []string) error {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	body := c.setup(fs)
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return &usageError{err.Error()}
	}
	return body(ctx, e, pos)
}

// parseArgs parses flags anywhere among args (flag stops at the first
// positional argument; ttldb goes on after it), and returns the positional
// arguments. After "--" every argument is positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// commands are the subcommands, in the order help lists them.
var commands []*command

func init() {
	commands = []*command{statsCmd, getCmd, putCmd, deleteCmd, queryCmd, dumpCmd, loadCmd, backupCmd, restoreCmd, verifyCmd, compactCmd}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// usageError is bad usage: exit code 2, with the command's usage line.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// errHelp is -h or --help: the usage is printed and the exit code is 0.
var errHelp = errors.New("help requested")

// run runs the command args name and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		mainUsage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && name == "help" {
			c := lookup(args[1])
			if c == nil {
				fmt.Fprintf(stderr, "ttldb help: unknown command %q\n", args[1])
				mainUsage(stderr)
				return exitUsage
			}
			commandUsage(stdout, c)
			return exitOK
		}
		mainUsage(stdout)
		return exitOK
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "ttldb: unknown command %q\n", name)
		mainUsage(stderr)
		return exitUsage
	}
	err := c.run(ctx, e, args[1:])
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHelp):
		commandUsage(stdout, c)
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "ttldb %s: %v\n", c.name, err)
		fmt.Fprintf(stderr, "usage: ttldb %s %s\nrun 'ttldb %s -h' for more\n", c.name, firstLine(c.usage), c.name)
		return exitUsage
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "ttldb %s: interrupted: %v\n", c.name, err)
		return exitError
	default:
		fmt.Fprintf(stderr, "ttldb %s: %v\n", c.name, err)
		return exitError
	}
}

func firstLine(s string) string {
	for i := range len(s) {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

func mainUsage(w io.Writer) {
	fmt.Fprint(w, `ttldb: the operator's tool of ttldb, documents that expire (R17)

usage: ttldb COMMAND [flags] DIR|URL [ARG...]

DIR is a durable collection's directory; URL is file:///abs/path,
file:relative/path, or postgres://... (with --collection NAME).
The commands that only read (stats, get, query, dump, backup, verify)
write nothing to a directory's files, even when no other process has it
open: they open it read-only (verify reads its files), and report a torn
tail rather than cut it.

commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-7s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
run 'ttldb help COMMAND' or 'ttldb COMMAND -h' for a command's flags.
exit codes: 0 ok, 1 an error, 2 bad usage.
`)
}

func commandUsage(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: ttldb %s %s\n", c.name, c.usage)
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.setup(fs)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}
