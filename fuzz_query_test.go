package ttldb

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// etagMember matches a document's _etag, which differs between two
// collections holding the same documents.
var etagMember = regexp.MustCompile(`"_etag":"[0-9a-f]{16}"`)

// FuzzQuery runs any query text, with a parameter of any JSON, on
// queryDocs in a collection without indexes and in one with an index on
// every path the documents have (R13): no input panics; a query refused
// is refused by both with ErrInvalidQuery; one accepted gives the same
// results in both, and in pages of two.
func FuzzQuery(f *testing.F) {
	for _, seed := range []string{
		`SELECT * FROM c WHERE c.status = @p AND c.total >= 5 ORDER BY c.total DESC OFFSET 0 LIMIT 20`,
		`SELECT VALUE COUNT(1) FROM c WHERE IS_DEFINED(c.email)`,
		`SELECT c.id, c.user.name FROM c WHERE STARTSWITH(c.id, "ord-") AND c.region IN ("eu", @p)`,
		`SELECT TOP 5 * FROM c ORDER BY c.region`,
		`SELECT VALUE c.id FROM c WHERE c.total BETWEEN @p AND 100 ORDER BY c.user.name DESC`,
		`SELECT * FROM c WHERE NOT ARRAY_CONTAINS(c.tags, @p) ORDER BY c.id, c.total DESC`,
		`SELECT c["odd key"] FROM c WHERE c.flag OR c.total < @p`,
		`SELECT VALUE {id: c.id, t: c.total * 2, r: [c.region ?? "none", -c.total]} FROM c WHERE c.total + 0 > @p ORDER BY c.total`,
		`SELECT * FROM c.user u WHERE u.name = @p OR (c.flag ? 1 : 0) = 0 ORDER BY u.name`,
		`SELECT VALUE SUM(c.total) FROM c WHERE IS_NUMBER(c.total) AND c.status = @p`,
		`SELECT MAX(c.total) AS m FROM c WHERE c.total != @p`,
		`SELECT VALUE 1 + @p`,
		`SELECT VALUE c.id FROM c WHERE c.status LIKE "op%" OR c.user.name LIKE @p`,
		`SELECT VALUE c.id FROM c WHERE c.region LIKE @p ESCAPE "!" AND c.id NOT LIKE "%_x" ORDER BY c.region`,
		`SELECT VALUE {n: COUNT(1), s: SUM(c.total) * 2, m: ROUND(AVG(c.total))} FROM c WHERE c.status LIKE "[a-o]%"`,
		`SELECT c.region, COUNT(1) + 1 AS n, MAX(c.total) ?? @p AS top FROM c GROUP BY c.region`,
		`SELECT DISTINCT VALUE t FROM c JOIN t IN c.tags WHERE c.status = @p`,
		`SELECT c.id, t FROM c JOIN t IN c.tags WHERE t = @p AND c.total > 1 ORDER BY c.total`,
		`SELECT VALUE COUNT(1) FROM c JOIN t IN c.tags WHERE c.region = @p`,
		`SELECT * FROM t IN c.tags WHERE t != @p`,
		`SELECT DISTINCT c.status FROM c WHERE c.total != @p ORDER BY c.total DESC`,
		`SELECT c.id, ARRAY(SELECT VALUE t FROM t IN c.tags WHERE t != @p) AS t FROM c WHERE EXISTS(SELECT VALUE 1 FROM t IN c.tags WHERE t = @p)`,
		`SELECT VALUE (SELECT VALUE COUNT(1) FROM t IN c.tags) FROM c WHERE c.status = @p`,
		`SELECT c.id, t FROM c JOIN (SELECT VALUE t FROM t IN c.tags WHERE t != @p) t JOIN m IN (SELECT VALUE [c.total, 1]) ORDER BY VectorDistance([c.total, 1], [1, 2])`,
		`SELECT DISTINCT VALUE COUNT(1) FROM c WHERE c.total != @p GROUP BY c.region`,
		`SELECT VALUE COUNT(1) FROM (SELECT c.id, t FROM c JOIN t IN c.tags WHERE t != @p) x WHERE x.id != @p`,
		"-- a comment\nSELECT VALUE c[@p] FROM c WHERE c[\"stat\" || \"us\"] = \"open\" --\nAND c.tags[c.total - 1] != @p",
		`SELECT VALUE c.id FROM c WHERE c.total > 1 AND c[@p] != null ORDER BY c.total`,
		`SELECT VALUE {n: COUNT(1), m: MAX(c.total)} FROM c WHERE c.status = @p ORDER BY c.total DESC`,
		`SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE t FROM c JOIN t IN c.tags WHERE t != @p) x`,
		`SELECT x.n, COUNT(1) AS k FROM (SELECT TOP 3 c.total AS n FROM c WHERE c.status != @p) x GROUP BY x.n`,
	} {
		f.Add(seed, `"open"`)
		f.Add(seed, `10`)
	}
	paths := []string{"/id", "/status", "/total", "/region", "/user/name", "/email", "/flag", "/tags", "/odd key"}
	plain, _ := newQueryCollection(f)
	indexed, _ := newQueryCollection(f, paths...)
	f.Fuzz(func(t *testing.T, text, param string) {
		q := SQL{Text: text, Params: map[string]any{"p": rawParam(param)}}
		a, errA := plain.Query(bg, q)
		b, errB := indexed.Query(bg, q)
		if errA != nil || errB != nil {
			require.Equal(t, errA == nil, errB == nil, "%q: %v / %v", text, errA, errB)
			require.True(t, errors.Is(errA, ErrInvalidQuery), "%q: %v", text, errA)
			return
		}
		norm := func(p QueryPage) []string {
			out := []string{}
			for _, r := range p.Results {
				out = append(out, etagMember.ReplaceAllString(string(r), ""))
			}
			return out
		}
		require.Equal(t, norm(a), norm(b), "%q with @p = %s, plan %+v", text, param, b.Plan)
		q.MaxItems = 2
		var paged QueryPage
		for pages := 0; ; pages++ {
			require.Less(t, pages, 100)
			p, err := indexed.Query(bg, q)
			require.NoError(t, err)
			paged.Results = append(paged.Results, p.Results...)
			if p.Continuation == "" {
				break
			}
			q.Continuation = p.Continuation
		}
		require.Equal(t, norm(b), norm(paged), "%q in pages of 2", text)
	})
}

