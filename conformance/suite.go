package conformance

import (
	"testing"
)

// Run runs every check of the suite against the engine h opens, each as a
// subtest named by the rule it checks ("R3/...", "R4/..."); a check of
// several rules is named by the first, or by their range. The checks that
// need a capability h lacks (Harness.Reopen, Harness.Second) skip and say
// why. Run takes about 15 s on a 2-core machine for the in-process engine
// (Long forms: several times that), most of it the model's.
func Run(t *testing.T, h Harness) {
	if h.Open == nil {
		t.Fatal("conformance.Run: Harness.Open is nil")
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, h) })
	}
}

// checks are the suite's checks, by rule.
var checks = []struct {
	name string
	run  func(*testing.T, Harness)
}{
	{"R1-R14/Model", checkModel},
	{"R14/PatchAfterClose", checkPatchAfterClose},
}
