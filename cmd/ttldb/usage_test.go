package main

import (
	"path/filepath"
	"testing"
)

// R17: help, -h and bad usage follow Go CLIs' conventions: help on stdout
// with exit 0; an unknown command or flag, or missing or extra arguments,
// on stderr with exit 2 and the usage line.
func TestUsage(t *testing.T) {
	r := ttl(t, "", "help")
	r.want(t, 0, []string{"usage: ttldb COMMAND", "stats", "get", "put", "delete", "query", "dump", "load"}, nil)
	for _, c := range []string{"stats", "get", "put", "delete", "query", "dump", "load"} {
		ttl(t, "", c, "-h").want(t, 0, []string{"usage: ttldb " + c, "-collection"}, nil)
		ttl(t, "", "help", c).want(t, 0, []string{"usage: ttldb " + c}, nil)
	}
	ttl(t, "", "load", "--help").want(t, 0, []string{"restamped", "counts again", "-progress"}, nil)
	ttl(t, "").want(t, 2, nil, []string{"usage: ttldb COMMAND"})
	ttl(t, "", "frobnicate").want(t, 2, nil, []string{`unknown command "frobnicate"`})
	ttl(t, "", "help", "frobnicate").want(t, 2, nil, []string{`unknown command "frobnicate"`})
	ttl(t, "", "stats").want(t, 2, nil, []string{"missing arguments: want DIR|URL", "usage: ttldb stats"})
	ttl(t, "", "stats", "a", "b").want(t, 2, nil, []string{`too many arguments ("b"`})
	ttl(t, "", "stats", "--bogus", "a").want(t, 2, nil, []string{"-bogus"})
	ttl(t, "", "query", "--format", "xml", "d", "SELECT * FROM c").want(t, 2, nil, []string{`--format "xml"`})
	ttl(t, "", "stats", "--now", "yesterday", "d").want(t, 2, nil, []string{`--now "yesterday"`})
	ttl(t, "", "get", "d", "pk").want(t, 2, nil, []string{"want PK ID"})
	ttl(t, "", "stats", "mem:").want(t, 2, nil, []string{"mem:"})
}

// R17: a command that only reads refuses a directory that does not
// exist, naming it, and makes nothing there.
func TestReadMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nothere")
	for _, args := range [][]string{{"stats", dir}, {"get", dir, "p", "i"}, {"query", dir, "SELECT * FROM c"}, {"dump", dir}, {"delete", dir, "p", "i"}} {
		ttl(t, "", args...).want(t, 1, nil, []string{dir + ": no such directory"})
	}
	ttl(t, "", "stats", "file:"+dir).want(t, 1, nil, []string{"no such directory"})
	if m, _ := filepath.Glob(dir); len(m) != 0 {
		t.Fatalf("%s was made", dir)
	}
}
