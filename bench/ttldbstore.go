package bench

import (
	"context"
	"errors"
	"time"

	"github.com/ttldb/ttldb"
)

// bg is the context of the store's calls: the harness has none to give (the
// peers take none), and the in-process engine needs none (R16).
var bg = context.Background()

// ttldb's adapter, the store measured; the peers' are in stores.go.

// ttldbStore is a collection partitioned by /id: the key is the document's
// id and its partition key, as Cosmos DB advises for key-value use, so a
// point read needs nothing but the key.
type ttldbStore struct {
	c *ttldb.Collection
}

func newTTLDB(cfg Config) Store { return newTTLDBWith(cfg, ttldb.FeedOptions{}) }

// newTTLDBFeedOff is newTTLDB with the change feed off.
func newTTLDBFeedOff(cfg Config) Store { return newTTLDBWith(cfg, ttldb.FeedOptions{Off: true}) }

// newTTLDBListed is newTTLDB with its key order built: a List as it opens.
func newTTLDBListed(cfg Config) Store {
	s := newTTLDB(cfg).(*ttldbStore)
	if _, err := s.c.List(bg, ttldb.Query{Limit: 1}); err != nil {
		panic(err)
	}
	return s
}

// newTTLDBWith is the collection of newTTLDB with the change feed set by
// feed (the zero value: on, its default retention).
func newTTLDBWith(cfg Config, feed ttldb.FeedOptions) Store {
	// DefaultTTL -1: TTL on, each document expires after its own ttl, like
	// a per-item TTL in the peers.
	o := &ttldb.Options{DefaultTTL: ttldb.TTLNoDefault(), Feed: feed}
	if cfg.Mode == Manual {
		o.ManualSweep = true
		o.Now = cfg.Clock.Now
	}
	c, err := ttldb.NewCollection("bench", "/id", o)
	if err != nil {
		panic(err)
	}
	return &ttldbStore{c: c}
}

func (s *ttldbStore) Set(_ string, doc []byte, _ time.Duration) {
	if _, err := s.c.UpsertJSON(bg, doc); err != nil {
		panic(err)
	}
}

func (s *ttldbStore) Get(key string) (string, bool) {
	d, err := s.c.Get(bg, ttldb.StringKey(key), key)
	if err != nil {
		if errors.Is(err, ttldb.ErrNotFound) {
			return "", false
		}
		panic(err)
	}
	return d.Body(), true
}

func (s *ttldbStore) Resident() int {
	st, err := s.c.Stats(bg)
	if err != nil {
		panic(err)
	}
	return st.Live + st.Expired
}

func (s *ttldbStore) RemoveExpired() int {
	n, err := s.c.Sweep(bg)
	if err != nil {
		panic(err)
	}
	return n
}

func (s *ttldbStore) ExpiresAt(key string) (time.Time, bool) {
	d, err := s.c.Get(bg, ttldb.StringKey(key), key)
	if err != nil {
		return time.Time{}, false
	}
	return s.c.ExpiresAt(d)
}

func (s *ttldbStore) Close() { _ = s.c.Close() }
