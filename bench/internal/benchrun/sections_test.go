package benchrun

import "testing"

// The sections other commands write into BENCHMARKS.md (pgreport's) survive
// report's rewrite of the file, and a command's new run replaces its own.
func TestSections(t *testing.T) {
	doc := "# t\n\n## Medians\n\nx\n\n## Context\n\ny\n"
	a1 := Section("pg fsync=on", "## PostgreSQL\n\none")
	got := PutSection(doc, "pg fsync=on", a1)
	want := "# t\n\n## Medians\n\nx\n\n" + a1 + "\n## Context\n\ny\n"
	if got != want {
		t.Fatalf("PutSection inserted:\n%s\nwant:\n%s", got, want)
	}
	a2 := Section("pg fsync=on", "## PostgreSQL\n\ntwo")
	b := Section("pg fsync=off", "## PostgreSQL, fsync off\n\nthree")
	got = PutSection(PutSection(got, "pg fsync=on", a2), "pg fsync=off", b)
	want = "# t\n\n## Medians\n\nx\n\n" + a2 + "\n" + b + "\n## Context\n\ny\n"
	if got != want {
		t.Fatalf("PutSection replaced:\n%s\nwant:\n%s", got, want)
	}
	// report writes the file anew: the sections come back, in their order.
	if kept := KeepSections(got, doc); kept != got {
		t.Fatalf("KeepSections:\n%s\nwant:\n%s", kept, got)
	}
	if kept := KeepSections("no sections", doc); kept != doc {
		t.Fatalf("KeepSections without sections changed the file:\n%s", kept)
	}
	if got := PutSection("# t\n", "k", b); got != "# t\n\n"+b {
		t.Fatalf("PutSection without the anchor:\n%q", got)
	}
}

// RemoveSection takes a section out with its blank line, and leaves a file
// without it as it is.
func TestRemoveSection(t *testing.T) {
	a := Section("a", "## A\n\none")
	doc := "# t\n\n" + a + "\n## Context\n"
	if got := RemoveSection(doc, "a"); got != "# t\n\n## Context\n" {
		t.Fatalf("RemoveSection:\n%q", got)
	}
	if got := RemoveSection(doc, "b"); got != doc {
		t.Fatalf("RemoveSection of a missing section changed the file:\n%q", got)
	}
}

// WithoutSections leaves what report wrote: every section goes, whole.
func TestWithoutSections(t *testing.T) {
	doc := "# t\n\n" + Section("a", "one") + "\nmid\n" + Section("b", "two") + "\n## Context\n"
	if got := WithoutSections(doc); got != "# t\n\n\nmid\n\n## Context\n" {
		t.Fatalf("WithoutSections:\n%q", got)
	}
}
