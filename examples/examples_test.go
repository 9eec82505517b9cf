package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the golden files: go test ./examples -update
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestWalkthroughs runs each walk-through and compares its output with
// testdata/<name>.golden.
func TestWalkthroughs(t *testing.T) {
	for _, wt := range walkthroughs {
		t.Run(wt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := wt.run(&buf); err != nil {
				t.Fatalf("%s: %v", wt.name, err)
			}
			golden := filepath.Join("testdata", wt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./examples -update to create it)", err)
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("%s: output differs from %s (go test ./examples -update rewrites it)\n--- got:\n%s--- want:\n%s", wt.name, golden, got, want)
			}
		})
	}
}

// TestDispatchUnknown checks that an unknown name fails with status 2 and a
// message that lists the walk-throughs, and runs none of them.
func TestDispatchUnknown(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"nosuch"}, &stdout, &stderr); code != 2 {
		t.Errorf("dispatch(nosuch) = %d, want 2", code)
	}
	if stdout.Len() != 0 {
		t.Errorf("dispatch(nosuch) wrote to stdout: %q", stdout.String())
	}
	for _, want := range []string{`"nosuch"`, "salesorder", "sessions"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("dispatch(nosuch) stderr = %q, want it to mention %s", stderr.String(), want)
		}
	}
}

// TestDispatch checks that dispatch runs one named walk-through, or all of
// them without names.
func TestDispatch(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"sessions"}, []string{"sessions"}},
		{nil, []string{"salesorder", "sessions"}},
	} {
		var stdout, stderr bytes.Buffer
		if code := dispatch(tc.args, &stdout, &stderr); code != 0 {
			t.Fatalf("dispatch(%q) = %d, want 0; stderr: %s", tc.args, code, stderr.String())
		}
		var got []string
		for _, line := range strings.Split(stdout.String(), "\n") {
			if name, ok := strings.CutPrefix(line, "=== "); ok {
				got = append(got, name)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("dispatch(%q) ran %q, want %q", tc.args, got, tc.want)
		}
	}
}
