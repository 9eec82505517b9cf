//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// (Linux: Maxrss is in KiB there.)

// longLine is a reader of line 1, a document, then line 2, a document
// whose string member runs n bytes, then line 3, a document: it makes
// the long line as it is read, holding none of it.
type longLine struct {
	head, tail []byte
	n          int
}

func (l *longLine) Read(p []byte) (int, error) {
	switch {
	case len(l.head) > 0:
		k := copy(p, l.head)
		l.head = l.head[k:]
		return k, nil
	case l.n > 0:
		k := min(len(p), l.n)
		for i := range k {
			p[i] = 'x'
		}
		l.n -= k
		return k, nil
	case len(l.tail) > 0:
		k := copy(p, l.tail)
		l.tail = l.tail[k:]
		return k, nil
	}
	return 0, io.EOF
}

// R17, R10: load refuses a line longer than a document can be (a little
// more than ttldb.MaxDocumentSize, for the system properties) by its
// number, without reading the rest of it into memory: the process's
// peak memory stays far below the line's 128 MiB. The lines before it
// are stored and counted, and it stops there, as at any refused line.
func TestLoadRefusesALongLine(t *testing.T) {
	into := t.TempDir() + "/into"
	const n = 128 << 20
	cmd := exec.Command(binary(t), "load", "--collection", "c", "--partition-key", "/t", into)
	cmd.Stdin = &longLine{
		head: []byte(`{"id":"a","t":"x"}` + "\n" + `{"id":"big","t":"x","s":"`),
		n:    n,
		tail: []byte(`"}` + "\n" + `{"id":"c","t":"x"}` + "\n"),
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("load of a %d-byte line: %v, want exit code 1\nstderr: %s", n, err, stderr.String())
	}
	for _, s := range []string{"stdin line 2:", fmt.Sprintf("longer than %d bytes", maxLine), "(1 documents loaded before it)"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
		}
	}
	// The child's Maxrss counts the test process's own peak too: Linux
	// keeps the peak of the memory a process had before its exec, which
	// for a child that os/exec starts (vfork) is its parent's.
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak, bound := ru.Maxrss<<10, max(selfPeak(t), 32<<20)+32<<20 // Maxrss is in KiB on Linux
		if peak > bound {
			t.Errorf("load's peak memory was %d MiB (more than %d MiB) for a %d MiB line: it read the line whole", peak>>20, bound>>20, n>>20)
		}
	} else {
		t.Log("no rusage on this system: memory not checked")
	}
	ttl(t, "", "get", into, "x", "a").want(t, 0, []string{`"id":"a"`}, nil)
	ttl(t, "", "get", into, "x", "c").want(t, 1, nil, nil)
}

// selfPeak returns the test process's peak resident memory, in bytes
// (VmHWM).
func selfPeak(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM: %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
