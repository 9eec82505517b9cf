package conformance

// The model's listing steps: List, a listing resumed from a continuation
// token, All, listings left open across other steps, and Count.

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"

	"github.com/ttldb/ttldb"
)

// modelQuery is a Query, with the model's view of it.
type modelQuery struct {
	q      ttldb.Query
	part   *mPK
	filter int
	class  string // the error the query's input must get, for List and All
	desc   string
}

// genQuery draws a Query: a partition or none (sometimes an unused or a bad
// one), a filter, a limit (sometimes negative).
func (h *modelHarness) genQuery() modelQuery {
	r := h.r
	var mq modelQuery
	var pdesc string
	switch n := r.IntN(20); {
	case n < 9:
		pdesc = "all"
	case n < 17:
		p := pick(r, h.parts).pk
		if live := h.m.list(nil, nil, nil); h.idPath && len(live) > 0 && r.IntN(2) == 0 {
			p = pick(r, live).pk // an id in use
		}
		pk := h.pkGo(p)
		mq.q.Partition, mq.part, pdesc = &pk, &p, fmt.Sprintf("%.40s", pkName(p))
	case n < 19:
		p := pick(r, []mPK{{kind: mkString, str: "zz"}, {kind: mkNumber, num: 99}, pick(r, modelPartitions).pk})
		if h.idPath && r.IntN(2) == 0 { // a partition key that is near an id but none
			p = h.otherPK(pick(r, h.ids).id)
		}
		pk := h.pkGo(p)
		mq.q.Partition, mq.part, pdesc = &pk, &p, fmt.Sprintf("%.40s (maybe unused)", pkName(p))
	default:
		pk := pick(r, modelBadPKs)
		mq.q.Partition, mq.class, pdesc = &pk, classInvalidPK, fmt.Sprintf("%.20v (bad)", pk)
	}
	mq.filter = r.IntN(len(modelFilters))
	if r.IntN(2) == 0 {
		mq.filter = 0
	}
	if f := modelFilters[mq.filter].lib; f != nil {
		mq.q.Filter = f(h.c)
	}
	switch n := r.IntN(20); {
	case n < 9:
	case n < 19:
		mq.q.Limit = 1 + r.IntN(4)
	default:
		if mq.class == okClass {
			mq.q.Limit, mq.class = -1, classInvalidOpt
		}
	}
	mq.desc = fmt.Sprintf("partition=%s filter=%s limit=%d", pdesc, modelFilters[mq.filter].name, mq.q.Limit)
	return mq
}

// listPages follows a listing to its end, page by page, starting from
// mq.q.Continuation, and compares each page with want.
func (h *modelHarness) listPages(op string, mq modelQuery, want []mKey) (string, error) {
	q := mq.q
	for page := 0; ; page++ {
		got, err := h.c.List(bg, q)
		if e := h.checkErr(op, err, mq.class, ""); e != nil || err != nil {
			return orOK(mq.class), e
		}
		n := len(want)
		if q.Limit > 0 {
			n = min(n, q.Limit)
		}
		if err := h.checkDocs(fmt.Sprintf("%s page %d", op, page), got.Documents, want[:n]); err != nil {
			return "", err
		}
		want = want[n:]
		if (got.Continuation != "") != (len(want) > 0) {
			return "", fmt.Errorf("%s page %d: continuation %q, but %d documents remain", op, page, got.Continuation, len(want))
		}
		if got.Continuation == "" {
			return fmt.Sprintf("ok %d pages", page+1), nil
		}
		if h.r.IntN(3) == 0 && len(h.tokens) < 8 {
			h.tokens = append(h.tokens, modelToken{got.Continuation, h.keyOf(got.Documents[n-1]), mq.part, mq.filter, q.Limit})
		}
		q.Continuation = got.Continuation
	}
}

func (h *modelHarness) keyOf(d ttldb.Document) mKey {
	if h.idPath { // checkDocs has compared its partition key with the id
		return idKey(d.ID())
	}
	v, ok := d.PartitionKey().Value()
	for _, p := range h.parts {
		if w, wok := pkValue(p.pk); ok == wok && v == w {
			return mKey{p.pk, d.ID()}
		}
	}
	panic("document in an unknown partition")
}

// checkDocs compares a listing with the model's keys, in order.
func (h *modelHarness) checkDocs(op string, got []ttldb.Document, want []mKey) error {
	if len(got) != len(want) {
		ids := make([]string, len(got))
		for i, d := range got {
			ids[i] = d.PartitionKey().String() + "/" + strconv.Quote(d.ID())
		}
		return fmt.Errorf("%s: %d documents %v, model has %d %v", op, len(got), ids, len(want), want)
	}
	for i, d := range got {
		if err := h.checkDoc(fmt.Sprintf("%s #%d", op, i), d, want[i], h.m.docs[want[i]]); err != nil {
			return err
		}
	}
	return nil
}

