package conformance

// Secondary indexes (R13) in the model: CreateIndex and DropIndex
// predicted, and the indexes a sequence's collection starts with.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ---------------------------------------------------------------------------
// Indexes.

// modelIndexPaths are index paths besides the documents': missing members,
// escapes, nested and system ones; modelBadIndexPaths are not JSON
// Pointers of member names.
var (
	modelIndexPaths = []string{"/nope", "/a~1b", "/m~0n", "/sub/x", "/sub/ttl", "/t/pk", "/t/x", "/_ts",
		"/_etag", "/id", "/pk", "/v", "/v/0", "/n", "/arr", "/sub"}
	modelBadIndexPaths = []string{"", "v", "/", "/v/", "//v", "/v~2", "/v~", "sub/x", "/~", "v/"}
)

// badIndexPath says whether ptr is no JSON Pointer of member names: those
// start with '/', escape '~' as ~0 and '/' as ~1, and are not empty (the
// library refuses the pointer of the member named "", as it does //).
func badIndexPath(ptr string) bool {
	return !strings.HasPrefix(ptr, "/") || slices.ContainsFunc(strings.Split(ptr[1:], "/"), func(seg string) bool {
		return seg == "" || strings.Contains(ptrEscapes.Replace(seg), "~")
	})
}

// indexPath draws an index path: an existing index's (n < exists of 20),
// one of the documents' members, of modelIndexPaths, or a bad one.
func (h *modelHarness) indexPath(exists int) (string, bool) {
	r := h.r
	ptr := pick(r, modelIndexPaths)
	switch n := r.IntN(20); {
	case n < 2:
		ptr = pick(r, modelBadIndexPaths)
	case n < 2+exists && len(h.m.indexes) > 0:
		ptr = pick(r, h.m.indexes)
	case n < 16:
		_, docs := h.liveJV(nil)
		for _, p := range docPaths(docs) {
			if s, ok := pointer(p); ok && r.IntN(4) == 0 {
				ptr = s
			}
		}
	}
	return ptr, badIndexPath(ptr)
}

// indexOp predicts CreateIndex (create) or DropIndex of ptr, and applies it
// to the model: bad when ptr is no JSON Pointer of member names, canceled
// when CreateIndex's context has ended.
func (m *model) indexOp(create bool, ptr string, bad, canceled bool) string {
	has := slices.Contains(m.indexes, ptr)
	switch {
	case canceled:
		return classCanceled // R16: a call whose context is done does nothing, whatever else is wrong
	case m.closed:
		return classClosed // whatever the path, as every call after Close
	case bad:
		return classInvalidOpt
	case create && (m.noIndex || has):
		return classInvalidOpt // R8: mode none keeps no index; one index on a path
	case !create && !has:
		return classNotFound
	case create:
		m.indexes = append(m.indexes, ptr)
	default:
		m.indexes = slices.DeleteFunc(m.indexes, func(p string) bool { return p == ptr })
	}
	return okClass
}

// genIndexOp creates an index, sometimes on a path that has one or with a
// context that has ended, or drops one, mostly one that exists. Indexes()
// is checked after every step (checkInvariants).
func (h *modelHarness) genIndexOp(create bool) modelStep {
	ptr, bad := h.indexPath(map[bool]int{true: 4, false: 13}[create])
	canceled := create && h.r.IntN(12) == 0
	desc := fmt.Sprintf("DropIndex(%q)", ptr)
	if create {
		desc = fmt.Sprintf("CreateIndex(%q) canceled=%v", ptr, canceled)
	}
	return modelStep{desc, func() (string, error) {
		var err error
		if create {
			ctx, cancel := context.WithCancel(context.Background())
			if canceled {
				cancel()
			}
			err = h.c.CreateIndex(ctx, ptr)
			cancel()
		} else {
			err = h.c.DropIndex(bg, ptr)
		}
		op, want := strings.Fields(desc)[0], h.m.indexOp(create, ptr, bad, canceled)
		switch {
		case want == classCanceled && !errors.Is(err, context.Canceled):
			return "", fmt.Errorf("%s: %v, want context.Canceled", op, err)
		case want == classCanceled:
			return want, nil
		}
		return orOK(want), h.checkErr(op, err, want, "")
	}}
}

// drawIndexes draws the Options.Indexes of a collection being opened.
func (h *modelHarness) drawIndexes() []string {
	var out []string
	for range h.r.IntN(3) {
		if p := pick(h.r, modelIndexPaths); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
