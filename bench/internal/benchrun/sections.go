package benchrun

import "strings"

// Sections of BENCHMARKS.md that another command than report writes
// (pgreport's PostgreSQL figures): each between the lines
//
//	<!-- section KEY -->
//	...
//	<!-- /section KEY -->
//
// so that the command replaces its own section when it runs again, and
// report, which writes the rest of the file anew, keeps them.

// SectionAnchor is the heading before which a new section goes, and where
// report puts back the sections it keeps.
const SectionAnchor = "## Context"

func sectionBegin(key string) string { return "<!-- section " + key + " -->\n" }
func sectionEnd(key string) string   { return "<!-- /section " + key + " -->\n" }

// Section returns text marked as the section key, to give to PutSection.
func Section(key, text string) string {
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return sectionBegin(key) + text + sectionEnd(key)
}

// PutSection returns doc with block (made by Section(key, ...)) in place of
// its section key, or, when doc has none, inserted before the line
// SectionAnchor, or else appended, a blank line before it.
func PutSection(doc, key, block string) string {
	if i := strings.Index(doc, sectionBegin(key)); i >= 0 {
		if j := strings.Index(doc[i:], sectionEnd(key)); j >= 0 {
			return doc[:i] + block + doc[i+j+len(sectionEnd(key)):]
		}
	}
	if i := strings.Index(doc, "\n"+SectionAnchor+"\n"); i >= 0 {
		return doc[:i+1] + block + "\n" + doc[i+1:]
	}
	if doc != "" && !strings.HasSuffix(doc, "\n\n") {
		doc = strings.TrimRight(doc, "\n") + "\n\n"
	}
	return doc + block
}

// KeepSections returns doc with the sections of old put in it (PutSection),
// in their order in old: report's new file with the sections of the file
// it replaces.
func KeepSections(old, doc string) string {
	for rest := old; ; {
		i, j, key, ok := nextSection(rest)
		if !ok {
			return doc
		}
		doc = PutSection(doc, key, rest[i:j])
		rest = rest[j:]
	}
}

// nextSection finds the first whole section of doc: it begins at i, ends
// before j (its end line included), and is named key; ok is false when
// doc has none.
func nextSection(doc string) (i, j int, key string, ok bool) {
	const begin, end = "<!-- section ", " -->\n"
	i = strings.Index(doc, begin)
	if i < 0 {
		return 0, 0, "", false
	}
	k := strings.Index(doc[i:], end)
	if k < 0 {
		return 0, 0, "", false
	}
	key = doc[i+len(begin) : i+k]
	stop := sectionEnd(key)
	n := strings.Index(doc[i:], stop)
	if n < 0 {
		return 0, 0, "", false
	}
	return i, i + n + len(stop), key, true
}

// RemoveSection returns doc without its section key (the section's lines
// and the blank line after them), or doc itself when it has none.
func RemoveSection(doc, key string) string {
	i := strings.Index(doc, sectionBegin(key))
	if i < 0 {
		return doc
	}
	j := strings.Index(doc[i:], sectionEnd(key))
	if j < 0 {
		return doc
	}
	rest := doc[i+j+len(sectionEnd(key)):]
	if strings.HasPrefix(rest, "\n") && (i == 0 || strings.HasSuffix(doc[:i], "\n\n")) {
		rest = rest[1:]
	}
	return doc[:i] + rest
}

// WithoutSections returns doc without any of its sections, whole: what
// report itself wrote.
func WithoutSections(doc string) string {
	for {
		i, j, _, ok := nextSection(doc)
		if !ok {
			return doc
		}
		doc = doc[:i] + doc[j:]
	}
}
