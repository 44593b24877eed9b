package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/golden"
)

// TestExample plans the shipped example file: every scenario gets a plan,
// the worked case budgets ¥39,000, and the root copy is the same file.
func TestExample(t *testing.T) {
	path := "testdata/scenarios.example.yaml" // slashes: the path is in the golden table
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.ReadFile(filepath.Join("..", "..", "scenarios.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(root, want) {
		t.Errorf("../scenarios.example.yaml and %s differ; keep them the same", path)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Total.Unplanned) != 0 || len(r.Warnings) != 0 {
		t.Errorf("unplanned %v, warnings %v", r.Total.Unplanned, r.Warnings)
	}
	for _, s := range r.Scenarios {
		if len(s.Warnings) != 0 {
			t.Errorf("%s: warnings %v", s.Name, s.Warnings)
		}
		if s.Plan == nil || !s.Plan.MeetsDeadline {
			t.Errorf("%s: plan %+v", s.Name, s.Plan)
		}
	}
	if p := scenario(t, r, "worked-case-20b-lora").Plan; p.CostLow != 39000 {
		t.Errorf("worked case = %v, want 39,000", p.CostLow)
	}
	var tb bytes.Buffer
	if err := WriteTable(&tb, r); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "table.golden.txt", tb.Bytes())
}

// TestWorkbook writes a workbook and reads its cells back, including a
// scenario name that would be a formula in a CSV export.
func TestWorkbook(t *testing.T) {
	r := planYAML(t, testCatalog+`
scenarios:
  - {name: "=HYPERLINK(\"http://x\")", `+testJob[1:]+`}
  - {name: huge, kind: data, memory_gb: 500, hours: 1, parallelism: replicate}
`)
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, r); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := []string{"Plan", "Memory", "GPUs", "Options", "Assumptions", "GPU specs", "Prices"}
	if got := f.GetSheetList(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("sheets = %v, want %v", got, want)
	}
	cell := func(sheet, ref string) string {
		t.Helper()
		v, err := f.GetCellValue(sheet, ref, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := cell("Plan", "A2"); got != `'=HYPERLINK("http://x")` {
		t.Errorf("A2 = %q, want the name with a leading apostrophe", got)
	}
	if formula, _ := f.GetCellFormula("Plan", "A2"); formula != "" {
		t.Errorf("A2 has a formula: %q", formula)
	}
	// The hourly job of TestJobBudget: ¥162.50, 10 card-hours × 1.25.
	if got := cell("Plan", "L2"); got != "162.5" {
		t.Errorf("budget L2 = %q, want 162.5", got)
	}
	if got := cell("Plan", "K2"); got != "12.5" {
		t.Errorf("card-hours K2 = %q, want 12.5", got)
	}
	if got := cell("Plan", "H3"); got != "no plan" {
		t.Errorf("H3 = %q, want no plan", got)
	}
	if got := cell("Plan", "A4"); got != "TOTAL" || cell("Plan", "L4") != "162.5" {
		t.Errorf("total row = %q %q", got, cell("Plan", "L4"))
	}
	if got := cell("Plan", "Q2"); !strings.Contains(got, "10.00 card-hours × (1 + 0.25 buffer) × ¥10.00/card-hour × risk 1.3 = ¥162.50") {
		t.Errorf("how = %q", got)
	}
	rows, err := f.GetRows("Options")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 { // header + hourly + monthly of the first scenario
		t.Errorf("options rows = %d, want 3", len(rows))
	}
	if panes, err := f.GetPanes("Plan"); err != nil || !panes.Freeze {
		t.Errorf("Plan header not frozen: %+v %v", panes, err)
	}
}

func TestTableAndExplainAreSafe(t *testing.T) {
	r := planYAML(t, testCatalog+`
scenarios:
  - {name: "evil\u001b[31mred", `+testJob[1:]+`, notes: "line\nbreak"}
`)
	var b bytes.Buffer
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteExplain(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(b.String(), 0x1b) {
		t.Errorf("an escape sequence reached the terminal:\n%q", b.String())
	}
	contains(t, "output", b.String(), "evil\uFFFD[31mred", "line\uFFFDbreak", "¥162.50")
}

// TestWorkbookPrintSetup: every sheet of the plan workbook prints landscape,
// one page wide, with its header row on every page (workbook.PrintSetup).
func TestWorkbookPrintSetup(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, planYAML(t, testCatalog+"scenarios:\n  - {name: job, "+testJob[1:]+"}\n")); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	titles := map[string]string{}
	for _, dn := range f.GetDefinedName() {
		if dn.Name == "_xlnm.Print_Titles" {
			titles[dn.Scope] = dn.RefersTo
		}
	}
	for _, sheet := range f.GetSheetList() {
		pl, err := f.GetPageLayout(sheet)
		if err != nil {
			t.Fatal(err)
		}
		props, err := f.GetSheetProps(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if pl.Orientation == nil || *pl.Orientation != "landscape" || pl.FitToWidth == nil || *pl.FitToWidth != 1 ||
			props.FitToPage == nil || !*props.FitToPage || titles[sheet] != "'"+sheet+"'!$1:$1" {
			t.Errorf("%s: layout %+v, fit to page %v, print titles %q", sheet, pl, props.FitToPage, titles[sheet])
		}
	}
}
