package conformance

// The model's steps: the table of operations, and the steps that write,
// read, delete and touch one document, reopen or compact the collection.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// The steps.

// modelStep is one operation: what it does, and a run that performs it on
// the library and the model and returns a short result or the first
// disagreement.
type modelStep struct {
	desc string
	run  func() (string, error)
}

// modelOps is the table of operation generators and their weights.
var modelOps = []struct {
	name   string
	weight int
	gen    func(h *modelHarness) modelStep
}{
	{"Create", 12, func(h *modelHarness) modelStep { return h.genWrite("Create") }},
	{"Replace", 7, func(h *modelHarness) modelStep { return h.genWrite("Replace") }},
	{"Upsert", 7, func(h *modelHarness) modelStep { return h.genWrite("Upsert") }},
	{"Delete", 5, func(h *modelHarness) modelStep { return h.genKeyOp("Delete") }},
	{"Touch", 5, func(h *modelHarness) modelStep { return h.genKeyOp("Touch") }},
	{"Get", 8, func(h *modelHarness) modelStep { return h.genKeyOp("Get") }},
	{"List", 4, (*modelHarness).genList},
	{"Resume", 2, (*modelHarness).genResume},
	{"All", 3, (*modelHarness).genAll},
	{"OpenListing", 2, (*modelHarness).genOpenListing},
	{"FinishListing", 2, (*modelHarness).genFinishListing},
	{"Count", 3, (*modelHarness).genCount},
	{"SetDefaultTTL", 5, (*modelHarness).genSetDefault},
	{"SetIndexingMode", 2, (*modelHarness).genSetIndexing},
	{"Clock", 14, (*modelHarness).genClock},
	{"Sweep", 3, (*modelHarness).genSweep},
	{"Reopen", 2, (*modelHarness).genReopen},
	{"Compact", 1, (*modelHarness).genCompact},
	{"Patch", 8, (*modelHarness).genPatch},        // R14 (model_patch.go)
	{"ExecuteBatch", 5, (*modelHarness).genBatch}, // R14 (model_patch.go)
	{"Query", 4, (*modelHarness).genSQL},          // R13 (model_query.go)
	{"CreateIndex", 2, func(h *modelHarness) modelStep { return h.genIndexOp(true) }},
	{"DropIndex", 1, func(h *modelHarness) modelStep { return h.genIndexOp(false) }},
}