// rawParam returns s as a parameter's JSON text when it is valid JSON, else
// as a string.
func rawParam(s string) any {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return s
}

// FuzzQueryContinuation: a query's token of the right collection and
// query, sealed around any position (as only a forger makes one: the
// checksum is no seal), for queries that scan, filter, sort either way
// and project, is refused with ErrInvalidContinuation or resumes the
// query; none panics (R13).
func FuzzQueryContinuation(f *testing.F) {
	c, err := NewCollection("fuzz", "/pk", &Options{})
	require.NoError(f, err)
	f.Cleanup(func() { c.Close() })
	for i := range 30 {
		_, err := c.Create(bg, map[string]any{"id": fmt.Sprintf("d%02d", i), "pk": fmt.Sprint("p", i%3), "n": i % 7, "s": fmt.Sprint("x", i)})
		require.NoError(f, err)
	}
	texts := []string{
		"SELECT * FROM c",
		"SELECT * FROM c ORDER BY c.n",
		"SELECT * FROM c ORDER BY c.s DESC",
		"SELECT c.n FROM c WHERE c.n > 2 ORDER BY c.n",
		"SELECT VALUE c.n FROM c",
	}
	// The scope of each query's tokens, and a position it issued.
	scopes := make([]tokenScope, len(texts))
	for i, text := range texts {
		p, err := c.Query(bg, SQL{Text: text, MaxItems: 2})
		require.NoError(f, err)
		b, err := base64.RawURLEncoding.DecodeString(p.Continuation)
		require.NoError(f, err)
		s := &scopes[i]
		s.collection, s.name = binary.BigEndian.Uint64(b[1:]), binary.BigEndian.Uint32(b[9:])
		s.read, s.partition = b[13], binary.BigEndian.Uint64(b[14:])
		s.text, s.params = binary.BigEndian.Uint64(b[tokenHeader:]), binary.BigEndian.Uint64(b[tokenHeader+8:])
		f.Add(uint8(i), b[tokenHeader+16:len(b)-4])
	}
	f.Fuzz(func(t *testing.T, which uint8, pos []byte) {
		i := int(which) % len(texts)
		_, err := c.Query(bg, SQL{Text: texts[i], MaxItems: 3, Continuation: sealToken(scopes[i], string(pos))})
		if err != nil && !errors.Is(err, ErrInvalidContinuation) {
			t.Fatalf("%q resumed at %q: %v", texts[i], pos, err)
		}
	})
}
