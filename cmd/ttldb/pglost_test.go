package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// lostCommit stands between the binary and the server. Once it has seen
// the client send marker, it drops the server's next answer that holds a
// COMMIT's CommandComplete, and then the server is gone for good: every
// connection is closed and no new one is taken. So the COMMIT ran, its
// answer never came, and the engine cannot ask the server what became of
// it: the outcome is unknown.
type lostCommit struct {
	ln     net.Listener
	marker []byte
	seen   atomic.Bool
	cut    atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
	wg     sync.WaitGroup
}

// commitComplete is the protocol's CommandComplete "COMMIT".
var commitComplete = append([]byte{'C', 0, 0, 0, 11}, "COMMIT\x00"...)

func newLostCommit(t *testing.T, upstream string, marker string) *lostCommit {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &lostCommit{ln: ln, marker: []byte(marker)}
	t.Cleanup(func() {
		p.gone()
		p.wg.Wait()
	})
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", upstream)
			if err != nil {
				_ = c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			p.wg.Go(func() { p.forth(c, u) })
			p.wg.Go(func() { p.back(c, u) })
		}
	})
	return p
}

// gone closes the listener and every connection.
func (p *lostCommit) gone() {
	_ = p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
}

// forth copies the client's messages to the server, watching for the
// marker (a chunk boundary inside it is not looked for: the documents are
// small, each in one write).
func (p *lostCommit) forth(c, u net.Conn) {
	defer func() { _ = c.Close(); _ = u.Close() }()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if bytes.Contains(buf[:n], p.marker) {
				p.seen.Store(true)
			}
			if _, err := u.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// back copies the server's answers to the client, until the COMMIT's
// answer after the marker, which it drops, making the server gone.
func (p *lostCommit) back(c, u net.Conn) {
	defer func() { _ = c.Close(); _ = u.Close() }()
	buf := make([]byte, 64<<10)
	for {
		n, err := u.Read(buf)
		if n > 0 {
			if p.seen.Load() && bytes.Contains(buf[:n], commitComplete) && p.cut.CompareAndSwap(false, true) {
				p.gone()
				return
			}
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// R17, R16: on PostgreSQL, a load whose batch's COMMIT loses its answer,
// the server then out of reach, stops with an error naming the batch's
// first and last lines and saying that it may have committed or not; it
// does not write the batch's lines again one by one (which would meet
// the server gone line by line, or write twice what was committed).
func TestPostgresLoadLostCommit(t *testing.T) {
	u := pgURL(t)
	ttl(t, "", "put", "--collection", "s", "--partition-key", "/tenant", u, `{"id":"z","tenant":"t"}`).want(t, 0, nil, nil)
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	p := newLostCommit(t, pu.Host, "marker-of-the-batch")
	via := *pu
	via.Host = p.ln.Addr().String()
	in := `{"id":"a","tenant":"one"}
{"id":"b","tenant":"two","m":"marker-of-the-batch"}
{"id":"c","tenant":"two"}
{"id":"d","tenant":"two"}
{"id":"e","tenant":"three"}
`
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a hang fails, not a timing
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "load", "--collection", "s", via.String())
	cmd.Stdin = strings.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("load: %v; want exit code 1\nstderr: %s", err, stderr.String())
	}
	if !p.cut.Load() {
		t.Fatalf("no COMMIT's answer was lost: the proxy never cut\nstderr: %s", stderr.String())
	}
	for _, s := range []string{"stdin lines 2 to 4", "may have committed or not", "(1 documents loaded before it)"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
		}
	}
	ttl(t, "", "get", "--collection", "s", u, "two", "b", "c", "d").want(t, 0, []string{`"id":"b"`, `"id":"d"`}, nil)
}
