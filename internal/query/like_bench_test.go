package query

import (
	"strings"
	"testing"
)

// BenchmarkLikeMatch times one match: an ordinary pattern, and the
// review's adversarial one (4,000 a's then b, after %, on 200,000 a's),
// and with _ (Shift-And's 63 words and 1).
func BenchmarkLikeMatch(b *testing.B) {
	for _, bc := range []struct{ name, pat, s string }{
		{"ordinary", "%driver%set", "Screwdriver and hammer set, a driver set for the workshop"},
		{"prefix", "fruit%", "fruit salad with apples"},
		{"classes", "%SO[t-z]PS_%", "an ISO PSA, the SOuPSx standard"},
		{"adversarial", "%" + strings.Repeat("a", 4000) + "b", strings.Repeat("a", 200000)},
		{"adversarialOne", "%" + strings.Repeat("a", 4000) + "_b", strings.Repeat("a", 200000)},
		{"adversarialLiteralMiddle", "%" + strings.Repeat("a", 4000) + "b%", strings.Repeat("a", 200000)},
		{"adversarialMiddle", "%" + strings.Repeat("a", 4000) + "_b%", strings.Repeat("a", 200000)},
		{"adversarialMiddle64", "%" + strings.Repeat("a", 62) + "_b%", strings.Repeat("a", 200000)},
	} {
		p := compileLike(bc.pat, 0)
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				p.match(bc.s)
			}
		})
	}
}
