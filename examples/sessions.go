package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ttldb/ttldb"
)

// session is a login session. A nil TTL leaves the ttl out, so the session
// inherits the collection's DefaultTTL; a "remember me" session sets its own.
type session struct {
	ID     string `json:"id"`
	UserID string `json:"userId"`
	TTL    *int   `json:"ttl,omitempty"`
}

// offset formats time since start as "+31m", or "+29d" for whole days.
func offset(d time.Duration) string {
	if d >= day && d%day == 0 {
		return fmt.Sprintf("+%dd", d/day)
	}
	return fmt.Sprintf("+%dm", d/time.Minute)
}

// sessions walks through a session store with sliding expiry: every request
// touches its session, which renews _ts, so an active session lives on while
// an idle one expires 30 minutes after its last request.
func sessions(w io.Writer) (err error) {
	clk := &clock{now: start}
	s := &story{w: w, clock: clk, label: offset}
	c, err := ttldb.NewCollection("sessions", "/userId", &ttldb.Options{
		DefaultTTL:  ttldb.TTLSeconds(int64(30 * time.Minute / time.Second)),
		Now:         clk.Now,
		ManualSweep: true, // Sweep deletes; the background sweeper runs on real time
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.Close(), s.err) }()
	s.say("collection %q, partition key %s, DefaultTTL %s", c.Name(), c.PartitionKeyPath(), describe(int(30*time.Minute/time.Second)))

	etags := make(map[string]string) // the latest etag of each user's session
	for _, x := range []session{
		{ID: "s-alice", UserID: "alice"},
		{ID: "s-bob", UserID: "bob"},
		{ID: "s-carol", UserID: "carol", TTL: seconds(30 * day)}, // "remember me"
	} {
		d, err := c.Create(x)
		if err != nil {
			return err
		}
		etags[x.UserID] = d.ETag()
		how := "logs in"
		if x.TTL != nil {
			how = `logs in with "remember me"`
		}
		s.say("%s %s: session %s (%s)", x.UserID, how, d.ID(), s.life(c, d))
	}

	// request is what the server does on each request of a user: Touch
	// renews the session's _ts and _etag, and so restarts its countdown.
	request := func(user string, at time.Duration) error {
		clk.Advance(at - clk.Elapsed())
		d, err := c.Touch(ttldb.StringKey(user), "s-"+user)
		if err != nil {
			return err
		}
		s.say("%s's request: Touch renews %s, etag changed: %t (%s)", user, d.ID(), d.ETag() != etags[user], s.life(c, d))
		etags[user] = d.ETag()
		return nil
	}
	if err := request("bob", 5*time.Minute); err != nil {
		return err
	}
	for _, at := range []time.Duration{10, 20, 30} {
		if err := request("alice", at*time.Minute); err != nil {
			return err
		}
	}

	clk.Advance(4 * time.Minute) // +34m
	d, err := c.Get(ttldb.StringKey("bob"), "s-bob")
	if err != nil {
		return err
	}
	s.say("bob's session readable (%s)", s.life(c, d))
	clk.Advance(time.Minute) // +35m
	if err := gone(c, "bob", "s-bob"); err != nil {
		return err
	}
	s.say("bob's session not found: idle for 30 minutes since his last request")
	if err := s.stats(c); err != nil {
		return err
	}

	if err := request("alice", 40*time.Minute); err != nil {
		return err
	}
	clk.Advance(5 * time.Minute) // +45m
	_, err = c.Touch(ttldb.StringKey("bob"), "s-bob")
	if !errors.Is(err, ttldb.ErrNotFound) {
		return fmt.Errorf("touch of an expired session: got %v, want ttldb.ErrNotFound", err)
	}
	s.say("bob's request: Touch fails, errors.Is(err, ttldb.ErrNotFound): true, so bob must log in again")

	if err := request("alice", 50*time.Minute); err != nil {
		return err
	}
	stale := etags["alice"] // an old browser tab shows the session as of +50m
	if err := request("alice", 60*time.Minute); err != nil {
		return err
	}
	s.say("alice's session alive 60 minutes after login, twice the DefaultTTL, because she keeps working")

	clk.Advance(time.Minute) // +61m
	err = c.Delete(ttldb.StringKey("alice"), "s-alice", ttldb.IfMatch(stale))
	if !errors.Is(err, ttldb.ErrPreconditionFailed) {
		return fmt.Errorf("delete with a stale etag: got %v, want ttldb.ErrPreconditionFailed", err)
	}
	s.say("alice logs out from an old tab, Delete with IfMatch(etag of +50m): ErrPreconditionFailed, the session changed since")
	if err := c.Delete(ttldb.StringKey("alice"), "s-alice", ttldb.IfMatch(etags["alice"])); err != nil {
		return err
	}
	s.say("alice logs out, Delete with IfMatch(etag of +60m): session deleted")
	if err := s.stats(c); err != nil {
		return err
	}
	n, err := c.Sweep()
	if err != nil {
		return err
	}
	s.say("Sweep deleted %d expired document(s) for good: bob's session", n)

	clk.Advance(29*day - clk.Elapsed()) // +29d
	if d, err = c.Get(ttldb.StringKey("carol"), "s-carol"); err != nil {
		return err
	}
	s.say("carol's remembered session readable: her own ttl overrides the 30 minutes (%s)", s.life(c, d))
	clk.Advance(day) // +30d
	if err := gone(c, "carol", "s-carol"); err != nil {
		return err
	}
	s.say("carol's session not found: 30 days have passed since her login")
	if n, err = c.Sweep(); err != nil {
		return err
	}
	s.say("Sweep deleted %d expired document(s) for good: carol's session", n)
	return s.stats(c)
}
