package jsonscan

// fastDepth is the deepest nesting fastDocument scans: one bit per level.
const fastDepth = 64

// The fast path relies on these: a text of at most droppedRun bytes can
// reach neither size limit (see scanner.small), and it scans no deeper than
// MaxDepth, which is no deeper than a dropped member may go.
var (
	_ [MaxSize - droppedRun]struct{}
	_ [MaxDepth - fastDepth]struct{}
	_ [maxDroppedDepth - MaxDepth]struct{}
)

// fastDocument is Document's fast path, for the commonest document:
// valid compact JSON text (no white space between tokens) of at most
// droppedRun bytes (s.small()), nested at most fastDepth levels, with no
// member the library drops (_ts, _etag), no noted member twice and no
// escape in a top-level member's name (which note would need decoded). On
// such a text it does what document does, in one loop that keeps its place
// in registers rather than in s: it notes id, ttl, the partition-key member
// and idLike (note) and leaves s.i at the end, so that the text, flushed,
// is its own compact form. On any other text, valid or not, it returns
// false, and s is spent: the caller scans again with a fresh scanner, which
// alone reports errors. It runs in O(len(s.src)).
func (s *scanner) fastDocument() bool {
	src := s.src
	if !s.small() || len(src) < 2 || src[0] != '{' {
		return false
	}
	var (
		i      int
		depth  int    // the level of the innermost open container: the document's object is level 1, none is 0
		arrays uint64 // bit l-1 is set when the container at level l is an array
		name   []byte // the name of the top-level member being scanned
		valAt  int    // where its value starts
	)
	for {
		// src[i] starts an item of the container at level depth, or, at
		// depth 0, the document's object.
		if depth > 0 && arrays>>(depth-1)&1 == 0 { // a member: its name, then ':'
			if i >= len(src) || src[i] != '"' {
				return false
			}
			j, escaped, fault := stringEnd(src, i+1)
			if fault != strOK || j >= len(src) || src[j] != ':' {
				return false
			}
			if depth == 1 {
				name = src[i+1 : j-1]
				if escaped || string(name) == "_ts" || string(name) == "_etag" {
					return false // a name to decode, or a member to drop
				}
			}
			i = j + 1
		}
		if depth == 1 {
			valAt = i
		}
		if i >= len(src) {
			return false
		}
		switch c := src[i]; {
		case c == '"':
			j, _, fault := stringEnd(src, i+1)
			if fault != strOK {
				return false
			}
			i = j
		case c == '{' || c == '[':
			if depth == fastDepth {
				return false
			}
			if c == '[' {
				arrays |= 1 << depth
			} else {
				arrays &^= 1 << depth
			}
			depth++
			i++
			if i >= len(src) || src[i] != c+2 { // '{'+2 is '}', '['+2 is ']'
				continue // to the container's first item
			}
			i++ // an empty container: a whole item of its parent
			depth--
		case c == '-' || (c >= '0' && c <= '9'):
			j, ok := numberEnd(src, i)
			if !ok {
				return false
			}
			i = j
		case c == 't' && hasWord(src, i, "true"):
			i += len("true")
		case c == 'f' && hasWord(src, i, "false"):
			i += len("false")
		case c == 'n' && hasWord(src, i, "null"):
			i += len("null")
		default:
			return false
		}
		// src[:i] ends with a whole item of the container at level depth:
		// a ',' and the next item follow, or the container's end, which
		// ends an item of its parent.
		for {
			if depth == 0 {
				s.i = i
				return i == len(src)
			}
			if depth == 1 && s.note(name, Span{valAt, i}) != nil {
				return false
			}
			if i >= len(src) {
				return false
			}
			if src[i] == ',' {
				i++
				break
			}
			end := byte('}')
			if arrays>>(depth-1)&1 != 0 {
				end = ']'
			}
			if src[i] != end {
				return false
			}
			i++
			depth--
		}
	}
}
