package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/golden"
)

// TestGoldenDemo runs `finops demo` with the fixed clock and compares the JSON
// summary and the all-teams email (subject and plain-text body) with their
// golden files. The demo's absolute output folder is replaced by $OUT so the
// files do not depend on where the test runs. The same demo run then serves
// the per-team report and email preview checks, so the suite runs the demo
// once for all three.
//
// The goldens predate telemetry compaction: the demo compacts the days that
// ended more than utilization.hot_days before the clock (2026-11-01 to 11-26)
// into GPU-days, so the same goldens prove a report reads the same numbers
// from compacted days as from minutes. Energy too, since compacted days keep
// each minute's power (schema 14): its figures were rewritten then, and are
// what the same demo gives with nothing compacted (hot_days past the data).
func TestGoldenDemo(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runFinops(t, "demo", "--out", out)
	if code != 0 {
		t.Fatalf("demo exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// 2026-11-23 .. 11-26 of the report's week are compacted, 11-27 .. 11-29 are not.
	if c := counts(t, filepath.Join(out, "demo-data", "finops.db")); c["gpu_days"] == 0 || c["gpu_minutes"] == 0 {
		t.Errorf("demo database: %d GPU-days, %d GPU-minutes: want both (the week spans the compaction cut)", c["gpu_days"], c["gpu_minutes"])
	}
	for _, f := range []struct{ file, golden string }{
		{"finops-2026-W48.json", "summary.json.golden"},
		{"finops-2026-W48.email.txt", "email.txt.golden"},
	} {
		b, err := os.ReadFile(filepath.Join(out, f.file))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, f.golden, databaseID.ReplaceAllLiteral(normaliseOut(b, out), []byte(`"database_id": "`+strings.Repeat("0", 32)+`"`)))
	}
	t.Run("email preview", func(t *testing.T) { checkEmailPreview(t, out) })
	t.Run("team report", func(t *testing.T) { checkTeamReport(t, out) })
	t.Run("workbook printed by LibreOffice", func(t *testing.T) { checkPrintedWorkbook(t, out) })
}

// databaseID is the summary's source.database_id, drawn at random for each
// new database (store.DatabaseID): the golden file has 32 zeros instead,
// an id of the schema's shape (report's TestJSONSchemaValidatesOutput
// validates the golden file).
var databaseID = regexp.MustCompile(`"database_id": "[0-9a-f]{32}"`)

// normaliseOut replaces the test's temporary output folder with $OUT.
func normaliseOut(b []byte, out string) []byte {
	for _, p := range []string{out, filepath.ToSlash(out)} {
		b = bytes.ReplaceAll(b, []byte(p), []byte("$OUT"))
	}
	return b
}