// genReopen closes a durable collection and opens its directory again.
// The options are the collection wanted (R12): half the time they ask for
// the settings it has, and the open changes nothing (Recovery.Changed is
// empty); otherwise for another DefaultTTL or indexing mode, which the open
// applies as SetDefaultTTL and SetIndexingMode would right after it (R7's
// cut-offs at the open's instant; R8's order), listing each change in
// Recovery.Changed. The collection has everything else it had, its indexes
// included, and adds those of Options.Indexes it has not (R13). Only its
// count of swept documents starts again. A collection in memory reads a
// document instead.
func (h *modelHarness) genReopen() modelStep {
	if !h.durable || len(h.open) > 0 || h.m.closed {
		return h.genKeyOp("Get")
	}
	md, none := h.m.def, h.m.noIndex
	if h.r.IntN(2) == 0 { // another DefaultTTL
		switch n := h.r.IntN(4); {
		case n == 0:
			md = mDefault{}
		case n == 1:
			md = mDefault{true, -1}
		default:
			md = mDefault{true, 1 + h.r.Int64N(100)}
		}
	}
	if h.r.IntN(4) == 0 && (none || len(h.m.indexes) == 0) { // another mode: none keeps no index, which the open would refuse
		none = !none
	}
	if md.on && none { // R8, which NewCollection checks of the options first
		md = mDefault{}
	}
	return modelStep{fmt.Sprintf("Reopen DefaultTTL=%v none=%v", md, none), func() (string, error) {
		if err := h.c.Close(); err != nil {
			return "", fmt.Errorf("Close: %v", err)
		}
		o := h.opts
		o.DefaultTTL, o.Indexing = ttldb.TTLOff(), ttldb.IndexingConsistent
		if md.on {
			o.DefaultTTL = ttldb.TTLSeconds(md.n)
		}
		if none {
			o.Indexing = ttldb.IndexingNone
		}
		// Under indexing mode none the options declare no index: the open
		// would be refused (R8).
		o.Indexes = nil
		if !none {
			o.Indexes = h.drawIndexes()
		}
		c, err := h.eng.Reopen(h.t, h.c, &o)
		if err != nil {
			return "", fmt.Errorf("reopen: %v", err)
		}
		h.c = c
		h.m.swept = 0
		// The changes the open made, in its order (R8): mode consistent
		// before TTL on, TTL off before mode none.
		var want []string
		oldDef, oldMode := h.m.def, modeOf(h.m.noIndex)
		setDef := func() {
			if md != oldDef {
				h.m.setDefault(md, true)
				want = append(want, fmt.Sprintf("DefaultTTL: %v → %v", ttlOf(oldDef), o.DefaultTTL))
			}
		}
		setMode := func() {
			if o.Indexing != oldMode {
				h.m.setIndexing(o.Indexing)
				want = append(want, fmt.Sprintf("Indexing: %v → %v", oldMode, o.Indexing))
			}
		}
		if none {
			setDef()
			setMode()
		} else {
			setMode()
			setDef()
		}
		before := slices.Clone(h.m.indexes)
		for _, p := range o.Indexes {
			if !slices.Contains(h.m.indexes, p) {
				h.m.indexes = append(h.m.indexes, p)
			}
		}
		if len(h.m.indexes) > len(before) {
			want = append(want, fmt.Sprintf("Indexes: %v → %v", before, h.m.indexes))
		}
		rec := c.Recovery()
		var got []string
		for _, ch := range rec.Changed {
			got = append(got, ch.String())
		}
		// An engine that recovers from no files of its own (a server's)
		// reports no Recovery: a reopen of a directory always names the
		// snapshot it loaded.
		recovers := rec.Snapshot != ""
		if recovers && !slices.Equal(got, want) {
			return "", fmt.Errorf("reopen: Recovery.Changed %q, want %q", got, want)
		}
		// (The background sweeper may delete what expired while closed as
		// soon as the collection opens, after the last change recovered.)
		if lsn := c.LastLSN(); recovers && (rec.Truncated != "" || lsn < rec.LastLSN || lsn > rec.LastLSN && !h.background) {
			return "", fmt.Errorf("reopen after Close: Recovery %+v, LastLSN %d", rec, c.LastLSN())
		}
		if err := h.reopened(recovers); err != nil {
			return "", err
		}
		return fmt.Sprintf("ok, %d changes replayed, Options.Indexes %q, changed %q", rec.Changes, o.Indexes, got), nil
	}}
}

// ttlOf is the library's value of the model's DefaultTTL.
func ttlOf(d mDefault) ttldb.DefaultTTL {
	if !d.on {
		return ttldb.TTLOff()
	}
	return ttldb.TTLSeconds(d.n)
}

// modeOf is the indexing mode the model's noIndex stands for.
func modeOf(none bool) ttldb.IndexingMode {
	if none {
		return ttldb.IndexingNone
	}
	return ttldb.IndexingConsistent
}

// genCompact compacts a durable collection (R12): nothing it holds changes,
// and the next Reopen reads the snapshot it wrote, its all-versions feed
// starting after the snapshot (reopened). A collection in memory reads a
// document instead.
func (h *modelHarness) genCompact() modelStep {
	if !h.durable || h.m.closed {
		return h.genKeyOp("Get")
	}
	return modelStep{"Compact", func() (string, error) {
		lo := h.c.LastLSN()
		if err := h.c.Compact(context.Background()); err != nil {
			return "", fmt.Errorf("Compact: %v", err)
		}
		h.feed.compacted(lo, h.c.LastLSN())
		return "ok", nil
	}}
}

