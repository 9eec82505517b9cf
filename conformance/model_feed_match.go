package conformance

// The model's change feed (R11), as each step reads it: every change read
// matched with the model's history, and the feed read on until it has
// caught up.

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ttldb/ttldb"
)

// feedRand makes the harness's own draws (pkGo, otherPK) those of the feed
// until the function it returns is called, so that reading the feed leaves
// the sequence of operations as it is.
func (h *modelHarness) feedRand() func() {
	r := h.r
	h.r = h.feed.r
	return func() { h.r = r }
}

// feedWritten records the LSN and the JSON a successful write returned,
// which the feed must show. With ManualSweep the model knows the LSN.
func (h *modelHarness) feedWritten(op string, k mKey, got ttldb.Document) error {
	d := h.m.docs[k]
	d.json, d.lsn = got.JSON(), got.LSN()
	if !h.background && got.LSN() != h.m.hist.lsn {
		return fmt.Errorf("%s: document %v: LSN() %d, model says %d (R11: every change takes the next LSN, from 1)", op, k, got.LSN(), h.m.hist.lsn)
	}
	return nil
}

// keyOfChange returns the model's key of a change's document.
func (h *modelHarness) keyOfChange(ch ttldb.Change) (mKey, error) {
	v, ok := ch.PartitionKey.Value()
	if h.idPath {
		if s, isString := v.(string); !ok || !isString || s != ch.ID {
			return mKey{}, fmt.Errorf("change LSN %d: partition key %v, id %q: the path is /id", ch.LSN, ch.PartitionKey, ch.ID)
		}
		return idKey(ch.ID), nil
	}
	for _, p := range h.parts {
		if w, wok := pkValue(p.pk); ok == wok && v == w {
			return mKey{p.pk, ch.ID}, nil
		}
	}
	return mKey{}, fmt.Errorf("change LSN %d: partition key %v, which the sequence never writes", ch.LSN, ch.PartitionKey)
}

// describeChange is a change for messages.
func describeChange(ch ttldb.Change) string {
	s := fmt.Sprintf("%v %v/%q LSN %d _ts %d", ch.Op, ch.PartitionKey, ch.ID, ch.LSN, ch.TS)
	if ch.TimeToLiveExpired {
		s += " timeToLiveExpired"
	}
	return s
}

// checkChange compares a change of the feed with the model's; op names
// the read, for messages.
func (h *modelHarness) checkChange(op func() string, got ttldb.Change, want mChange) error {
	k, err := h.keyOfChange(got)
	if err != nil {
		return fmt.Errorf("%s: %v", op(), err)
	}
	if got.Op != want.op || got.LSN != want.lsn || got.TS != want.ts || k != want.key || got.TimeToLiveExpired != want.expired {
		return fmt.Errorf("%s: %s, model says %v", op(), describeChange(got), want)
	}
	d := got.Document
	h.feed.buf = d.AppendJSON(h.feed.buf[:0])
	if want.ver == nil {
		if d.LSN() != 0 || len(h.feed.buf) != 0 {
			return fmt.Errorf("%s: %s carries the document %s (R11: a delete carries the id and the partition key)", op(), describeChange(got), d.JSON())
		}
		return nil
	}
	// The etag is the LSN's (Document.LSN): equal JSON, equal _etag.
	if d.LSN() != want.lsn || string(h.feed.buf) != want.ver.json {
		return fmt.Errorf("%s: %s: document LSN() %d %s, model says LSN %d %s (R11: the document as written)", op(), describeChange(got), d.LSN(), d.JSON(), want.lsn, want.ver.json)
	}
	return nil
}

// expiries takes the model's next events up to the next one that is not an
// expiry.
func (f *feedState) expiries(ev []mEvent) {
	for ; f.cur < len(ev) && ev[f.cur].kind == evExpire; f.cur++ {
		f.pending[ev[f.cur].key] = ev[f.cur].ts
	}
}

