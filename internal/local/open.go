package local

import (
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"time"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
)

// Config is what [Open] makes a collection of. The API validated every
// field (R1, R8, R10, R15): Open trusts them. The zero value of a field is
// its default where one is said.
type Config struct {
	// Name and Path are the collection's name and partition-key path.
	// With AsStored and Dir, either may be empty: the directory's.
	Name, Path string
	// Documents returns the parser of the documents of a collection
	// partitioned by path, as the API parses a write; Open uses it to read
	// the documents its files hold, and refuses a stored path it rejects.
	// It is required.
	Documents func(path string) (Parser, error)
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// SweepBatch is the most documents a sweep deletes under one hold of
	// the lock (R5); 0 is DefaultSweepBatch.
	SweepBatch int
	// ManualSweep starts no background sweeper: the caller calls Sweep.
	ManualSweep bool
	// DefaultTTL, Indexing and Indexes are the settings (R1, R8, R13).
	DefaultTTL engine.DefaultTTL
	Indexing   engine.Indexing
	Indexes    []string
	// Feed turns the change feed on, with the Retention Keep (R11, R15).
	Feed bool
	Keep Retention

	// Dir is the directory of a durable collection (R12); "" keeps the
	// collection in memory, and the fields below do not apply.
	Dir string
	// Sync is when writes reach stable storage.
	Sync Sync
	// AsStored opens an existing directory with the settings it holds,
	// refusing settings that differ (ttldb.Open); without it, a reopen
	// changes the stored settings to these, recording each change in the
	// Recovery, unless KeepSettings.
	AsStored, KeepSettings bool
	// FS is the filesystem, for tests; nil is the operating system's.
	FS vfs.FS
	// CompactAt is the growth of the files past which a compaction
	// starts; 0 is 16 MiB.
	CompactAt int64
	// ReadOnly opens Dir read-only (readonly.go): its collection as of the
	// open, with its stored settings (DefaultTTL, Indexing and Indexes are
	// not applied), no sweeper, every write refused, nothing written, no
	// lock taken.
	ReadOnly bool
	// Logger is where the collection logs (logs.go); nil logs nothing.
	Logger *slog.Logger
	// Quota bounds the collection's memory (R17); the zero Quota is none.
	Quota Quota
}

// Parser reads a document's body, compact JSON, as the API reads a write:
// it returns the document's key, body and ttl, and the layout of its key,
// in buf and keyBuf when they have room.
type Parser func(buf, keyBuf, body []byte) (Parsed, error)

// Parsed is what a [Parser] read of a document.
type Parsed struct {
	Key, Body []byte
	At        engine.Layout
	TTL       int32
}

// DefaultSweepBatch is Config.SweepBatch when it is 0: ttldb's
// DefaultSweepBatch.
const DefaultSweepBatch = 256

// Sync says when a durable collection's writes reach stable storage, in
// the numbering of ttldb.Sync.
type Sync uint8

// The sync policies.
const (
	SyncEverySecond Sync = iota
	SyncAlways
	SyncNever
)

// Retention bounds the all-versions feed's records (R15): zero fields are
// no bound. Age is in seconds.
type Retention struct{ Records, Bytes, Age int64 }

// Open makes the collection cfg describes, in memory, or from and on the
// directory cfg.Dir (R12), and starts its background goroutines, which
// Close stops. A directory's stored name and path must be cfg's (where
// cfg gives them); a reopen without AsStored then changes its settings to
// cfg's, and declares cfg.Indexes it lacks.
//
// Errors: those of the directory ([engine.ErrLocked], [engine.ErrCorrupt]
// as a [*engine.CorruptError], [engine.ErrInvalidOption] for a directory
// that cannot be used) and of the settings' change.
//
// An open logs at Info what it found (logs.go).
func Open(cfg Config) (*Engine, error) {
	start := time.Now()
	x, err := open(cfg)
	if err == nil {
		(*collection)(x).logOpen(&cfg, time.Since(start))
	}
	return x, err
}