func (h *modelHarness) genWrite(op string) modelStep {
	k := h.pickKey()
	in := h.genDoc(k, h.r.IntN(7) > 0)
	var opts []ttldb.WriteOption
	var cond *string
	var condDesc string
	if op != "Create" {
		opts, cond, condDesc = h.genIfMatch(k)
	}
	return modelStep{op + " " + in.text + condDesc, func() (string, error) {
		var got ttldb.Document
		var err error
		switch op {
		case "Create":
			got, err = h.c.Create(bg, in.payload)
		case "Replace":
			got, err = h.c.Replace(bg, in.payload, opts...)
		case "Upsert":
			got, err = h.c.Upsert(bg, in.payload, opts...)
		}
		want := in.class
		if want == okClass {
			want = h.m.write(op, k, *in.doc, cond)
		}
		msg := in.msg
		if want == classNotFound || want == classConflict || want == classPrecondition {
			msg = strconv.Quote(k.id)
		}
		if e := h.checkErr(op, err, want, msg); e != nil || err != nil {
			return orOK(want), e
		}
		return fmt.Sprintf("ok _ts=%d", got.TS()), h.written(op, k, got)
	}}
}

// nameKey draws how a step names the key k: mostly as it is; 1 in 16 with
// a bad id, 1 in 16 with a bad partition key (R10); with partitions and a
// path other than /id, 1 in 16 in a partition maybe never written; with
// the path /id, n < otherBelow of 16 with a partition key that is not the
// id, which no document has. It returns the key named, as the model sees
// it, and as the library is given it, with the error class expected.
func (h *modelHarness) nameKey(k mKey, partitions bool, otherBelow int) (mKey, ttldb.PartitionKey, string, string) {
	pk, id, class := h.pkGo(k.pk), k.id, okClass
	switch n := h.r.IntN(16); {
	case n == 0:
		id, class = pick(h.r, modelBadIDs), classInvalidID
		if h.idPath && utf8.ValidString(id) && h.r.IntN(2) == 0 {
			pk = ttldb.StringKey(id) // a good partition key, but a bad id (R10)
		}
	case n == 1:
		pk, class = pick(h.r, modelBadPKs), classInvalidPK
	case n == 2 && partitions && !h.idPath: // maybe a partition the sequence never writes
		k.pk = pick(h.r, modelPartitions).pk
		pk = h.pkGo(k.pk)
	case n < otherBelow && h.idPath: // a partition key that is not the id: no document has this key
		k.pk = h.otherPK(k.id)
		pk = h.pkGo(k.pk)
	}
	return k, pk, id, class
}

// genKeyOp is Get, Delete or Touch of a key, sometimes a bad one.
func (h *modelHarness) genKeyOp(op string) modelStep {
	drawn := h.pickKey() // with the path /id, its etags go with the lookups by another partition key
	k, pk, id, class := h.nameKey(drawn, true, 6)
	var opts []ttldb.WriteOption
	var cond *string
	var condDesc string
	if op != "Get" && h.idPath {
		opts, cond, condDesc = h.genIfMatch(drawn)
	} else if op != "Get" {
		opts, cond, condDesc = h.genIfMatch(k)
	}
	desc := fmt.Sprintf("%s(%.40v, %.40q)%s", op, pk, id, condDesc)
	return modelStep{desc, func() (string, error) {
		var got ttldb.Document
		var err error
		switch op {
		case "Get":
			got, err = h.c.Get(bg, pk, id)
		case "Delete":
			err = h.c.Delete(bg, pk, id, opts...)
		case "Touch":
			got, err = h.c.Touch(bg, pk, id, opts...)
		}
		want := class
		if want == okClass {
			switch op {
			case "Get":
				_, want = h.m.lookup(k, nil)
			case "Delete":
				want = h.m.remove(k, cond)
			case "Touch":
				want = h.m.touch(k, cond)
			}
		}
		msg := ""
		if want == classNotFound || want == classPrecondition {
			msg = strconv.Quote(id)
		}
		if e := h.checkErr(op, err, want, msg); e != nil || err != nil {
			return orOK(want), e
		}
		switch op {
		case "Get":
			return fmt.Sprintf("ok _ts=%d", got.TS()), h.checkDoc(op, got, k, h.m.docs[k])
		case "Touch":
			return fmt.Sprintf("ok _ts=%d", got.TS()), h.written(op, k, got)
		}
		return "ok", nil
	}}
}
