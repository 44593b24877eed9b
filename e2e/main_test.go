package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
)

// A test binary started with FINOPS_TEST_MAIN=1 is finops itself: the
// kill -9, two-runs, disk-full and killed-ingest tests need separate
// processes.
func init() {
	if os.Getenv("FINOPS_TEST_MAIN") == "1" {
		os.Exit(cli.RunProcess("dev"))
	}
}

// now is the fixed clock of every CLI test: Monday 2026-11-30 11:00 in
// Shanghai, so the last complete ISO week is 2026-W48 [Nov 23, Nov 30).
var now = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

// repoRoot is where testdata/ lives, one level up from e2e/.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wd, "..")
}

// runFinops runs one command line in-process and returns its exit code and output.
func runFinops(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return finopsStdin(t, nil, args...)
}

// finopsStdin is runFinops with stdin as its standard input (and for a
// benchmark too).
func finopsStdin(t testing.TB, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	m := cli.NewMain(bytes.NewReader(stdin), &out, &errb)
	m.Now = func() time.Time { return now }
	m.Getenv = func(string) string { return "" }
	code = m.Run(context.Background(), args)
	return code, out.String(), errb.String()
}
