package ttldb

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// samplesDir holds Microsoft's sample queries, with their documents and
// the results the service gave (testdata/cosmos-samples/README.md).
const samplesDir = "testdata/cosmos-samples/scripts"

// samplesPassing are the sample scripts ttldb answers as the service did.
// A script on the list that fails is a failure; one off the list that
// passes is a failure too, asking to be added: the list only grows.
var samplesPassing = []string{
	"absolute-value",
	"arccosine",
	"array-concat",
	"array-contains",
	"array-length",
	"array-slice",
	"asin",
	"atan",
	"atn2",
	"average",
	"ceiling",
	"choose",
	"choose-fields",
	"choose-indexes",
	"concat",
	"concat-fields",
	"contains",
	"cos",
	"cot",
	"count",
	"count-expression",
	"datetimeadd",
	"datetimebin",
	"datetimediff",
	"datetimefromparts",
	"datetimepart",
	"datetimetoticks",
	"datetimetotimestamp",
	"degrees",
	"endswith",
	"exp",
	"floor",
	"getcurrentdatetime",
	"getcurrentdatetimestatic",
	"getcurrentticks",
	"getcurrentticksstatic",
	"getcurrenttimestamp",
	"getcurrenttimestampstatic",
	"from",
	"from-field",
	"group-by",
	"group-by-aggregate",
	"group-by-multiple",
	"iif",
	"iif-fields",
	"index-of",
	"intadd",
	"intbitand",
	"intbitleftshift",
	"intbitnot",
	"intbitor",
	"intbitrightshift",
	"intbitxor",
	"intdiv",
	"intmod",
	"intmul",
	"intsub",
	"is-array",
	"is-bool",
	"is-defined",
	"is-finite-number",
	"is-integer",
	"is-null",
	"is-number",
	"is-object",
	"is-primitive",
	"is-string",
	"left",
	"length",
	"log-base",
	"log10",
	"lower",
	"ltrim",
	"max",
	"min",
	"numberbin",
	"numberbin-field",
	"objecttoarray",
	"objecttoarray-field",
	"objecttoarray-key",
	"objecttoarray-key-value",
	"offset-limit",
	"offset-limit-none",
	"offset-limit-partial",
	"order-by",
	"order-by-desc",
	"order-by-multiple",
	"pi",
	"power",
	"radians",
	"rand",
	"regexmatch",
	"regexmatch-field",
	"replace",
	"replicate",
	"reverse",
	"right",
	"round",
	"rtrim",
	"select",
	"select-fields",
	"select-json",
	"select-value",
	"select-value-json",
	"setintersect",
	"setintersect-field",
	"setunion",
	"setunion-field",
	"sign",
	"sin",
	"sqrt",
	"square",
	"st-area",
	"st-distance",
	"st-intersect",
	"st-isvalid",
	"st-isvaliddetailed",
	"st-within",
	"startswith",
	"stringequals",
	"stringtoarray",
	"stringtoboolean",
	"stringtonull",
	"stringtonumber",
	"stringtoobject",
	"substring",
	"sum",
	"tan",
	"tickstodatetime",
	"tostring",
	"timestamptodatetime",
	"trim",
	"trunc",
	"upper",
	"where",
	"where-field",
	"where-scalar",
}

// sampleClocks are the instants the service answered the scripts that read
// its clock, as their results show (GetCurrentTicks and
// GetCurrentTimestamp count from the Unix epoch, in 100 ns ticks and
// milliseconds): each runs on a collection of its own whose clock
// (Options.Now) stands there, which checks the functions' units and
// formats exactly.
var sampleClocks = map[string]time.Time{
	"getcurrentdatetime":  time.Date(2019, 5, 3, 20, 36, 17, 123456700, time.UTC),
	"getcurrentticks":     time.Unix(0, 15973607943002652*100),
	"getcurrenttimestamp": time.UnixMilli(1556916469065),
}

// samplesByShape are the scripts whose results no implementation can
// repeat: the service's random numbers (rand), and its clock read anew for
// each row and once a partition (the *static scripts, whose rows the
// service gave different instants; ttldb reads its clock once a query).
// Their results compare by shape: the same members, each number a number
// and each date and time string in the round-trip format.
var samplesByShape = map[string]bool{
	"rand": true, "getcurrentdatetimestatic": true, "getcurrentticksstatic": true, "getcurrenttimestampstatic": true,
}

// samplesNear are the scripts whose numbers are the service's geodesics
// on the WGS-84 ellipsoid, whose algorithm Microsoft does not publish:
// ttldb's (Vincenty's distance, the authalic sphere's area) agree to the
// relative tolerance given, not to the last digit (internal/query's
// TestFuncsSpatialMeasures holds the same figures). Their numbers compare
// within it; everything else exactly.
var samplesNear = map[string]float64{"st-area": 1e-9, "st-distance": 1e-7}

// near reports whether got and want are equal but for numbers, which may
// differ by tol, relative.
func near(got, want any, tol float64) bool {
	switch w := want.(type) {
	case float64:
		g, ok := got.(float64)
		return ok && math.Abs(g-w) <= tol*math.Abs(w)
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !near(g[i], w[i], tol) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			if gv, ok := g[k]; !ok || !near(gv, v, tol) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got, want)
}

