package archtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxCmdLines bounds the CLI's non-test lines, cmd/finops' and
// internal/cli's together (issue #28): the CLI is
// flags, wiring and the exit-code table; a pipeline that grows there
// belongs in a package of its own, with its own tests and its row in
// docs/ARCHITECTURE.md.
const maxCmdLines = 2500

// TestCmdStaysThin counts the CLI's non-test lines as `wc -l` does.
func TestCmdStaysThin(t *testing.T) {
	var files []string
	for _, dir := range []string{filepath.Join("..", "..", "cmd", "finops"), filepath.Join("..", "cli")} {
		fs, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(fs) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		files = append(files, fs...)
	}
	total := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total += bytes.Count(b, []byte("\n"))
	}
	if total > maxCmdLines {
		t.Errorf("cmd/finops and internal/cli have %d non-test lines, more than %d: move the pipeline you added into a package (docs/ARCHITECTURE.md)", total, maxCmdLines)
	}
}
