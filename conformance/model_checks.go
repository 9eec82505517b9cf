package conformance

// The model's checks of what the library returns: an error's class, a
// returned document against the model's, and the invariants checked after
// every step.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ttldb/ttldb"
)

// checkErr compares an error with the class the model predicts; msg, when
// not empty, is a value the error text must name.
func (h *modelHarness) checkErr(op string, err error, want, msg string) error {
	got, e := errClass(err)
	if e != nil {
		return fmt.Errorf("%s: %v", op, e)
	}
	if h.m.closed && inputClasses[want] {
		want, msg = classClosed, ""
	}
	if got == want {
		if err != nil && got == want && msg != "" && !strings.Contains(err.Error(), msg) {
			return fmt.Errorf("%s: error %q does not name %q", op, err, msg)
		}
		return nil
	}
	return fmt.Errorf("%s: library says %s (%v), model says %s", op, orOK(got), err, orOK(want))
}

func orOK(class string) string {
	if class == okClass {
		return "success"
	}
	return class
}

// checkDoc compares a Document with the model's document at k.
func (h *modelHarness) checkDoc(op string, got ttldb.Document, k mKey, want *mDoc) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: document %v: %s\n  got  %.300s", op, k, fmt.Sprintf(format, args...), got.JSON())
	}
	if got.ID() != k.id {
		return fail("ID() %q, want %q", got.ID(), k.id)
	}
	if got.String() != got.JSON() || string(got.AppendJSON([]byte("x"))) != "x"+got.JSON() || got.Timestamp().Unix() != got.TS() {
		return fail("String, AppendJSON or Timestamp disagree with JSON and TS")
	}
	v, ok := got.PartitionKey().Value()
	wv, wok := pkValue(k.pk)
	if ok != wok || v != wv {
		return fail("PartitionKey() %v, want %s", got.PartitionKey(), pkName(k.pk))
	}
	if got.TS() != want.ts {
		return fail("_ts %d, want %d", got.TS(), want.ts)
	}
	n, ok := got.TTL()
	if wok := want.ttl.kind == ttlNever || want.ttl.kind == ttlSeconds; ok != wok || (ok && int64(n) != want.ttl.n) {
		return fail("TTL() %d %v, want %q", n, ok, want.ttl.lit)
	}
	if want.etag != "" && got.ETag() != want.etag {
		return fail("_etag %q, want %q (the etag of the last write)", got.ETag(), want.etag)
	}
	// The members as written, ttl exactly as written (R2), then _ts and
	// _etag last. (Parsing is slow: skip it for the JSON already compared.)
	if got.JSON() != want.checked {
		ms, err := jsonMembers(got.JSON())
		if err != nil {
			return fail("%v", err)
		}
		wantMs := append(slices.Clone(want.members),
			mMember{"_ts", strconv.FormatInt(want.ts, 10)}, mMember{"_etag", strconv.Quote(got.ETag())})
		if !slices.Equal(ms, wantMs) {
			return fail("members %v, want %v", ms, wantMs)
		}
		if want.etag != "" {
			want.checked = got.JSON()
		}
	}
	if _, live := h.m.docs[k]; !live || h.m.docs[k].etag != want.etag {
		// A version an open listing read: it may have expired since, under
		// a setting since changed, and then keeps the instant it expired at
		// (R7), which only a live document's expiry below predicts.
		return nil
	}
	at, ok := h.c.ExpiresAt(got) // R3 under the current DefaultTTL
	t, wok := effectiveTTL(h.m.def, want.ttl)
	if ok != wok || (ok && at.Unix() != want.ts+t) {
		return fail("ExpiresAt %v %v, want expires=%v at %d", at.Unix(), ok, wok, want.ts+t)
	}
	return nil
}

// jsonMembers splits a JSON object into its members, values compacted.
func jsonMembers(s string) ([]mMember, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	var ms []mMember
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return nil, err
		}
		ms = append(ms, mMember{t.(string), b.String()})
	}
	return ms, nil
}