var roundTrip = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$`)

// shape returns v with each number made "number" and each round-trip date
// and time string "datetime".
func shape(v any) any {
	switch x := v.(type) {
	case float64:
		return "number"
	case string:
		if roundTrip.MatchString(x) {
			return "datetime"
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = shape(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = shape(e)
		}
		return out
	}
	return v
}

// sample is one script of the corpus.
type sample struct {
	name   string
	query  string
	result string // the service's results: a JSON array
	seed   string // documents to write first, a JSON array; "": none
	own    bool   // not validated, with a seed of its own: run on a collection of its own
}

// loadSamples reads every script that has a query and a result.
func loadSamples(t *testing.T) []sample {
	t.Helper()
	dirs, err := os.ReadDir(samplesDir)
	require.NoError(t, err)
	read := func(dir string, names ...string) (string, string) {
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(samplesDir, dir, n))
			if err == nil {
				return string(b), n
			}
			require.ErrorIs(t, err, os.ErrNotExist)
		}
		return "", ""
	}
	var out []sample
	for _, d := range dirs {
		s := sample{name: d.Name()}
		s.query, _ = read(s.name, "query.sql", "query.novalidate.sql")
		s.result, _ = read(s.name, "result.json", "result.novalidate.json")
		var seedFile string
		s.seed, seedFile = read(s.name, "seed.json", "seed.novalidate.json")
		s.own = seedFile == "seed.novalidate.json"
		if s.query == "" || s.result == "" {
			continue
		}
		out = append(out, s)
	}
	return out
}

// seedCollection upserts the documents of seed, a JSON array, into c.
func seedCollection(t *testing.T, c *Collection, name, seed string) {
	t.Helper()
	var docs []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(seed), &docs), name)
	for _, d := range docs {
		_, err := c.UpsertJSON(bg, d)
		require.NoError(t, err, name)
	}
}

var orderBy = regexp.MustCompile(`(?i)\bORDER\s+BY\b`)

// runSample runs s's query on c, and says how its results differ from the
// service's; "" when they agree.
func runSample(c *Collection, s sample) string {
	var got []any
	for res, err := range c.QueryAll(bg, SQL{Text: s.query}) {
		if err != nil {
			return err.Error()
		}
		var v any
		if err := json.Unmarshal(res, &v); err != nil {
			return "result " + string(res) + ": " + err.Error()
		}
		got = append(got, v)
	}
	var want []any
	if err := json.Unmarshal([]byte(s.result), &want); err != nil {
		return "the expected result: " + err.Error()
	}
	if got == nil {
		got = []any{}
	}
	if want == nil {
		want = []any{}
	}
	if samplesByShape[s.name] {
		got, want = shape(got).([]any), shape(want).([]any)
	}
	if !orderBy.MatchString(s.query) {
		// Without ORDER BY the service gave the documents in the order it
		// wrote them, ttldb gives them in key order: compare as multisets.
		sortByJSON(got)
		sortByJSON(want)
	}
	if tol, ok := samplesNear[s.name]; ok && near(got, want, tol) || !ok && reflect.DeepEqual(got, want) {
		return ""
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	return "got " + string(g) + ", want " + string(w)
}

// sortByJSON sorts vs by their JSON text (encoding/json sorts members).
func sortByJSON(vs []any) {
	key := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	slices.SortFunc(vs, func(a, b any) int { return strings.Compare(key(a), key(b)) })
}

// R13: every sample query of Microsoft's corpus that ttldb runs gives the
// service's results. The validated scripts' documents all go into one
// collection with partition key /pk (none has a pk: all are in the "none"
// partition), as the samples' validator upserts them into one shared
// container; a script with a seed of its own that the samples do not
// validate runs on a collection of its own documents, and one that reads
// the clock on a collection whose clock stands where the service's did
// (sampleClocks); the results of random numbers and of the service's
// clock read for each row compare by shape (samplesByShape). Numbers compare as
// JSON values (1 = 1.0); results compare in order when the query has ORDER
// BY, otherwise as multisets, since the service gave them in the order it
// wrote them (see where/result.json) and ttldb in key order.
func TestCosmosSamples(t *testing.T) {
	samples := loadSamples(t)
	shared, _ := newTestCollection(t, "/pk", TTLNoDefault())
	for _, s := range samples {
		if s.seed != "" && !s.own {
			seedCollection(t, shared, s.name, s.seed)
		}
	}
	var passed, newly []string
	for _, s := range samples {
		c := shared
		if at, ok := sampleClocks[s.name]; ok {
			var clk *fakeClock
			c, clk = newTestCollection(t, "/pk", TTLNoDefault())
			clk.t = at
		}
		if s.own {
			c, _ = newTestCollection(t, "/pk", TTLNoDefault())
			seedCollection(t, c, s.name, s.seed)
		}
		diff := runSample(c, s)
		listed := slices.Contains(samplesPassing, s.name)
		switch {
		case diff == "":
			passed = append(passed, s.name)
			if !listed {
				newly = append(newly, s.name)
			}
		case listed:
			t.Errorf("sample %s: %s\nquery: %s", s.name, diff, s.query)
		}
	}
	for _, name := range samplesPassing {
		if !slices.ContainsFunc(samples, func(s sample) bool { return s.name == name }) {
			t.Errorf("sample %s is listed as passing, but the corpus has no such script", name)
		}
	}
	if len(newly) > 0 {
		t.Errorf("these samples pass now: add them to samplesPassing:\n\t\"%s\",", strings.Join(newly, "\",\n\t\""))
	}
	t.Logf("%d of the %d sample scripts give the service's results", len(passed), len(samples))
}
