package main

import (
	"regexp"
	"testing"

	"github.com/ttldb/ttldb"
)

// R17, R13: query prints every result as a JSON line, or a table with a
// column for each member; parameters are given as JSON; a bad query
// names itself.
func TestQuery(t *testing.T) {
	clk := &clock{now: t0}
	dir, c := collection(t, clk, ttldb.TTLOff(),
		`{"id":"a","tenant":"t1","n":1,"note":"one\ttab"}`,
		`{"id":"b","tenant":"t1","n":2}`,
		`{"id":"c","tenant":"t2","n":3}`,
	)
	mustClose(t, c)
	ttl(t, "", "query", dir, "SELECT c.id, c.n FROM c WHERE c.n >= 2 ORDER BY c.n").
		want(t, 0, []string{"{\"id\":\"b\",\"n\":2}\n{\"id\":\"c\",\"n\":3}\n"}, nil)
	ttl(t, "", "query", dir, "SELECT VALUE COUNT(1) FROM c").want(t, 0, []string{"3\n"}, nil)
	ttl(t, "", "query", "--param", `@t="t1"`, dir, "SELECT VALUE c.id FROM c WHERE c.tenant = @t").
		want(t, 0, []string{"\"a\"\n\"b\"\n"}, nil)

	r := ttl(t, "", "query", dir, "--format", "table", "SELECT c.id, c.n, c.note FROM c ORDER BY c.id")
	r.want(t, 0, []string{"(3 results)"}, nil)
	for _, line := range []string{`(?m)^id +n +note$`, `(?m)^a +1 +one tab$`, `(?m)^b +2$`, `(?m)^c +3$`} {
		if !regexp.MustCompile(line).MatchString(r.stdout) {
			t.Errorf("table lacks %q:\n%s", line, r.stdout)
		}
	}
	ttl(t, "", "query", "--format", "table", dir, "SELECT VALUE c.n FROM c").
		want(t, 0, []string{"value", "(3 results)"}, nil)

	ttl(t, "", "query", "--format", "table", dir, "SELECT c.id FROM c WHERE c.n = 1").want(t, 0, []string{"a\n(1 result)\n"}, nil)
	ttl(t, "", "query", dir, "SELEC * FROM c").want(t, 1, nil, []string{`query "SELEC * FROM c"`, "invalid query"})
	ttl(t, "", "query", dir, "SELECT * FROM c WHERE c.n = @n").want(t, 1, nil, []string{"@n"})
	ttl(t, "", "query", "--param", "@n=notjson", dir, "SELECT * FROM c").want(t, 2, nil, []string{`"notjson" is not JSON`})
}