// upToChange takes the model's next events up to the next change (the
// background sweeper's order): expiries, and the sweeps, whose documents
// must be deleted before the next change.
func (f *feedState) upToChange(ev []mEvent) {
	for ; f.cur < len(ev) && ev[f.cur].kind != evChange; f.cur++ {
		e := ev[f.cur]
		if e.kind == evExpire {
			f.pending[e.key] = e.ts
			continue
		}
		for _, k := range e.keys {
			if _, ok := f.pending[k]; ok {
				f.owed[k] = true
			}
		}
	}
}

// describeEvent is the model's event at i, for messages.
func (h *modelHarness) describeEvent(i int) string {
	ev := h.m.hist.events
	if i >= len(ev) {
		return "nothing more"
	}
	switch e := ev[i]; e.kind {
	case evChange:
		return fmt.Sprintf("%v %v _ts %d", e.op, e.key, e.ts)
	case evSweep:
		return fmt.Sprintf("the sweeper's deletes of %v at _ts %d", e.keys, e.ts)
	default:
		return fmt.Sprintf("the expiry of %v", e.key)
	}
}

// resolve matches ch, the change that follows the last one matched in the
// all-versions feed, with the model's history, and appends it to res.
func (h *modelHarness) resolve(op func() string, ch ttldb.Change) error {
	f := &h.feed
	ev := h.m.hist.events
	lsn := uint64(len(f.res)) + 1
	if ch.LSN != lsn {
		return fmt.Errorf("%s: %s follows LSN %d (R11: every change takes the next LSN)", op(), describeChange(ch), lsn-1)
	}
	if len(f.res) > 0 && ch.TS < f.res[len(f.res)-1].ts {
		return fmt.Errorf("%s: %s, after a change at _ts %d (R4: now never goes backward)", op(), describeChange(ch), f.res[len(f.res)-1].ts)
	}
	k, err := h.keyOfChange(ch)
	if err != nil {
		return fmt.Errorf("%s: %v", op(), err)
	}
	want := mChange{op: ttldb.OpDelete, lsn: lsn, key: k, expired: true}
	switch {
	case ch.Op == ttldb.OpDelete && ch.TimeToLiveExpired && !h.background:
		if len(f.owed) == 0 {
			f.expiries(ev)
			if f.cur == len(ev) || ev[f.cur].kind != evSweep {
				return fmt.Errorf("%s: %s where the model has %s (R11, R5: with ManualSweep only Sweep, and a write over an expired document, delete one)", op(), describeChange(ch), h.describeEvent(f.cur))
			}
			for _, k := range ev[f.cur].keys {
				f.owed[k] = true
			}
			f.owedTS = ev[f.cur].ts
			f.cur++
		}
		if !f.owed[k] {
			return fmt.Errorf("%s: %s, while the model's sweep at _ts %d has yet to delete %v", op(), describeChange(ch), f.owedTS, slices.SortedFunc(maps.Keys(f.owed), cmpKey))
		}
		delete(f.owed, k)
		delete(f.pending, k)
		want.ts = f.owedTS
	case ch.Op == ttldb.OpDelete && ch.TimeToLiveExpired: // the background sweeper's, or a write's
		f.upToChange(ev)
		at, ok := f.pending[k]
		if !ok {
			return fmt.Errorf("%s: %s: the model has not seen %v expire since it was last written or deleted (R4, R5)", op(), describeChange(ch), k)
		}
		if ch.TS < at || ch.TS > h.m.now {
			return fmt.Errorf("%s: %s: the model saw it expire at %d, and now is %d", op(), describeChange(ch), at, h.m.now)
		}
		delete(f.owed, k)
		delete(f.pending, k)
		want.ts = ch.TS
	default:
		if h.background {
			f.upToChange(ev)
		} else {
			f.expiries(ev)
		}
		if len(f.owed) > 0 {
			return fmt.Errorf("%s: %s, but first the sweeper must delete %v (R5: Sweep deletes every expired document; R11: a write over an expired document deletes it first)",
				op(), describeChange(ch), slices.SortedFunc(maps.Keys(f.owed), cmpKey))
		}
		if f.cur == len(ev) || ev[f.cur].kind != evChange {
			return fmt.Errorf("%s: %s where the model has %s", op(), describeChange(ch), h.describeEvent(f.cur))
		}
		e := ev[f.cur]
		want = mChange{op: e.op, lsn: lsn, ts: e.ts, key: e.key, ver: e.ver}
		if e.ver != nil && e.ver.lsn != lsn {
			return fmt.Errorf("%s: %s: its write returned the document of LSN %d", op(), describeChange(ch), e.ver.lsn)
		}
		f.cur++
	}
	if err := h.checkChange(op, ch, want); err != nil {
		return err
	}
	f.res = append(f.res, want)
	return nil
}

