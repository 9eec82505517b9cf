package query

import (
	"fmt"
	"sync"
	"testing"
)

// The string functions, with the sample corpus's facts (R13).
func TestFuncsString(t *testing.T) { // R13
	checkFuncs(t, []funcCase{
		// concat
		{`CONCAT("adventure", "works")`, `"adventureworks"`},
		{`CONCAT("a", "b", "c", c.s)`, `"abcAdventureWorks"`},
		{`CONCAT("a", 1)`, `-`}, {`CONCAT("a", c.missing)`, `-`},
		// index-of
		{`INDEX_OF("AdventureWorks", "A")`, `0`},
		{`INDEX_OF("AdventureWorks", "s")`, `13`},
		{`INDEX_OF("AdventureWorks", "Adventure")`, `0`},
		{`INDEX_OF("AdventureWorks", "Works")`, `9`},
		{`INDEX_OF("AdventureWorks", "tureW")`, `5`},
		{`INDEX_OF("AdventureWorks", "Cosmos")`, `-1`},
		{`INDEX_OF("AdventureWorks", "Works", 5)`, `9`},
		{`INDEX_OF("AdventureWorks", "Adventure", 5)`, `-1`},
		{`INDEX_OF("AdventureWorks", "aD")`, `-1`},
		{`INDEX_OF("abc", "", 1)`, `1`}, {`INDEX_OF("abc", "c", 99)`, `-1`}, {`INDEX_OF("abc", "a", -5)`, `0`},
		{`INDEX_OF("abc", "a", 0.5)`, `-`}, {`INDEX_OF(1, "a")`, `-`},
		// left, right, length
		{`LEFT("AdventureWorks", 0)`, `""`}, {`LEFT("AdventureWorks", 1)`, `"A"`},
		{`LEFT("AdventureWorks", 5)`, `"Adven"`},
		{`LEFT("AdventureWorks", LENGTH("AdventureWorks"))`, `"AdventureWorks"`},
		{`LEFT("AdventureWorks", 100)`, `"AdventureWorks"`}, {`LEFT("abc", -1)`, `""`}, {`LEFT("abc", 1.5)`, `-`},
		{`RIGHT("AdventureWorks", 0)`, `""`}, {`RIGHT("AdventureWorks", 1)`, `"s"`},
		{`RIGHT("AdventureWorks", 5)`, `"Works"`},
		{`RIGHT("AdventureWorks", LENGTH("AdventureWorks"))`, `"AdventureWorks"`},
		{`RIGHT("AdventureWorks", 100)`, `"AdventureWorks"`}, {`RIGHT("abc", -1)`, `""`},
		{`LENGTH("AdventureWorks")`, `14`}, {`LENGTH("")`, `0`}, {`LENGTH(null)`, `-`},
		{`LENGTH(0)`, `-`}, {`LENGTH(["Adventure", "Works"])`, `-`},
		// substring
		{`SUBSTRING("AdventureWorks", 0, 9)`, `"Adventure"`},
		{`SUBSTRING("AdventureWorks", 9, 5)`, `"Works"`},
		{`SUBSTRING("AdventureWorks", 0, LENGTH("AdventureWorks"))`, `"AdventureWorks"`},
		{`SUBSTRING("AdventureWorks", 0, -1)`, `""`},
		{`SUBSTRING("abc", 1, 100)`, `"bc"`}, {`SUBSTRING("abc", 3, 1)`, `""`}, {`SUBSTRING("abc", -1, 2)`, `""`},
		{`SUBSTRING("abc", 0.5, 1)`, `-`}, {`SUBSTRING("abc", "0", 1)`, `-`},
		// UTF-16 code units: 😀 (U+1F600) counts two; a cut inside it
		// keeps U+FFFD for the half.
		{`LENGTH(c.emoji)`, `4`}, {`LENGTH("é")`, `1`},
		{`INDEX_OF(c.emoji, "b")`, `3`}, {`INDEX_OF(c.emoji, "😀")`, `1`}, {`INDEX_OF(c.emoji, "b", 2)`, `3`},
		{`SUBSTRING(c.emoji, 1, 2)`, `"😀"`}, {`SUBSTRING(c.emoji, 3, 1)`, `"b"`},
		{`SUBSTRING(c.emoji, 0, 2)`, `"a` + "\uFFFD" + `"`}, {`SUBSTRING(c.emoji, 2, 2)`, `"` + "\uFFFD" + `b"`},
		{`LEFT(c.emoji, 3)`, `"a😀"`}, {`RIGHT(c.emoji, 3)`, `"😀b"`},
		{`REVERSE(c.emoji)`, `"b😀a"`},
		// lower, upper
		{`LOWER("ADVENTURE_WORKS")`, `"adventure_works"`}, {`LOWER("adventureWorks")`, `"adventureworks"`},
		{`UPPER("adventureworks")`, `"ADVENTUREWORKS"`}, {`UPPER("ADVENTURE_WORKS")`, `"ADVENTURE_WORKS"`},
		// ltrim, rtrim, trim
		{`LTRIM("  AdventureWorks")`, `"AdventureWorks"`},
		{`LTRIM("  AdventureWorks  ")`, `"AdventureWorks  "`},
		{`LTRIM("AdventureWorks  ")`, `"AdventureWorks  "`},
		{`LTRIM("AdventureWorks")`, `"AdventureWorks"`},
		{`LTRIM("AdventureWorks", "Works")`, `"AdventureWorks"`},
		{`LTRIM("AdventureWorks", "Adventure")`, `"Works"`},
		{`LTRIM("AdventureWorks", "AdventureWorks")`, `""`},
		{`LTRIM("AdventureWorks", "")`, `"AdventureWorks"`},
		{`RTRIM("  AdventureWorks")`, `"  AdventureWorks"`},
		{`RTRIM("  AdventureWorks  ")`, `"  AdventureWorks"`},
		{`RTRIM("AdventureWorks  ")`, `"AdventureWorks"`},
		{`RTRIM("AdventureWorks", "Works")`, `"Adventure"`},
		{`RTRIM("AdventureWorks", "Adventure")`, `"AdventureWorks"`},
		{`RTRIM("AdventureWorks", "AdventureWorks")`, `""`},
		{`RTRIM("AdventureWorks", "")`, `"AdventureWorks"`},
		{`TRIM("   AdventureWorks")`, `"AdventureWorks"`},
		{`TRIM("AdventureWorks   ")`, `"AdventureWorks"`},
		{`TRIM("   AdventureWorks   ")`, `"AdventureWorks"`},
		{`TRIM("---AdventureWorks---")`, `"---AdventureWorks---"`},
		{`TRIM("___AdventureWorks___", "_")`, `"AdventureWorks"`},
		{`TRIM("---AdventureWorks---", "-")`, `"AdventureWorks"`},
		{`TRIM("-- AdventureWorks --", "-")`, `" AdventureWorks "`},
		{`TRIM("-_-AdventureWorks-_-", "-_")`, `"AdventureWorks"`},
		{`TRIM(1)`, `-`}, {`TRIM("a", 1)`, `-`},
		// replace, replicate, reverse
		{`REPLACE("AdventureWorksLT", "LT", "LT2")`, `"AdventureWorksLT2"`},
		{`REPLACE("aXbXc", "X", "")`, `"abc"`}, {`REPLACE("abc", "", "x")`, `-`}, {`REPLACE("abc", "a", 1)`, `-`},
		{`REPLICATE("Cosmic", 3)`, `"CosmicCosmicCosmic"`},
		{`REPLICATE("a", 0)`, `""`}, {`REPLICATE("a", 2.7)`, `"aa"`}, {`REPLICATE("a", -1)`, `-`},
		{`LENGTH(REPLICATE("ab", 5000))`, `10000`}, {`REPLICATE("ab", 5001)`, `-`},
		{`REPLICATE("", 1e300)`, `""`},
		{`REVERSE("AdventureWorks")`, `"skroWerutnevdA"`},
		{`REVERSE("skroWerutnevdA")`, `"AdventureWorks"`},
		{`REVERSE(REVERSE("AdventureWorks"))`, `"AdventureWorks"`},
		// stringequals
		{`STRINGEQUALS("AdventureWorks", "AdventureWorks")`, `true`},
		{`STRINGEQUALS("AdventureWorks", "adventureworks")`, `false`},
		{`STRINGEQUALS("AdventureWorks", "adventureworks", true)`, `true`},
		{`STRINGEQUALS("ab", "a", true)`, `false`}, {`STRINGEQUALS("a", "a", 1)`, `-`}, {`STRINGEQUALS("a", 1)`, `-`},
		// stringjoin, stringsplit (the Learn reference)
		{`STRINGJOIN(["Iropa", "Mountain", "Bike"], " ")`, `"Iropa Mountain Bike"`},
		{`STRINGJOIN(["Iropa", "Mountain", "Bike"], "")`, `"IropaMountainBike"`},
		{`STRINGJOIN(["Iropa", "Mountain", "Bike"], undefined)`, `-`},
		{`STRINGJOIN(["6", "7", "4", "3"], "A")`, `"6A7A4A3"`},
		{`STRINGJOIN(["Adventure", "LT"], "Works")`, `"AdventureWorksLT"`},
		{`STRINGJOIN([], "-")`, `""`}, {`STRINGJOIN(["a", 1], "-")`, `-`}, {`STRINGJOIN("a", "-")`, `-`},
		{`STRINGSPLIT("Handlebar", "e")`, `["Handl","bar"]`},
		{`STRINGSPLIT("CARBON_STEEL_BIKE_WHEEL", "_")`, `["CARBON","STEEL","BIKE","WHEEL"]`},
		{`STRINGSPLIT("Road Bike", " ")`, `["Road","Bike"]`},
		{`STRINGSPLIT("xenmoun mountain bike", "moun")`, `["xen"," ","tain bike"]`},
		{`STRINGSPLIT("AluminumBikeFrame", undefined)`, `-`},
		{`STRINGSPLIT("Helmet", "")`, `["Helmet"]`},
		{`STRINGSPLIT("", "")`, `[""]`},
		{`STRINGSPLIT("a\"b", "x")`, `["a\"b"]`},
		// regexmatch, regexmatch-field
		{`RegexMatch("abcd", "ABC")`, `false`},
		{`RegexMatch("abcd", "ABC", "i")`, `true`},
		{`RegexMatch("abcd", "ab.", "")`, `true`},
		{`RegexMatch("abcd", "ab c", "x")`, `true`},
		{`RegexMatch("abcd", "aB c", "ix")`, `true`},
		{`RegexMatch("03a", "[0-9]")`, `true`},
		{`RegexMatch("salt3824908", "salt{1}")`, `true`},
		{`RegexMatch("shame", "s....", "i")`, `true`},
		{`RegexMatch("Tecozow coat", " coat{1}")`, `true`},
		{`RegexMatch("Anidin heavy jacket", " coat{1}")`, `false`},
		// The other modifiers, x's comments and escapes, and what is
		// undefined: a pattern RE2 cannot compile (a backreference), an
		// unknown modifier, other kinds.
		{`RegexMatch("a\nb", "^b$")`, `false`}, {`RegexMatch("a\nb", "^b$", "m")`, `true`},
		{`RegexMatch("a\nb", "a.b")`, `false`}, {`RegexMatch("a\nb", "a.b", "s")`, `true`},
		{`RegexMatch("a b", "a\\ b # a comment", "x")`, `true`}, {`RegexMatch("a b", "a[ ]b", "x")`, `true`},
		{`RegexMatch("aa", "(a)\\1")`, `-`}, {`RegexMatch("a", "a", "q")`, `-`}, {`RegexMatch("a", "(")`, `-`},
		{`RegexMatch(1, "1")`, `-`}, {`RegexMatch("a", "a", null)`, `-`},
	}, nil)
}

// REGEXMATCH's cache of compiled patterns gives each pattern's own answer
// when more patterns than it holds are used at once, from several
// goroutines (R13; run with -race).
func TestRegexCache(t *testing.T) { // R13
	row := Row{Body: funcRow, TS: 1, ETag: "e"}
	var wg sync.WaitGroup
	errs := make(chan string, 4*(regexCacheSize+50))
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range regexCacheSize + 50 {
				n := (i*7 + g) % (regexCacheSize + 50)
				for d, want := range []string{"true", "false"} {
					q, err := Parse(fmt.Sprintf(`SELECT VALUE RegexMatch("x%dy", "^x%dy$") FROM c`, n, n+d))
					if err != nil {
						errs <- err.Error()
						continue
					}
					b, err := q.Bind(nil)
					if err != nil {
						errs <- err.Error()
						continue
					}
					if got := results(b, []Row{row}); got != want {
						errs <- fmt.Sprintf("pattern %d against %d: %s", n+d, n, got)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
