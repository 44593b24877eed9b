package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/testnum"
)

// checkTeamReport: `finops report --team nlp` over the demo's database in out
// writes finops-<week>-nlp.* with only nlp's rows: its team row, its
// resources, its raw billing lines; and an unknown team is a usage error that
// names the teams there are. (A subtest of TestGoldenDemo, which has run the
// demo.) No --db: the demo's config names its own database, and report
// refuses a missing one, so this fails if the config stops naming it.
func checkTeamReport(t *testing.T, out string) {
	cfg := filepath.Join(out, "demo-data", "finops.yaml")
	db := filepath.Join(out, "demo-data", "finops.db")
	dir := filepath.Join(out, "nlp")
	code, stdout, stderr := runFinops(t, "--config", cfg, "report", "--week", "2026-W48", "--team", "NLP", "--out", dir)
	if code != 0 {
		t.Fatalf("report --team: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "finops 2026-W48 · team nlp") {
		t.Errorf("summary does not name the team:\n%s", stdout)
	}
	for _, ext := range []string{"xlsx", "html", "json"} {
		if _, err := os.Stat(filepath.Join(dir, "finops-2026-W48-nlp."+ext)); err != nil {
			t.Error(err)
		}
	}
	s := readSummary(t, filepath.Join(dir, "finops-2026-W48-nlp.json"))
	if len(s.ByTeam) != 1 || s.ByTeam[0].Team != "nlp" {
		t.Errorf("by_team = %+v, want nlp only", s.ByTeam)
	}
	var resources []string
	for _, r := range s.ByResource {
		resources = append(resources, r.ResourceID)
		if r.Team != "nlp" {
			t.Errorf("resource %s of team %s in nlp's report", r.ResourceID, r.Team)
		}
	}
	if !slices.Contains(resources, "autodl-a100x2") {
		t.Errorf("resources = %v, want nlp's A100 pair", resources)
	}
	for _, r := range s.Recommendations {
		if !slices.Contains(resources, r.ResourceID) {
			t.Errorf("recommendation for %s, not an nlp resource", r.ResourceID)
		}
	}
	for _, tk := range s.Tasks {
		if tk.Team != "nlp" {
			t.Errorf("task %s of team %s in nlp's report", tk.Task, tk.Team)
		}
	}
	testnum.Near(t, "nlp cost", s.Totals.Cost, s.ByTeam[0].Cost, 0.005)

	// The raw lines in the workbook: only nlp's resources (and non-GPU lines
	// that analysis gives nlp).
	f, err := excelize.OpenFile(filepath.Join(dir, "finops-2026-W48-nlp.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows("Billing lines")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 {
		t.Fatalf("nlp's workbook has no billing lines")
	}
	col := slices.Index(rows[0], "Resource ID")
	for _, row := range rows[1:] {
		if col < len(row) && row[col] != "" && !slices.Contains(resources, row[col]) {
			t.Errorf("billing line of %s in nlp's workbook", row[col])
		}
	}

	// An unknown team: exit 2, with the teams there are.
	code, _, stderr = runFinops(t, "--config", cfg, "--db", db, "report", "--week", "2026-W48", "--team", "finance", "--out", dir)
	if code != cli.ExitUsage || !strings.Contains(stderr, `"finance"`) || !strings.Contains(stderr, "nlp") {
		t.Errorf("unknown team: exit %d, stderr %q", code, stderr)
	}
}

// checkEmailPreview: the demo in out wrote the all-teams email it would send,
// subject first, and an HTML version without scripts.
func checkEmailPreview(t *testing.T, out string) {
	text, err := os.ReadFile(filepath.Join(out, "finops-2026-W48.email.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(text), "Subject: [finops] 2026-W48 · ¥") ||
		!strings.Contains(string(text), "The workbook finops-2026-W48.xlsx is attached.") {
		t.Errorf("email preview:\n%s", text)
	}
	html, err := os.ReadFile(filepath.Join(out, "finops-2026-W48.email.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html), "<script") || !strings.Contains(string(html), "GPU cost report") {
		t.Errorf("email html preview is not the email body")
	}
}