// open is Open, but for the log of the open.
func open(cfg Config) (*Engine, error) {
	if cfg.Documents == nil {
		return nil, errorf(engine.ErrInvalidOption, "local.Open of collection %q without Config.Documents, the parser of its documents", cfg.Name)
	}
	if cfg.ReadOnly && cfg.Dir != "" {
		return openReadOnly(cfg)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SweepBatch <= 0 {
		cfg.SweepBatch = DefaultSweepBatch
	}
	c := &collection{
		name:     cfg.Name,
		path:     cfg.Path,
		parse:    cfg.Documents,
		tokenID:  rand.Uint64(),
		clock:    cfg.Now,
		batch:    cfg.SweepBatch,
		mode:     cfg.Indexing,
		exp:      newExpiryIndex(cfg.DefaultTTL),
		etagBase: rand.Uint64(),
		wakeAt:   math.MinInt64,
		stop:     make(chan struct{}),
		logger:   cfg.Logger,
		dir:      cfg.Dir,
		sweeping: make(chan struct{}, 1),
		walking:  make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	c.handoff.init()
	c.feed.init(cfg.Feed, cfg.Keep)
	c.prim.init()
	c.useQuota(cfg.Quota)
	c.publish()
	c.last.Store(-maxClock) // a clock before 1970 is no less valid
	x := (*Engine)(c)
	if c.path != "" {
		if err := c.usePath(c.path); err != nil {
			close(c.done)
			x.Close()
			return nil, err
		}
	}
	if cfg.Dir != "" {
		if err := c.startDurable(&cfg); err != nil {
			return nil, err
		}
	}
	if err := c.applySettings(&cfg); err != nil {
		close(c.done) // no sweeper has started: Close waits for none
		x.Close()
		return nil, err
	}
	if cfg.ManualSweep {
		close(c.done)
	} else {
		c.wake = make(chan struct{}, 1)
		go c.run()
	}
	if err := c.declareIndexes(cfg.Indexes); err != nil {
		x.Close()
		return nil, err
	}
	return x, nil
}

// usePath makes path the collection's partition-key path, whose parser
// reads its documents.
func (c *collection) usePath(path string) error {
	p, err := c.parse(path)
	if err != nil {
		return err
	}
	c.path, c.parser = path, p
	return nil
}

// applySettings gives a reopened collection the DefaultTTL and indexing
// mode of cfg, through the engine's setters, in the order R8 allows, and
// records each change in its Recovery; not with AsStored, which keeps
// them. Call it before the sweeper starts, so that it deletes by the
// settings asked for.
func (c *collection) applySettings(cfg *Config) error {
	if cfg.Dir == "" || cfg.KeepSettings || cfg.AsStored {
		return nil
	}
	x := (*Engine)(c)
	def, mode := c.exp.def, c.mode
	setDef := func() error {
		if cfg.DefaultTTL == def {
			return nil
		}
		if err := x.SetDefaultTTL(context.Background(), cfg.DefaultTTL); err != nil {
			return err
		}
		c.changed("DefaultTTL", def.String(), cfg.DefaultTTL.String())
		return nil
	}
	setMode := func() error {
		if cfg.Indexing == mode {
			return nil
		}
		if err := x.SetIndexing(context.Background(), cfg.Indexing); err != nil {
			return err
		}
		c.changed("Indexing", mode.String(), cfg.Indexing.String())
		return nil
	}
	first, then := setMode, setDef // consistent first, which TTL needs
	if cfg.Indexing == engine.None {
		first, then = setDef, setMode // TTL off first, which none needs
	}
	if err := first(); err != nil {
		return err
	}
	return then()
}

// Recovery implements [engine.Recoverer]: what opening the collection's
// directory found.
func (x *Engine) Recovery() engine.Recovery { return x.recovery }
