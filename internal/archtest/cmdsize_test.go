package archtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxCmdLines bounds cmd/finops' non-test lines (issue #28): the CLI is
// flags, wiring and the exit-code table; a pipeline that grows there
// belongs in a package of its own, with its own tests and its row in
// docs/ARCHITECTURE.md.
const maxCmdLines = 2500

// TestCmdStaysThin counts cmd/finops' non-test lines as `wc -l` does.
func TestCmdStaysThin(t *testing.T) {
	dir := filepath.Join("..", "..", "cmd", "finops")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
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
		t.Errorf("cmd/finops has %d non-test lines, more than %d: move the pipeline you added into a package (docs/ARCHITECTURE.md)", total, maxCmdLines)
	}
}
