package postgres

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// commitProxy stands between a pool and the server. Once armed, it drops
// the first chunk the server sends that holds a COMMIT's CommandComplete,
// and closes that connection both ways: the COMMIT ran on the server, and
// its answer (with whatever else the chunk held) never reaches the client.
// So the test loses a COMMIT's answer where it wants to, every time, which
// terminating a backend cannot do (the server flushes its answers first).
type commitProxy struct {
	ln    net.Listener
	armed atomic.Bool
	cut   atomic.Int64 // connections cut
	wg    sync.WaitGroup
}

// commitComplete is the message CommandComplete "COMMIT" of the protocol.
var commitComplete = append([]byte{'C', 0, 0, 0, 11}, "COMMIT\x00"...)

// newCommitProxy listens on loopback and forwards to upstream (host:port);
// it stops, and its goroutines end, when the test ends.
func newCommitProxy(t *testing.T, upstream string) *commitProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &commitProxy{ln: ln}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
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
			mu.Lock()
			conns = append(conns, c, u)
			mu.Unlock()
			p.wg.Go(func() { _, _ = io.Copy(u, c); _ = u.Close(); _ = c.Close() })
			p.wg.Go(func() { p.back(c, u) })
		}
	})
	return p
}

// back copies the server's answers from u to the client c, cutting both
// at the first COMMIT's answer once armed.
func (p *commitProxy) back(c, u net.Conn) {
	defer func() { _ = c.Close(); _ = u.Close() }()
	buf := make([]byte, 64<<10)
	for {
		n, err := u.Read(buf)
		if n > 0 {
			if bytes.Contains(buf[:n], commitComplete) && p.armed.CompareAndSwap(true, false) {
				p.cut.Add(1)
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

// poolVia returns a pool on the test's schema whose connections go
// through p; it is closed when the test ends.
func (s *server) poolVia(p *commitProxy) *pgxpool.Pool {
	s.t.Helper()
	cfg, err := pgxpool.ParseConfig(s.url)
	if err != nil {
		s.t.Fatalf("%s: %v", serverEnv, err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = s.schema
	at := p.ln.Addr().(*net.TCPAddr)
	cfg.ConnConfig.Host, cfg.ConnConfig.Port = "127.0.0.1", uint16(at.Port)
	for _, f := range cfg.ConnConfig.Fallbacks { // one per sslmode tried, each with its host
		f.Host, f.Port = "127.0.0.1", uint16(at.Port)
	}
	pool, err := pgxpool.NewWithConfig(s.t.Context(), cfg)
	if err != nil {
		s.t.Fatalf("making a pool: %v", err)
	}
	s.t.Cleanup(pool.Close)
	return pool
}

// upstream returns the server's host:port.
func (s *server) upstream() string {
	cfg, err := pgxpool.ParseConfig(s.url)
	if err != nil {
		s.t.Fatalf("%s: %v", serverEnv, err)
	}
	return fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port)
}

// R11, R16: a write whose COMMIT ran but whose answer was lost is resolved
// as committed, and what it returns is the version stored: its etag (its
// LSN) is the one a Get reads, for a new document and over an existing
// one. (A pipelined COMMIT, sent with the document's statement, once
// returned the etag of LSN 0 here: the statement's answer, with the
// record's seq, was lost with the COMMIT's.)
func TestLostCommitAnswer(t *testing.T) {
	s := newServer(t)
	p := newCommitProxy(t, s.upstream())
	e, err := Open(t.Context(), s.poolVia(p), "c", "/tenant", &ttldb.Options{ManualSweep: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	other := open(t, s, "c", nil) // another process's handle, on a pool of its own
	for i, body := range []string{`{"v":1}`, `{"v":2}`} {
		k, at := key("a")
		p.armed.Store(true)
		d, err := e.Write(t.Context(), k, engine.Write{Op: engine.Upsert, Doc: engine.NewDoc(k, at, body, 0, 0, 0)})
		if p.cut.Load() != int64(i+1) {
			t.Fatalf("write %d: the proxy cut %d connections, want %d: no COMMIT's answer was lost", i, p.cut.Load(), i+1)
		}
		if err != nil {
			t.Fatalf("write %d, its COMMIT's answer lost: %v (the server knows it committed)", i, err)
		}
		g, err := other.e.Get(t.Context(), k)
		if err != nil {
			t.Fatalf("write %d acknowledged, then Get: %v", i, err)
		}
		if g.Body() != body || d.Tag != g.Tag {
			t.Errorf("write %d acknowledged %s with etag %d; stored: %s with etag %d", i, body, d.Tag, g.Body(), g.Tag)
		}
	}
}
