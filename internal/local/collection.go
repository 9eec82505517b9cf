package local

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ttldb/ttldb/engine"
)

// collection is the in-process engine: a collection's documents in memory,
// and with a directory on disk too (R12). The API reaches it only through
// [engine.Engine], which [Engine], the same struct, implements
// (engine.go, batch.go, engine_snapshot.go and the exported methods of the
// other files); its own methods are its machinery.
type collection struct {
	// What a point read loads. It takes no lock, so these sit on cache
	// lines of their own, apart from what writes and the sweeper change all
	// the time (the lock, the counters, the feed's state): were they to
	// share a line, each read after another core's write would wait for
	// that line to move, and a sweep deleting a million documents would slow
	// every read beside it. Set when the collection is made, or rarely
	// changed (Close, a batch, a DefaultTTL change, the clock's second).
	name     string // the identity: on a directory, as stored there
	path     string
	parse    func(path string) (Parser, error)
	parser   Parser // the documents' parser, for the partition-key path
	tokenID  uint64
	clock    func() time.Time
	batch    int
	readOnly bool // opened read-only (readonly.go): every write is refused
	etagBase uint64
	stop     chan struct{}
	last     atomic.Int64 // the latest "now", Unix seconds: never goes backward
	closed   atomic.Bool  // set under mu; read without it where a stale read is harmless
	// batching is odd while a batch applies its changes; Get reads again
	// when it moved.
	batching atomic.Uint64
	rules    atomic.Pointer[expiryRules] // exp's rules, for point reads, which take no lock
	_        cacheLinePad

	handoff   handoff // foreground calls waiting for mu go before the sweeper's next batch
	mu        sync.RWMutex
	mode      engine.Indexing
	prim      primary
	sec       secondaries   // the secondary indexes (R13)
	exp       expiryIndex   // and the DefaultTTL it owns
	seq       uint64        // the last LSN given out (R11); a document's etag is etagBase + its LSN
	gaps      []lsnGap      // the LSNs its restores skipped (restore.go)
	feed      feed          // the change feed (R11)
	ver       versions      // the older documents open snapshots may read
	swept     atomic.Uint64 // written under mu, read anywhere
	expired   atomic.Uint64 // the documents a call found expired and hid (R4), for Metrics
	behind    every         // the last warning that the sweeper is behind (logs.go)
	quotaWarn every         // the last warning that the quota is reached (logs.go)
	lastSweep time.Duration
	sweeping  chan struct{} // holds a token while a sweep runs: one at a time (R5)
	wakeAt    int64         // the instant the sweeper sleeps until; a write due earlier wakes it
	inBatch   bool          // a batch is applying its changes: the writes leave the sweeper's help to its end
	quota     quota         // the memory quota (R17, quota.go)

	wake      chan struct{} // nil with ManualSweep
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error

	logger *slog.Logger // Config.Logger: nil logs nothing (logs.go)
	dir    string       // Config.Dir, for the logs

	// Durability (R12); j is nil for a collection in memory.
	j            *journal
	recovery     engine.Recovery
	failure      atomic.Pointer[error] // why the journal failed, which closed the collection
	slack        int64                 // the files' growth before compaction
	compacting   chan struct{}         // holds a token while a compaction runs
	walking      chan struct{}         // holds a token while a compaction or a backup walks the key map (walk.go)
	compactCheck chan struct{}         // asks the compactor to look
	bg           sync.WaitGroup        // the journal's goroutine and the compactor
	building     sync.WaitGroup        // a build of the key order (needOrder)
}

// publish makes the expiry index's rules those point reads decide by. Call
// it with mu held, whenever they change.
func (c *collection) publish() {
	r := c.exp.rules()
	c.rules.Store(&r)
}