func (h *modelHarness) genList() modelStep {
	mq := h.genQuery()
	return modelStep{"List " + mq.desc, func() (string, error) {
		var want []mKey
		if !h.m.closed {
			want = h.m.list(mq.part, modelFilters[mq.filter].model, nil)
		} else if mq.class == okClass {
			mq.class = classClosed
		}
		return h.listPages("List", mq, want)
	}}
}

// genResume resumes a listing with a token kept from an earlier step, with
// its own query or another partition, or with a damaged or made-up token.
func (h *modelHarness) genResume() modelStep {
	if len(h.tokens) == 0 {
		return h.genList()
	}
	i := h.r.IntN(len(h.tokens))
	t := h.tokens[i]
	h.tokens = slices.Delete(h.tokens, i, i+1)
	mq := modelQuery{part: t.part, filter: t.filter}
	mq.q.Limit = t.limit
	if f := modelFilters[t.filter].lib; f != nil {
		mq.q.Filter = f(h.c)
	}
	mq.q.Continuation = t.tok
	how := "same query"
	switch h.r.IntN(6) {
	case 0: // a query of a partition: the token must be one issued for it
		p := pick(h.r, h.parts).pk
		pk := h.pkGo(p)
		mq.q.Partition, mq.part, how = &pk, &p, "partition "+pkName(p)
		if t.part == nil || h.pkGo(*t.part) != pk {
			mq.class = classInvalidToken
		}
	case 1: // a query of all partitions: likewise
		mq.q.Partition, mq.part, how = nil, nil, "all partitions"
		if t.part != nil {
			mq.class = classInvalidToken
		}
	case 2:
		first := "A"
		if t.tok[0] == 'A' {
			first = "B"
		}
		mq.q.Continuation, mq.class, how = first+t.tok[1:], classInvalidToken, "damaged token"
	case 3:
		mq.q.Continuation, mq.class, how = pick(h.r, []string{"x", "AAAAAAAA", "not a token!"}), classInvalidToken, "made-up token"
	}
	if mq.part != nil {
		pk := h.pkGo(*mq.part)
		mq.q.Partition = &pk
	}
	useAll := h.r.IntN(3) == 0
	desc := fmt.Sprintf("Resume after %v (%s) filter=%s limit=%d all=%v", t.last, how, modelFilters[t.filter].name, t.limit, useAll)
	return modelStep{desc, func() (string, error) {
		var want []mKey
		if h.m.closed {
			if mq.class == okClass {
				mq.class = classClosed
			}
		} else if mq.class == okClass {
			want = h.m.list(mq.part, modelFilters[mq.filter].model, &t.last)
		}
		if useAll {
			if mq.q.Limit > 0 && len(want) > mq.q.Limit {
				want = want[:mq.q.Limit]
			}
			return h.iterate("Resume All", mq, want, -1)
		}
		return h.listPages("Resume List", mq, want)
	}}
}

// iterate runs All(mq.q), stopping after stop documents when stop >= 0,
// and compares what it yields with want.
func (h *modelHarness) iterate(op string, mq modelQuery, want []mKey, stop int) (string, error) {
	var docs []ttldb.Document
	var errs []error
	for d, err := range h.c.All(bg, mq.q) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if stop >= 0 && len(docs) == stop {
			break
		}
		docs = append(docs, d)
	}
	if mq.class != okClass {
		if len(errs) != 1 || len(docs) != 0 {
			return "", fmt.Errorf("%s: yielded %d documents and errors %v, want one error %s", op, len(docs), errs, mq.class)
		}
		return mq.class, h.checkErr(op, errs[0], mq.class, "")
	}
	if len(errs) > 0 {
		return "", h.checkErr(op, errs[0], okClass, "")
	}
	if stop >= 0 && len(want) > stop {
		want = want[:stop]
	}
	return fmt.Sprintf("ok %d documents", len(docs)), h.checkDocs(op, docs, want)
}

func (h *modelHarness) genAll() modelStep {
	mq := h.genQuery()
	stop := -1
	if h.r.IntN(5) == 0 {
		stop = h.r.IntN(3)
	}
	return modelStep{fmt.Sprintf("All %s stop=%d", mq.desc, stop), func() (string, error) {
		var want []mKey
		if h.m.closed {
			if mq.class == okClass {
				mq.class = classClosed
			}
		} else {
			want = h.m.list(mq.part, modelFilters[mq.filter].model, nil)
			if mq.q.Limit > 0 && len(want) > mq.q.Limit {
				want = want[:mq.q.Limit]
			}
		}
		return h.iterate("All", mq, want, stop)
	}}
}

