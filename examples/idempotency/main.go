// Idempotency shows idempotency keys: a client sends a key with each
// request, and a retry of the same request (after a timeout, say) must not
// be processed twice. The handler claims the key with Create, which only one
// request can win; a retry gets ErrConflict and is answered from the stored
// result. Keys expire 24 hours after the last write, after which the key
// can be used again: Create of an expired key succeeds (R4). A simulated
// clock (Options.Now) stands for the 24 hours.
//
//	go run ./examples/idempotency
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync/atomic"
	"time"

	"github.com/ttldb/ttldb"
)

// key is a stored idempotency key and the response to its first request;
// Response is empty while that request is being processed.
type key struct {
	ID       string `json:"id"`
	Response string `json:"response,omitempty"`
}

// server charges payments, once per idempotency key.
type server struct {
	keys    *ttldb.Collection // partitioned by /id: the key is its own partition
	charges atomic.Int64      // payments processed
}

// charge handles a payment request with an idempotency key.
func (s *server) charge(ctx context.Context, idem string, cents int) (string, error) {
	// Claim the key: of two requests with one key, only one Create succeeds.
	claim, err := s.keys.Create(ctx, key{ID: idem})
	if errors.Is(err, ttldb.ErrConflict) {
		return s.replay(ctx, idem, cents)
	}
	if err != nil {
		return "", err
	}
	n := s.charges.Add(1) // the payment itself, done once (had it failed: Delete the key, so that a retry can try again)
	response := fmt.Sprintf("200: charged %d cents, payment #%d", cents, n)
	// Store the response with the key; IfMatch: the claim must still be ours.
	if _, err := s.keys.Replace(ctx, key{ID: idem, Response: response}, ttldb.IfMatch(claim.ETag())); err != nil {
		return "", err
	}
	return response, nil
}

// replay answers a retry with the response to the key's first request.
func (s *server) replay(ctx context.Context, idem string, cents int) (string, error) {
	d, err := s.keys.Get(ctx, ttldb.StringKey(idem), idem)
	if errors.Is(err, ttldb.ErrNotFound) {
		return s.charge(ctx, idem, cents) // the key expired since Create: a new request
	}
	if err != nil {
		return "", err
	}
	var k key
	if err := d.Decode(&k); err != nil {
		return "", err
	}
	if k.Response == "" {
		return "409: the first request is still being processed, retry later", nil
	}
	return k.Response + " (replayed: Create got ErrConflict)", nil
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) (err error) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC) // the simulated clock
	c, err := ttldb.NewCollection("idempotency-keys", "/id", &ttldb.Options{
		DefaultTTL:  ttldb.TTLDuration(24 * time.Hour),
		Now:         func() time.Time { return now },
		ManualSweep: true, // the background sweeper sleeps on real time
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.Close()) }()
	s := &server{keys: c}

	requests := []struct {
		after time.Duration // since the previous request
		key   string
		cents int
		note  string
	}{
		{0, "key-A", 500, "a new key"},
		{time.Minute, "key-A", 500, "the client timed out, and retries"},
		{time.Minute, "key-B", 700, "another payment"},
		{23*time.Hour + 57*time.Minute, "key-A", 500, "a retry 23h59m after the first"},
		{time.Minute, "key-A", 500, "24h later: key-A expired, Create succeeds (R4)"},
	}
	for _, r := range requests {
		now = now.Add(r.after)
		response, err := s.charge(ctx, r.key, r.cents)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s %s (%s): %s\n", now.Format("Jan 2 15:04"), r.key, r.note, response); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(w, "%d requests, %d payments\n", len(requests), s.charges.Load())
	return err
}
