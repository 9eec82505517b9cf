// Command examples runs the ttldb example programs, each of which lives in
// a directory of its own beside this file and also runs alone
// (go run ./examples/sessions). Run it from the repository root:
//
//	go run ./examples                      # every example, in turn
//	go run ./examples sessions salesorder  # only those
//
// It runs each with go run, under a "=== name" header, streams its output,
// and exits with status 1 if any failed, 2 for an unknown name or when the
// examples are not found in the working directory.
package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// examples lists the example programs in the order they run. A test checks
// that it names every directory of examples/ that holds a main package.
var examples = []string{"salesorder", "sessions", "sessionstore", "idempotency", "typed", "expirylog", "feedcounter", "cart", "orders"}

func main() {
	os.Exit(runExamples(os.Args[1:], os.Stdout, os.Stderr))
}

// runExamples runs the examples named in args, or all of them, writing
// their output to stdout and problems to stderr, and returns the exit
// status: 0; 1 when an example failed; 2 for an unknown name, or when an
// example's directory is not found relative to the working directory.
func runExamples(args []string, stdout, stderr io.Writer) int {
	logger := log.New(stderr, "examples: ", 0)
	names := examples
	if len(args) > 0 {
		names = args
	}
	for _, name := range names {
		if !slices.Contains(examples, name) {
			logger.Printf("unknown example %q; the examples are: %s", name, strings.Join(examples, ", "))
			return 2
		}
	}
	for _, name := range names {
		dir := filepath.Join("examples", name)
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			wd, err := os.Getwd()
			if err != nil {
				wd = fmt.Sprintf("unknown (%v)", err)
			}
			logger.Printf("directory %s not found in the working directory, %s: run go run ./examples from the repository root", dir, wd)
			return 2
		}
	}

	goCmd := goBinary()
	var failed []string
	for i, name := range names {
		header := "=== " + name + "\n"
		if i > 0 {
			header = "\n" + header
		}
		if _, err := io.WriteString(stdout, header); err != nil {
			logger.Print(err)
			return 1
		}
		cmd := exec.Command(goCmd, "run", "./examples/"+name)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Run(); err != nil {
			logger.Printf("%s failed: %v", name, err)
			failed = append(failed, name)
		}
	}
	if len(failed) > 0 {
		logger.Printf("%d of %d failed: %s", len(failed), len(names), strings.Join(failed, ", "))
		return 1
	}
	return 0
}

// goBinary returns the go command of the toolchain that built this program
// if it is still there, else "go", to be found in PATH. runtime.GOROOT is
// deprecated for binaries copied to other machines; this one is built and
// run at once by go run, on the machine that has the toolchain.
func goBinary() string {
	exe := "go"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	//lint:ignore SA1019 go run builds this program with the toolchain it should use
	if root := runtime.GOROOT(); root != "" {
		bin := filepath.Join(root, "bin", exe)
		if _, err := os.Stat(bin); err == nil {
			return bin
		}
	}
	return "go"
}
