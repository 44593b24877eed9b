package e2e

// A report whose last output cannot be written (issue #14, item 8d): the
// out folder keeps none of this run's files, and what was there before
// (last week's report, a file of someone else's) stays as it was.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

// TestHostileReportOutputs: the json (written last) has a folder where its
// file goes, so its rename fails after the workbook and page were written;
// `finops report` and `finops run` exit 1 naming it and leave the out folder
// as it was: no new html, last week's xlsx put back, no temporary files.
func TestHostileReportOutputs(t *testing.T) {
	for _, cmd := range [][]string{
		{"report", "--week", "2026-W48"},
		{"run", "--week", "2026-W48", "--no-upload", "--no-email"},
	} {
		db, _ := hostileDB(t)
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		if err := os.MkdirAll(filepath.Join(out, "finops-2026-W48.json"), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string]string{"finops-2026-W48.xlsx": "last run's workbook", "README": "not finops's"} {
			if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cfg := writeConfig(t, dir, "finops.yaml", "billing: [{path: "+filepath.Join(repoRoot(t), "testdata", "ingest", "autodl_sample.csv")+"}]\n")
		code, stdout, stderr := runFinops(t, append([]string{"--config", cfg, "--db", db}, append(cmd, "--out", out)...)...)
		msg := stdout + stderr
		if code != cli.ExitFailed || !strings.Contains(msg, "finops-2026-W48.json") || !strings.Contains(msg, "none of this report's files were kept") {
			t.Errorf("%s: exit %d, want %d naming the json target; output %.800s", cmd[0], code, cli.ExitFailed, msg)
		}
		entries, _ := os.ReadDir(out)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if want := []string{"README", "finops-2026-W48.json", "finops-2026-W48.xlsx"}; !slices.Equal(names, want) {
			t.Errorf("%s: out folder holds %q, want %q", cmd[0], names, want)
		}
		if b, _ := os.ReadFile(filepath.Join(out, "finops-2026-W48.xlsx")); string(b) != "last run's workbook" {
			t.Errorf("%s: last run's workbook was not put back: %.40q", cmd[0], b)
		}
	}
}