// caughtUp checks, once the all-versions feed has been read to its end,
// that it has shown every change of the model's history.
func (h *modelHarness) caughtUp(op func() string) error {
	f := &h.feed
	ev := h.m.hist.events
	if h.background {
		f.upToChange(ev)
	} else {
		f.expiries(ev)
	}
	if len(f.owed) > 0 {
		return fmt.Errorf("%s: the feed ends at LSN %d, but the sweeper must have deleted %v (R5, R11)", op(), len(f.res), slices.SortedFunc(maps.Keys(f.owed), cmpKey))
	}
	if f.cur < len(ev) {
		return fmt.Errorf("%s: the feed ends at LSN %d, but the model has %s next (R11: every change appears)", op(), len(f.res), h.describeEvent(f.cur))
	}
	if !h.background && uint64(len(f.res)) != h.m.hist.lsn {
		return fmt.Errorf("%s: the feed ends at LSN %d, the model's last LSN is %d", op(), len(f.res), h.m.hist.lsn)
	}
	return nil
}

// checkPage checks what every page of the feed must be: at most Limit
// changes (an effective limit of lim), a continuation, and More only with
// a full page. ReadFeed visits up to 4 Limit + 1024 records or documents;
// a sequence writes far fewer, so only Limit ends a page early.
func checkPage(op func() string, got ttldb.FeedPage, lim int) error {
	switch {
	case len(got.Changes) > lim:
		return fmt.Errorf("%s: %d changes, Limit %d", op(), len(got.Changes), lim)
	case got.Continuation == "":
		return fmt.Errorf("%s: no continuation (R11: a page always says where to resume)", op())
	case got.More && len(got.Changes) < lim:
		return fmt.Errorf("%s: %d changes of Limit %d, and More, in a collection smaller than a read's budget", op(), len(got.Changes), lim)
	}
	return nil
}

func effLimit(l int) int {
	if l == 0 {
		return ttldb.DefaultFeedLimit
	}
	return l
}

// catchUp reads the all-versions feed of all partitions on from where the
// last read ended to its end, and matches each change with the model's
// history.
func (h *modelHarness) catchUp() error {
	f := &h.feed
	q := ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Continuation: f.tail.tok}
	for page := 0; ; page++ {
		q.Limit = f.limit(true)
		from := f.tail.after
		op := func() string { return fmt.Sprintf("ReadFeed(all versions, after LSN %d, Limit %d)", from, q.Limit) }
		got, err := h.c.ReadFeed(bg, q)
		if err != nil {
			return fmt.Errorf("%s: %v", op(), err)
		}
		if err := checkPage(op, got, effLimit(q.Limit)); err != nil {
			return err
		}
		for _, ch := range got.Changes {
			if err := h.resolve(op, ch); err != nil {
				return err
			}
		}
		if n := len(got.Changes); n > 0 {
			f.tail.after = got.Changes[n-1].LSN
		}
		f.tail.tok, f.tail.from, f.tail.page = got.Continuation, fromText("a step's read of all versions").String, page
		if f.r.IntN(3) == 0 {
			f.keep(f.tail)
		}
		if !got.More {
			return h.caughtUp(op)
		}
		if page > 10_000 {
			return fmt.Errorf("%s: More, after %d pages", op(), page)
		}
		q.Continuation = got.Continuation
	}
}
