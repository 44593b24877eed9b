// Command testsummary runs go test -json with its arguments and prints what
// plain go test prints (a line per package, the output of failing tests and
// build errors) and, in its last lines, every skipped test with the reason it
// gave: make test ran `go test ./...`, which says ok for a package whose S3
// and SMTP tests all skipped. It exits with go test's status.
//
//	go run ./internal/testsummary -count=1 ./...
//
// GO names the go command (make passes $(GO)); it defaults to go.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/finops-oss/finops/internal/testenv"
)

// event is the part of a go test -json (test2json) event this reads.
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output and build-fail (Go 1.24+)
}

// skip is one skipped test and the reason it logged.
type skip struct {
	Package, Test, Reason string
}

// howToRun ends the summary: what the skipped tests need and how to stop
// them skipping. testenv.Missing names the part and its install command.
const howToRun = `Install the parts they need as .ci/run does (apt-get install chromium prometheus libreoffice-calc-nogui;
go install github.com/versity/versitygw/cmd/versitygw@v1.8.0 github.com/axllent/mailpit@v1.33.1),
then run make test again; CI=true or FINOPS_TEST_REQUIRE=1 makes a missing part fail instead of skip.`

func main() {
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, append([]string{"test", "-json"}, os.Args[1:]...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	skips, failed, serr := summarize(stdout, os.Stdout)
	werr := cmd.Wait()
	printSkips(os.Stdout, skips)
	if failed || werr != nil {
		// The failures are above the skip list; say so last too.
		fmt.Fprintln(os.Stdout, "FAIL: see the failing tests' output above")
	}
	if serr != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", serr)
		os.Exit(2)
	}
	var exit *exec.ExitError
	switch {
	case errors.As(werr, &exit):
		os.Exit(exit.ExitCode())
	case werr != nil:
		fmt.Fprintln(os.Stderr, "testsummary:", werr)
		os.Exit(2)
	case failed:
		os.Exit(1)
	}
}

// summarize copies r's go test -json stream to w as plain go test would show
// it and returns the skipped tests, in the order they ended, and whether a
// test, package or build failed. Lines that are not JSON (go vet's, a
// crashed test binary's) are copied as they are.
func summarize(r io.Reader, w io.Writer) (skips []skip, failed bool, err error) {
	out := map[[2]string][]string{} // a running test's output, by package and test
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text())
			continue
		}
		key := [2]string{e.Package, e.Test}
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Action == "build-fail":
			failed = true
		case e.Test == "" && e.Action == "output":
			// -json implies -v; plain go test prints neither of these.
			if e.Output != "PASS\n" && !strings.HasPrefix(e.Output, "=== ") {
				fmt.Fprint(w, e.Output)
			}
		case e.Test == "" && e.Action == "fail":
			failed = true
		case e.Test == "":
		case e.Action == "output":
			out[key] = append(out[key], e.Output)
		case e.Action == "fail":
			failed = true
			for _, line := range out[key] {
				if !strings.HasPrefix(line, "=== ") {
					fmt.Fprint(w, line)
				}
			}
			delete(out, key)
		case e.Action == "skip":
			skips = append(skips, skip{e.Package, e.Test, reason(out[key])})
			delete(out, key)
		case e.Action == "pass":
			delete(out, key)
		}
	}
	if err := sc.Err(); err != nil {
		return skips, failed, fmt.Errorf("testsummary: reading go test -json: %w", err)
	}
	return skips, failed, nil
}

// reason is what a skipped test logged, without go test's own framing lines
// and the file:line prefix, on one line.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		if i := strings.Index(l, ".go:"); i > 0 && !strings.Contains(l[:i], " ") {
			if j := strings.Index(l[i:], ": "); j > 0 {
				l = l[i+j+2:]
			}
		}
		parts = append(parts, l)
	}
	return strings.Join(parts, " ")
}

// printSkips writes the summary that ends make test's output.
func printSkips(w io.Writer, skips []skip) {
	if len(skips) == 0 {
		fmt.Fprintln(w, "\nno test skipped")
		return
	}
	fmt.Fprintf(w, "\n%d test(s) skipped:\n", len(skips))
	missing := false
	for _, s := range skips {
		fmt.Fprintf(w, "  %s %s: %s\n", s.Package, s.Test, s.Reason)
		missing = missing || strings.HasPrefix(s.Reason, testenv.MissingPrefix)
	}
	// Benchmarks and helper processes skip by design; only a missing part
	// has something to install.
	if missing {
		fmt.Fprintln(w, howToRun)
	}
}