// genOpenListing starts an All iteration, takes its first document, and
// keeps it open for genFinishListing. Its filter, if any, reads only the
// document: one that calls the collection would see the collection of the
// later step.
func (h *modelHarness) genOpenListing() modelStep {
	if len(h.open) >= 3 {
		return h.genFinishListing()
	}
	mq := h.genQuery()
	if modelFilters[mq.filter].name == "Get inside" {
		mq.filter, mq.q.Filter = 0, nil
	}
	return modelStep{"OpenListing " + mq.desc, func() (string, error) {
		if h.m.closed && mq.class == okClass {
			mq.class = classClosed
		}
		if mq.class != okClass {
			return h.iterate("OpenListing", mq, nil, -1) // refused at once: nothing to keep open
		}
		want := h.m.list(mq.part, modelFilters[mq.filter].model, nil)
		if mq.q.Limit > 0 && len(want) > mq.q.Limit {
			want = want[:mq.q.Limit]
		}
		ol := &openListing{desc: mq.desc, want: want, docs: make(map[mKey]*mDoc, len(want))}
		for _, k := range want {
			d := *h.m.docs[k] // a copy: the model's document may change later
			ol.docs[k] = &d
		}
		ol.next, ol.stop = iter.Pull2(h.c.All(bg, mq.q))
		d, err, ok := ol.next() // the snapshot is taken now
		switch {
		case len(want) == 0:
			ol.stop()
			if ok {
				return "", fmt.Errorf("OpenListing: yielded %v, %v; the model has no document", d.JSON(), err)
			}
			return "ok 0 documents", nil
		case !ok || err != nil:
			ol.stop()
			return "", fmt.Errorf("OpenListing: first document: ok=%v err=%v; the model has %v", ok, err, want[0])
		}
		if err := h.checkDoc("OpenListing #0", d, want[0], ol.docs[want[0]]); err != nil {
			ol.stop()
			return "", err
		}
		ol.want = want[1:]
		h.open = append(h.open, ol)
		return fmt.Sprintf("ok, open with %d to come", len(ol.want)), nil
	}}
}

// genFinishListing finishes a listing genOpenListing opened some steps
// before, and checks that it yields what the model had then.
func (h *modelHarness) genFinishListing() modelStep {
	if len(h.open) == 0 {
		return h.genOpenListing()
	}
	i := h.r.IntN(len(h.open))
	ol := h.open[i]
	h.open = slices.Delete(h.open, i, i+1)
	return modelStep{"FinishListing " + ol.desc, func() (string, error) {
		defer ol.stop()
		if h.m.closed && len(ol.want) > 0 { // closed since it started: the rest is one ErrClosed
			_, err, ok := ol.next()
			if !ok || !errors.Is(err, ttldb.ErrClosed) {
				return "", fmt.Errorf("FinishListing after Close: ok=%v err=%v, want ErrClosed", ok, err)
			}
			if d, err, ok := ol.next(); ok {
				return "", fmt.Errorf("FinishListing after Close: then %v, %v; want the end", d.JSON(), err)
			}
			return classClosed, nil
		}
		for j, k := range ol.want {
			d, err, ok := ol.next()
			if !ok || err != nil {
				return "", fmt.Errorf("FinishListing #%d: ok=%v err=%v; the model had %v when it started", j+1, ok, err, k)
			}
			if err := h.checkDoc(fmt.Sprintf("FinishListing #%d", j+1), d, k, ol.docs[k]); err != nil {
				return "", err
			}
		}
		if d, err, ok := ol.next(); ok {
			return "", fmt.Errorf("FinishListing: then %v, %v; the model had no more when it started", d.JSON(), err)
		}
		return fmt.Sprintf("ok %d more documents, as when it started", len(ol.want)), nil
	}}
}

func (h *modelHarness) genCount() modelStep {
	mq := h.genQuery()
	if mq.class == classInvalidOpt {
		mq.class = okClass // Count ignores Limit and Continuation
	}
	if h.r.IntN(5) == 0 {
		mq.q.Continuation = "ignored"
	}
	return modelStep{fmt.Sprintf("Count %s continuation=%q", mq.desc, mq.q.Continuation), func() (string, error) {
		n, err := h.c.Count(bg, mq.q)
		want := mq.class
		if want == okClass && h.m.closed {
			want = classClosed
		}
		if e := h.checkErr("Count", err, want, ""); e != nil || err != nil {
			return orOK(want), e
		}
		if w := len(h.m.list(mq.part, modelFilters[mq.filter].model, nil)); n != w {
			return "", fmt.Errorf("Count: %d, model counts %d (R4: expired documents are never counted)", n, w)
		}
		return fmt.Sprintf("ok %d", n), nil
	}}
}
