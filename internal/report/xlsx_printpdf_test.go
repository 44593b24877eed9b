package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/testenv"
)

// maxFleetPages is issue 33's bound: a four-team fleet's workbook, the
// fleet's and each team's, prints on 12 pages or fewer. Before, one printed
// on 49 A4 pages, 34 of them hourly utilization.
const maxFleetPages = 12

// TestWorkbooksPrint prints every workbook kind report's tests check on
// paper in ONE LibreOffice conversion (it starts in seconds, then converts
// each file in well under one): the fleet's and a team's (fleet), and the
// Findings sheet per zone (findings, findingsPrintCases).
//
// fleet: a four-team fleet of 32 GPUs on 8 resources (a
// week of hourly utilization is 5,376 rows, about 140 pages printed) and 300
// billing lines: LibreOffice prints the fleet's workbook and a team's on 12
// landscape pages or fewer, A4 for Shanghai and Letter for New York, with no
// text under 8 pt. Page sizes and text
// sizes are read back from the PDF (pdfPages).
func TestWorkbooksPrint(t *testing.T) {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		testenv.Missing(t, "soffice not found: install LibreOffice Calc (apt-get install -y libreoffice-calc-nogui) to print the fleet's workbooks and the Findings sheet")
	}
	// Shanghai's workbooks print on A4, New York's on Letter (PaperFor).
	paper := map[string][2]float64{
		"fleet": {297 / 25.4 * 72, 210 / 25.4 * 72}, "nlp": {297 / 25.4 * 72, 210 / 25.4 * 72},
		"fleet-ny": {11 * 72, 8.5 * 72}, "nlp-ny": {11 * 72, 8.5 * 72},
	}
	dir := t.TempDir()
	var files []string
	for _, c := range []struct{ name, team, zone string }{
		{"fleet", "", "Asia/Shanghai"}, {"nlp", "nlp", "Asia/Shanghai"},
		{"fleet-ny", "", "America/New_York"}, {"nlp-ny", "nlp", "America/New_York"},
	} {
		r := fourTeamFleet()
		r.Period.TimeZone = c.zone
		res, meta, name := r, testMeta(), c.name
		meta.Lines = syntheticLines(300)
		if c.team != "" {
			res, meta.Team = r.ForTeam(c.team), c.team
		}
		var buf bytes.Buffer
		if err := WriteXLSX(&buf, res, meta); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".xlsx"), buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	findings := writeFindingsBooks(t, dir)
	args := []string{"--headless", "-env:UserInstallation=file://" + filepath.ToSlash(t.TempDir()), "--convert-to", "pdf", "--outdir", dir}
	for _, f := range append(files, findings...) {
		args = append(args, filepath.Join(dir, f+".xlsx"))
	}
	if b, err := exec.Command(soffice, args...).CombinedOutput(); err != nil {
		t.Fatalf("soffice: %v\n%s", err, b)
	}
	t.Run("findings", func(t *testing.T) { checkFindingsPrinted(t, dir) })
	t.Run("fleet", func(t *testing.T) { checkFleetPrinted(t, dir, files, paper) })
}

// checkFleetPrinted reads back the PDFs of the fleet's and team's workbooks.
func checkFleetPrinted(t *testing.T, dir string, files []string, paper map[string][2]float64) {
	for _, f := range files {
		w, h := paper[f][0], paper[f][1] // landscape, in PDF points
		pdf, err := os.ReadFile(filepath.Join(dir, f+".pdf"))
		if err != nil {
			t.Fatal(err)
		}
		pages := pdfPages(t, pdf)
		t.Logf("%s workbook: %d pages", f, len(pages))
		if len(pages) == 0 || len(pages) > maxFleetPages {
			t.Errorf("%s workbook prints on %d pages, want 1..%d", f, len(pages), maxFleetPages)
		}
		for i, p := range pages {
			if abs(p.width-w) > 1 || abs(p.height-h) > 1 {
				t.Errorf("%s page %d is %.0f × %.0f pt, want landscape %.0f × %.0f", f, i+1, p.width, p.height, w, h)
			}
			if p.minFont < 8 {
				t.Errorf("%s page %d prints text at %.1f pt, want 8 pt or more", f, i+1, p.minFont)
			}
		}
	}
}

// fourTeamFleet is syntheticResult's fleet of 32 GPUs with its resources,
// findings and recommendations shared by four teams.
func fourTeamFleet() *analysis.Result {
	r := syntheticResult(32)
	teams := []string{"nlp", "cv", "search", "platform"}
	r.ByTeam = r.ByTeam[:len(teams)]
	for i := range r.ByResource {
		team := teams[i%len(teams)]
		r.ByResource[i].Team, r.Findings[i].Team = team, team
		r.Recommendations[i].Reason = strings.Repeat("busy 296 h/month per GPU; monthly pays off above 424 h/month. ", 2)
	}
	return r
}