// written records the etag of a successful write: new for the key (R10),
// and what later reads must return.
func (h *modelHarness) written(op string, k mKey, got ttldb.Document) error {
	e := got.ETag()
	if e == "" || slices.Contains(h.etags[k], e) {
		return fmt.Errorf("%s: document %v: etag %q is empty or was used before by the key (R10: _etag changes on every write)", op, k, e)
	}
	h.etags[k] = append(h.etags[k], e)
	h.m.docs[k].etag = e
	if err := h.feedWritten(op, k, got); err != nil {
		return err
	}
	if len(h.kept) < 6 || h.r.IntN(4) == 0 {
		if len(h.kept) == 6 {
			h.kept = h.kept[1:]
		}
		h.kept = append(h.kept, keptDoc{got, got.JSON()})
	}
	return h.checkDoc(op, got, k, h.m.docs[k])
}

// checkInvariants runs after every step: the count, the statistics, the
// whole listing, the settings, and the Documents returned earlier.
func (h *modelHarness) checkInvariants() error {
	for _, k := range h.kept {
		if k.d.JSON() != k.json {
			return fmt.Errorf("a Document returned earlier changed from %s to %s", k.json, k.d.JSON())
		}
	}
	if n, on := h.c.DefaultTTL().Seconds(); on != h.m.def.on || (on && n != h.m.def.n) {
		return fmt.Errorf("DefaultTTL() %v, model %v", h.c.DefaultTTL(), h.m.def)
	}
	if b, err := json.Marshal(h.c.DefaultTTL()); err != nil || string(b) != strings.Replace(h.m.def.String(), "off", "null", 1) {
		return fmt.Errorf("DefaultTTL() as JSON: %s, %v; model %v", b, err, h.m.def)
	}
	if mode := h.c.IndexingMode(); (mode == ttldb.IndexingNone) != h.m.noIndex {
		return fmt.Errorf("IndexingMode() %v, model none=%v", mode, h.m.noIndex)
	}
	if err := h.checkFeed(); err != nil { // R11
		return err
	}
	if h.m.closed {
		_, err := h.c.Count(bg, ttldb.Query{})
		_, err2 := h.c.Stats(bg)
		if !errors.Is(err, ttldb.ErrClosed) || !errors.Is(err2, ttldb.ErrClosed) {
			return fmt.Errorf("after Close: Count %v, Stats %v, want ErrClosed", err, err2)
		}
		return nil
	}
	live := len(h.m.docs)
	n, err := h.c.Count(bg, ttldb.Query{})
	if err != nil || n != live {
		return fmt.Errorf("Count(Query{}) = %d, %v; model has %d live documents (R4)", n, err, live)
	}
	st, err := h.c.Stats(bg)
	if err != nil || st.Live != live {
		return fmt.Errorf("Stats() = %+v, %v; model has %d live documents", st, err, live)
	}
	if !h.background && (st.Expired != len(h.m.unswept) || st.Swept != uint64(h.m.swept)) {
		return fmt.Errorf("Stats() = %+v; model: %d expired awaiting deletion, %d swept", st, len(h.m.unswept), h.m.swept)
	}
	if got := h.c.Indexes(); !slices.Equal(got, h.m.indexes) { // R13, in the order they were made
		return fmt.Errorf("Indexes() = %q, model has %q", got, h.m.indexes)
	}
	if h.byKey {
		for _, k := range h.m.list(nil, nil, nil) {
			got, err := h.c.Get(bg, h.pkGo(k.pk), k.id)
			if err != nil {
				return fmt.Errorf("Get(%v) of a live document: %v", k, err)
			}
			if err := h.checkDoc("Get", got, k, h.m.docs[k]); err != nil {
				return err
			}
		}
		return nil
	}
	_, err = h.iterate("All(Query{})", modelQuery{}, h.m.list(nil, nil, nil), -1)
	return err
}
