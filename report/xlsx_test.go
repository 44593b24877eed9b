package report

import (
	"archive/zip"
	"bytes"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/analysis"
)

func writeBook(t *testing.T, r *analysis.Result) ([]byte, *excelize.File) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, r, testMeta()); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("workbook does not reopen: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return buf.Bytes(), f
}

func TestWriteXLSXSheetsAndHeaders(t *testing.T) {
	_, f := writeBook(t, handResult(t))
	want := []string{sheetSummary, sheetTeams, sheetTasks, sheetResources, sheetIdle, sheetRecs}
	if got := f.GetSheetList(); !slices.Equal(got, want) {
		t.Fatalf("sheets = %q, want %q", got, want)
	}
	headers := map[string][]string{
		sheetSummary: {"Metric", "Value"},
		sheetTeams:   {"Team", "Cost", "GPU cost", "Idle cost", "Idle share of cost", "Monthly budget"},
		sheetTasks:   {"Task", "Team", "Kind", "Cost", "GPU-hours", "Idle cost", "Units", "Unit", "Unit cost"},
		sheetResources: {"Resource ID", "Name", "Provider", "GPU model", "GPUs", "Pricing", "Team", "Cost",
			"GPU-hours billed", "GPU-hours active", "GPU-hours idle", "GPU-hours unmonitored", "Idle cost",
			"Unmonitored cost", "Avg utilization"},
		sheetIdle: {"Resource ID", "GPU", "Start (Asia/Shanghai)", "End (Asia/Shanghai)", "Hours", "Cost"},
		sheetRecs: {"Resource ID", "GPU model", "GPUs", "Current mode", "Action", "Current monthly cost",
			"Recommended monthly cost", "Monthly savings", "Active hours/month per GPU", "Breakeven hours/month",
			"Confidence", "Reason"},
	}
	for sheet, want := range headers {
		rows, err := f.GetRows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 || !slices.Equal(rows[0][:min(len(rows[0]), len(want))], want) {
			t.Errorf("%s header = %q, want %q", sheet, rows[0], want)
		}
		// Every table: frozen header row, bold header, autofilter.
		panes, err := f.GetPanes(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if !panes.Freeze || panes.YSplit != 1 || panes.TopLeftCell != "A2" {
			t.Errorf("%s panes = %+v, want the header row frozen", sheet, panes)
		}
		id, _ := f.GetCellStyle(sheet, "A1")
		st, _ := f.GetStyle(id)
		if st == nil || st.Font == nil || !st.Font.Bold {
			t.Errorf("%s header is not bold", sheet)
		}
	}
	// AutoFilter is stored as a hidden defined name per sheet.
	filters := map[string]string{}
	for _, dn := range f.GetDefinedName() {
		if dn.Name == "_xlnm._FilterDatabase" {
			filters[dn.Scope] = dn.RefersTo
		}
	}
	for sheet, ref := range map[string]string{
		sheetTeams:     "'By team'!$A$1:$F$3",
		sheetResources: "'By resource'!$A$1:$O$4",
		sheetRecs:      "'Recommendations'!$A$1:$L$4",
	} {
		if filters[sheet] != ref {
			t.Errorf("%s autofilter = %q, want %q", sheet, filters[sheet], ref)
		}
	}
}

// raw returns a cell's stored value, unformatted.
func raw(t *testing.T, f *excelize.File, sheet, cell string) string {
	t.Helper()
	v, err := f.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestWriteXLSXValues(t *testing.T) {
	_, f := writeBook(t, handResult(t))
	// A cell expectation: text (exact), number (within 1e-9) or blank.
	type want struct {
		kind byte // 't', 'n', 'b'
		text string
		num  float64
	}
	txt := func(s string) want { return want{kind: 't', text: s} }
	num := func(n float64) want { return want{kind: 'n', num: n} }
	blank := want{kind: 'b'}
	tests := []struct {
		sheet, cell string
		want        want
	}{
		{sheetSummary, "A2", txt("Period")},
		{sheetSummary, "B2", txt("2026-W47")},
		{sheetSummary, "B5", txt("Asia/Shanghai")},
		{sheetSummary, "B6", txt("CNY")},
		{sheetSummary, "A7", txt("Total cost")},
		{sheetSummary, "B7", num(4500)},
		{sheetSummary, "B11", num(830)},            // idle cost
		{sheetSummary, "B12", num(830.0 / 4500.0)}, // idle share of total
		{sheetSummary, "B20", num(0.52)},           // 52 % utilization stored as a fraction
		{sheetSummary, "B21", num(5040)},           // monthly savings
		{sheetSummary, "B3", num(46342)},           // 2026-11-16 00:00 local as an Excel serial
		{sheetSummary, "D2", txt("2026-11-16")},    // daily helper table
		{sheetSummary, "E1", txt("ml-train")},      // largest team first
		{sheetSummary, "E2", num(520)},             // 480 A100 + 40 non-GPU
		{sheetSummary, "F2", num(30)},              // hostile team on the 16th
		{sheetSummary, "D4", txt("2026-11-18")},    // the day without cost is kept ...
		{sheetSummary, "E4", num(0)},               // ... as zero
		{sheetSummary, "E5", num(100)},             // 19th
		{sheetSummary, "D8", txt("Resource")},      // idle helper table, two rows below
		{sheetSummary, "D9", txt("gpu-a100-1")},    // largest idle cost first
		{sheetSummary, "E9", num(750)},
		{sheetSummary, "E10", num(80)},
		{sheetTeams, "E2", num(750.0 / 4160.0)},
		{sheetTeams, "F2", num(20000)},
		{sheetTeams, "F3", blank},     // no budget: blank
		{sheetTasks, "I2", num(1000)}, // unit cost
		{sheetTasks, "I3", blank},     // no units: blank, not 0
		{sheetResources, "A3", txt(hostileScript)},
		{sheetResources, "O2", num(0.555)},
		{sheetIdle, "C2", num(46343.375)},      // 2026-11-17 09:00 local
		{sheetIdle, "D3", num(46345 + 0.5/24)}, // 2026-11-19 00:30 local
		{sheetRecs, "A2", txt("gpu-h100-2")},   // order as given
		{sheetRecs, "E4", txt("Switch to hourly")},
		{sheetRecs, "J2", blank}, // breakeven unknown: blank
		{sheetRecs, "J4", num(438)},
	}
	for _, tt := range tests {
		got := raw(t, f, tt.sheet, tt.cell)
		switch tt.want.kind {
		case 't':
			if got != tt.want.text {
				t.Errorf("%s!%s = %q, want %q", tt.sheet, tt.cell, got, tt.want.text)
			}
		case 'b':
			if got != "" {
				t.Errorf("%s!%s = %q, want blank", tt.sheet, tt.cell, got)
			}
		case 'n':
			n, err := strconv.ParseFloat(got, 64)
			if err != nil || math.Abs(n-tt.want.num) > 1e-9 {
				t.Errorf("%s!%s = %q, want %v", tt.sheet, tt.cell, got, tt.want.num)
			}
		}
	}
}

func TestWriteXLSXNumberFormats(t *testing.T) {
	tests := []struct {
		currency, sheet, cell, want string
	}{
		{"CNY", sheetSummary, "B7", `"¥"#,##0.00`},
		{"USD", sheetTeams, "B2", `"$"#,##0.00`},
		{"EUR", sheetResources, "H2", `"€"#,##0.00`},
		{"GBP", sheetRecs, "H2", `#,##0.00 "GBP"`},
		{"CNY", sheetTasks, "I2", `"¥"#,##0.0000`},
		{"CNY", sheetSummary, "B12", `0.0%`},
		{"CNY", sheetResources, "I2", `#,##0.0`},
		{"CNY", sheetIdle, "C2", `yyyy-mm-dd hh:mm`},
	}
	for _, tt := range tests {
		r := handResult(t)
		r.Currency = tt.currency
		_, f := writeBook(t, r)
		id, err := f.GetCellStyle(tt.sheet, tt.cell)
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.GetStyle(id)
		if err != nil {
			t.Fatal(err)
		}
		if st.CustomNumFmt == nil || *st.CustomNumFmt != tt.want {
			got := "<nil>"
			if st.CustomNumFmt != nil {
				got = *st.CustomNumFmt
			}
			t.Errorf("%s %s!%s number format = %s (NumFmt %d), want %s", tt.currency, tt.sheet, tt.cell, got, st.NumFmt, tt.want)
		}
	}
}

func TestWriteXLSXHostileTextIsInert(t *testing.T) {
	_, f := writeBook(t, handResult(t))
	for _, c := range []struct{ sheet, cell string }{
		{sheetTeams, "A3"}, {sheetTasks, "A3"}, {sheetTasks, "B3"}, {sheetResources, "G3"}, {sheetSummary, "F1"},
	} {
		formula, err := f.GetCellFormula(c.sheet, c.cell)
		if err != nil {
			t.Fatal(err)
		}
		if formula != "" {
			t.Errorf("%s!%s has formula %q", c.sheet, c.cell, formula)
		}
		typ, _ := f.GetCellType(c.sheet, c.cell)
		if typ != excelize.CellTypeSharedString && typ != excelize.CellTypeInlineString {
			t.Errorf("%s!%s type = %v, want a string cell", c.sheet, c.cell, typ)
		}
		if got := raw(t, f, c.sheet, c.cell); got != "'"+hostileFormula {
			t.Errorf("%s!%s = %q, want the formula text behind an apostrophe", c.sheet, c.cell, got)
		}
	}
}

func TestWriteXLSXChartsAndProperties(t *testing.T) {
	b, f := writeBook(t, handResult(t))
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]bool{}
	for _, zf := range zr.File {
		parts[zf.Name] = true
	}
	for _, p := range []string{"xl/charts/chart1.xml", "xl/charts/chart2.xml", "xl/drawings/drawing1.xml"} {
		if !parts[p] {
			t.Errorf("workbook has no %s", p)
		}
	}
	props, err := f.GetDocProps()
	if err != nil {
		t.Fatal(err)
	}
	if props.Title != "finops 2026-W47" || props.Creator != "finops" {
		t.Errorf("properties = title %q creator %q", props.Title, props.Creator)
	}
	if props.Created != "2026-11-23T01:30:00Z" {
		t.Errorf("created = %q, want the Meta time", props.Created)
	}
}

func TestWriteXLSXEmptyResult(t *testing.T) {
	b, f := writeBook(t, &analysis.Result{})
	if len(f.GetSheetList()) != 6 {
		t.Errorf("sheets = %q", f.GetSheetList())
	}
	zr, _ := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	for _, zf := range zr.File {
		if zf.Name == "xl/charts/chart1.xml" {
			t.Error("empty result has a chart")
		}
	}
}
