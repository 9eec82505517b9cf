package query

import "testing"

// TestIsPointer: the planner's check of a path against an index's, made
// without an allocation, agrees with Pointer on paths of every shape and
// on pointers near them (R13: an index serves the path it is on, and no
// other).
func TestIsPointer(t *testing.T) { // R13
	paths := []Path{nil, {{Name: "a"}}, {{Name: "a"}, {Name: "b"}}, {{Name: "ab"}}, {{Name: ""}}, {{Name: "a/b"}}, {{Name: "a~b"}},
		{{Name: "~"}, {Name: "/"}}, {{Name: "a"}, {IsIndex: true}}, {{IsIndex: true, Index: 1}}, {{Name: "é"}}}
	ptrs := []string{"", "/", "/a", "/a/b", "/ab", "/a~1b", "/a~0b", "/a/b/", "a", "//", "/~0/~1", "/a~", "/a~2b", "/a/0", "/é", "/a~1", "/a~0"}
	for _, p := range paths {
		want, ok := p.Pointer()
		for _, ptr := range append(ptrs, want) {
			if got := p.IsPointer(ptr); got != (ok && ptr == want) {
				t.Errorf("%v.IsPointer(%q) = %v; Pointer is %q, %v", p, ptr, got, want, ok)
			}
		}
	}
}
