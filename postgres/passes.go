package postgres

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/ttldb/ttldb/engine"
)

// A handle runs one pass of the sequencer at a time, and that pass serves
// every call of the handle that waits for one (DESIGN.md, "LSNs": passes
// coalesced in a process). A call that needs a pass (a write that
// committed, wanting its record's LSN; a reader that met a version not
// yet numbered) registers, then waits for its turn to run one or to be
// served by another's. The call whose turn it is runs a pass for every
// call registered when it starts: each registered after its own commit,
// so the pass, which starts after, numbers its record, or finds it
// numbered by an earlier pass of any process. Those it served return at
// once, with their LSNs, without a transaction of their own: with 16
// writers, one pass (one round trip, one flush) serves most of those that
// committed while the previous one ran, where each ran its own before,
// each holding the sequencer's lock for its round trips in turn.
//
// Between processes, the sequencer's advisory lock (sequence.go) still
// orders the passes; within one, the turn does, before any connection is
// taken. A call waiting for its turn holds no row's lock and no
// connection of a transaction that could hold one (the rule of
// sequence.go), so the wait forms no cycle with a pass.
//
// A pass that fails serves no one: its runner returns the error, and each
// call it would have served stays registered and runs a pass itself when
// its turn comes (with its own context). A call whose context ends while
// it waits leaves, and changes nothing for the others.

// passer is a handle's coalescer of passes. The zero passer is not
// usable: newPasser makes one.
type passer struct {
	turn chan struct{} // holds a token while a call runs a pass: capacity 1
	mu   sync.Mutex
	wait map[*passWait]struct{} // the calls registered and not yet served
	runs atomic.Int64           // the passes that committed: for tests

	// Set by a test: hold is called as a pass starts, before it reads
	// which calls wait; registered once a call has registered.
	hold, registered atomic.Pointer[func()]
}

// passWait is a call waiting for a pass: seq is the record whose LSN it
// wants (0 for none); done is closed when a pass served it, with lsn (0
// for seq 0) or err set before.
type passWait struct {
	seq  int64
	done chan struct{}
	lsn  int64
	err  error
}

func newPasser() *passer {
	return &passer{turn: make(chan struct{}, 1), wait: make(map[*passWait]struct{})}
}

// sequence returns the LSN of the record of seq mine (0 for none: the
// call only needs a pass that starts after it), once a pass of this
// handle that started after the call has committed: its own, or one that
// served it. It costs at most one pass (sequence.go: one round trip and a
// flush, holding the sequencer's lock) and the wait for the pass in
// progress, if any; nothing when another's pass serves it.
//
// Errors: ctx's, when it ends while the call waits for its turn; those of
// its own pass, which it runs when none served it: errLSNGone for a record
// mine whose LSN is gone, ctx's, the server's.
func (e *Engine) sequence(ctx context.Context, mine int64) (int64, error) {
	p := e.passes
	w := &passWait{seq: mine, done: make(chan struct{})}
	p.mu.Lock()
	p.wait[w] = struct{}{}
	p.mu.Unlock()
	if f := p.registered.Load(); f != nil {
		(*f)()
	}
	defer func() {
		p.mu.Lock()
		delete(p.wait, w)
		p.mu.Unlock()
	}()
	select {
	case <-w.done:
		return w.lsn, w.err
	case <-ctx.Done():
		select {
		case <-w.done: // served as ctx ended: select chose at random
			return w.lsn, w.err
		default:
		}
		return 0, engine.ContextError(ctx, "sequencing")
	case p.turn <- struct{}{}:
	}
	defer func() { <-p.turn }()
	select {
	case <-w.done: // served by the pass that held the turn before
		return w.lsn, w.err
	default:
	}
	err := e.retry(ctx, func() error { return e.pass(ctx) }) // a lost connection: again (failure.go)
	if err != nil {
		return 0, err
	}
	<-w.done // the pass served every call registered when it started
	return w.lsn, w.err
}

// waiting returns the calls registered now.
func (p *passer) waiting() []*passWait {
	p.mu.Lock()
	defer p.mu.Unlock()
	ws := make([]*passWait, 0, len(p.wait))
	for w := range p.wait {
		ws = append(ws, w)
	}
	return ws
}

// errLSNGone is what a call is served when the pass found no LSN for its
// record: it registered after its commit, so the pass's snapshot holds the
// record, and a record the pass did not number was numbered by another
// pass before; its LSN is gone only when that record is gone from the
// feed (the feed off, or retention) and the document's row holds another
// version since. The write committed; only its etag is not known.
var errLSNGone = errors.New("its LSN is gone: another pass numbered its record, which is gone from the feed (off, or trimmed), and the document changed since")

// serve gives each call of ws still registered its LSN, from lsns, the
// LSNs of the records of seqs (0 for a record that has none), and
// unregisters and wakes it.
func (e *Engine) serve(ws []*passWait, seqs, lsns []int64) {
	got := make(map[int64]int64, len(seqs))
	for i, s := range seqs {
		if i < len(lsns) {
			got[s] = lsns[i]
		}
	}
	p := e.passes
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range ws {
		if _, ok := p.wait[w]; !ok {
			continue // served by an earlier pass, or gone
		}
		delete(p.wait, w)
		if w.seq != 0 {
			if w.lsn = got[w.seq]; w.lsn == 0 {
				w.err = errLSNGone
			}
		}
		close(w.done)
	}
}
