package report

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
)

// handLines are the raw billing lines of the workbook tests:
//
//   - a monthly rental of ¥4,320 for November (30 days), 2026-11-01 00:00 to
//     2026-12-01 00:00 Shanghai: the week [16, 23) is 7/30 of it, ¥1,008.00;
//   - an hourly line with a hostile resource name and team tag, inside the week;
//   - a tax line with no cost at all (null, not zero).
func handLines(t testing.TB) []finops.BillingLine {
	loc := shanghai(t)
	d := func(s string) *decimal.Decimal { v := decimal.RequireFromString(s); return &v }
	return []finops.BillingLine{
		{Line: 2, Provider: "acme", ChargeStart: time.Date(2026, 11, 1, 0, 0, 0, 0, loc), ChargeEnd: time.Date(2026, 12, 1, 0, 0, 0, 0, loc),
			ChargeCategory: finops.ChargeUsage, PricingMode: finops.ModeMonthly, ResourceID: "gpu-a100-1", GPUModel: "A100-80GB", GPUCount: 8,
			BilledCost: d("4320"), EffectiveCost: d("4320.00"), Currency: "CNY", UsageQuantity: d("720"), UsageUnit: "Hours",
			Tags: map[string]string{"team": "ml-train", "project": "llm"}},
		{Line: 3, Provider: "hostcloud", ChargeStart: time.Date(2026, 11, 18, 14, 0, 0, 0, time.UTC), ChargeEnd: time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC),
			ChargeCategory: finops.ChargeUsage, ResourceID: "-1", ResourceName: hostileFormula, GPUModel: "L40S", GPUCount: 1,
			BilledCost: d("-2.5"), Currency: "CNY", Tags: map[string]string{"team": hostileFormula}},
		{Line: 4, ChargeStart: time.Date(2026, 11, 18, 0, 0, 0, 0, time.UTC), ChargeEnd: time.Date(2026, 11, 18, 0, 0, 0, 0, time.UTC),
			ChargeCategory: finops.ChargeTax, Currency: "CNY"},
	}
}

func writeBook(t *testing.T, r *analysis.Result) ([]byte, *excelize.File) {
	t.Helper()
	meta := testMeta()
	meta.Lines = linesOf(handLines(t))
	return writeBookMeta(t, r, meta)
}

func writeBookMeta(t *testing.T, r *analysis.Result, meta Meta) ([]byte, *excelize.File) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, r, meta); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("workbook does not reopen: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return buf.Bytes(), f
}

// TestSheetNamesValid: Excel allows at most 31 UTF-16 code units, none of
// : \ / ? * [ ], no apostrophe at either end and not "History". No sheet is
// named after data, so the constant names are all there is to check.
func TestSheetNamesValid(t *testing.T) {
	for _, name := range sheetOrder {
		if n := len(utf16.Encode([]rune(name))); n == 0 || n > 31 || strings.ContainsAny(name, `:\/?*[]`) ||
			strings.HasPrefix(name, "'") || strings.HasSuffix(name, "'") || strings.EqualFold(name, "History") {
			t.Errorf("sheet %q is not a valid sheet name", name)
		}
	}
}

func TestWriteXLSXSheetsAndHeaders(t *testing.T) {
	_, f := writeBook(t, handResult(t))
	if got := f.GetSheetList(); !slices.Equal(got, sheetOrder) {
		t.Fatalf("sheets = %q, want %q", got, sheetOrder)
	}
	headers := map[string][]string{
		sheetSummary:  {"Metric", "Value"},
		sheetFindings: {"Severity", "Finding", "Team", "Resource ID", "Money at stake", "Basis", "What to do"},
		sheetTeams: {"Team", "Cost", "GPU cost", "Idle cost", "Idle share of cost", "Monthly budget", "Previous period cost",
			"Change vs previous period", "Month to date", "Month-end forecast", "Forecast share of budget"},
		sheetTasks: {"Task", "Team", "Kind", "Cost", "GPU-hours", "Idle cost", "Units", "Unit", "Unit cost"},
		// The printed columns first (xlsx_print.go), then the rest.
		sheetResources: {"Resource ID", "Team", "GPU model", "GPUs", "Cost", "Idle cost", "Avg utilization",
			"GPU-hours billed", "GPU-hours idle", "Unmonitored cost", "Name", "Provider", "Pricing",
			"GPU-hours active", "GPU-hours unmonitored", "Previous period cost", "GPU-h <10% (idle band)", "GPU-h 10–50% (low)",
			"GPU-h 50–80% (fair)", "GPU-h 80–95% (target)", "GPU-h >95% (saturated)", "Longest >95% run (h)"},
		sheetIdle: {"Resource ID", "GPU", "Start (Asia/Shanghai)", "End (Asia/Shanghai)", "Hours", "Cost"},
		sheetRecs: {"Resource ID", "Action", "Monthly savings", "Current monthly cost", "Recommended monthly cost",
			"Confidence", "Reason", "GPU model", "GPUs", "Current mode", "Active hours/month per GPU", "Breakeven hours/month",
			"Advice ID"},
		sheetPools: {"Provider", "GPU model", "Resources", "GPUs", "Current monthly cost", "Monthly cards",
			"Pool monthly cost", "Monthly savings", "Reason"},
		sheetUtil: {"Resource ID", "GPU", "Hour (Asia/Shanghai)", "Utilization", "Band"},
		sheetLines: {"Provider", "Billing account", "Sub-account", "Charge start (Asia/Shanghai)", "Charge end (Asia/Shanghai)",
			"Charge category", "Charge class", "Charge frequency", "Pricing category", "Pricing mode", "Commitment status",
			"Commitment ID", "Resource ID", "Resource name", "Resource type", "Service", "SKU", "Instance type", "Region",
			"GPU model", "GPUs", "Billed cost", "Effective cost", "List cost", "Currency", "Usage quantity", "Usage unit",
			"Share in period", "Cost in period (line currency)", "Cost in period (CNY)", "Tag: team", "Tags", "Source line"},
	}
	for sheet, want := range headers {
		rows, err := f.GetRows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if sheet == sheetSummary && len(rows) > 0 && len(rows[0]) > 2 {
			rows[0] = rows[0][:2] // the chart helper tables start in column D
		}
		if len(rows) == 0 || !slices.Equal(rows[0], want) {
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
		// Column widths are set, not Excel's narrow default.
		if w, _ := f.GetColWidth(sheet, "A"); w < 8 {
			t.Errorf("%s column A width = %v", sheet, w)
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
		sheetTeams:     "'By team'!$A$1:$K$3",
		sheetResources: "'By resource'!$A$1:$V$4",
		sheetRecs:      "'Recommendations'!$A$1:$M$4",
		sheetFindings:  "'Findings'!$A$1:$G$5",
		sheetUtil:      "'Utilization (hourly)'!$A$1:$E$7", // streamed: exactly the rows written
		sheetLines:     "'Billing lines'!$A$1:$AG$4",
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
		{sheetSummary, "B3", num(46342)}, // 2026-11-16 00:00 local as an Excel serial
		{sheetSummary, "B5", txt("Asia/Shanghai")},
		{sheetSummary, "B6", txt("CNY")},
		{sheetSummary, "B7", txt("All teams")},
		{sheetSummary, "A10", txt("Total cost")},
		{sheetSummary, "B10", num(4500)},
		{sheetSummary, "B11", num(4000)},           // previous period: 3700 + 300
		{sheetSummary, "B12", num(0.125)},          // 4500 / 4000 − 1
		{sheetSummary, "B16", num(830)},            // idle cost
		{sheetSummary, "B17", num(830.0 / 4500.0)}, // idle share of total
		{sheetSummary, "B18", num(600)},            // allocated but idle
		{sheetSummary, "B26", num(0.52)},           // 52 % utilization stored as a fraction
		{sheetSummary, "B27", num(5040)},           // monthly savings
		{sheetSummary, "B28", num(4)},              // findings
		{sheetSummary, "B30", num(2)},              // rows rejected
		{sheetSummary, "A31", txt("Generated at")},
		{sheetSummary, "B31", num(46349 + 9.5/24)}, // 2026-11-23 09:30 local
		{sheetSummary, "O2", txt("2026-11-16")},    // daily helper table
		{sheetSummary, "P1", txt("ml-train")},      // largest team first
		{sheetSummary, "P2", num(520)},             // 480 A100 + 40 non-GPU
		{sheetSummary, "Q2", num(30)},              // hostile team on the 16th
		{sheetSummary, "O4", txt("2026-11-18")},    // the day without cost is kept ...
		{sheetSummary, "P4", num(0)},               // ... as zero
		{sheetSummary, "P5", num(100)},             // 19th
		{sheetSummary, "O8", txt("Resource")},      // idle helper table, two rows below
		{sheetSummary, "O9", txt("gpu-a100-1")},    // largest idle cost first
		{sheetSummary, "P9", num(750)},
		{sheetSummary, "P10", num(80)},
		{sheetSummary, "O13", txt("GPU model")}, // utilization helper table
		{sheetSummary, "O14", txt("A100-80GB")},
		{sheetSummary, "P14", num(0.555)},
		{sheetSummary, "Q15", num(100)}, // L40S GPU-hours
		{sheetFindings, "A2", txt("high")},
		{sheetFindings, "B2", txt("Switch to hourly")},
		{sheetFindings, "E2", num(4800)},
		{sheetFindings, "F2", txt("per month")},
		{sheetFindings, "F3", txt("in period")},
		{sheetFindings, "D4", txt(hostileScript)},
		{sheetTeams, "E2", num(750.0 / 4160.0)},
		{sheetTeams, "F2", num(20000)},
		{sheetTeams, "G2", num(3700)},
		{sheetTeams, "H2", num(4160.0/3700.0 - 1)},
		{sheetTeams, "I2", num(9000)},
		{sheetTeams, "J2", num(21000)},
		{sheetTeams, "K2", num(1.05)}, // over budget
		{sheetTeams, "K3", blank},     // no budget
		{sheetTasks, "I2", num(1000)}, // unit cost
		{sheetTasks, "I3", blank},     // no units: blank, not 0
		{sheetResources, "A3", txt(hostileScript)},
		{sheetResources, "G2", num(0.555)}, // the printed columns come first (xlsx_print.go)
		{sheetResources, "P2", num(3000)},
		{sheetResources, "P3", blank}, // no previous cost: blank
		{sheetResources, "Q2", num(300)},
		{sheetResources, "U2", num(50)},
		{sheetResources, "V2", num(2.5)},
		{sheetIdle, "C2", num(46343.375)},      // 2026-11-17 09:00 local
		{sheetIdle, "D3", num(46345 + 0.5/24)}, // 2026-11-19 00:30 local
		{sheetRecs, "A2", txt("gpu-h100-2")},   // order as given
		{sheetRecs, "B4", txt("Switch to hourly")},
		{sheetRecs, "L2", blank}, // breakeven unknown: blank
		{sheetRecs, "L4", num(438)},
		{sheetPools, "F2", num(5)},
		{sheetPools, "H2", num(2400)},
		{sheetUtil, "A2", txt("gpu-a100-1")},
		{sheetUtil, "C2", num(46342)}, // 2026-11-16 00:00 local
		{sheetUtil, "D2", num(0.05)},
		{sheetUtil, "E2", txt("idle")},
		{sheetUtil, "C3", num(46342 + 1.0/24)},
		{sheetUtil, "D4", blank}, // unmonitored hour: blank, not 0
		{sheetUtil, "E4", txt("unmonitored")},
		{sheetUtil, "E7", txt("saturated")}, // 97 %
		{sheetLines, "A2", txt("acme")},
		{sheetLines, "D2", num(46327)}, // 2026-11-01 00:00 local
		{sheetLines, "E2", num(46357)}, // 2026-12-01 00:00 local
		{sheetLines, "U2", num(8)},
		{sheetLines, "V2", num(4320)},
		{sheetLines, "AB2", num(7.0 / 30)}, // the week is 7 of November's 30 days
		{sheetLines, "AC2", num(1008)},     // 4320 × 7/30
		{sheetLines, "AD2", num(1008)},     // in CNY, the reporting currency
		{sheetLines, "AE2", txt("ml-train")},
		{sheetLines, "AF2", txt(`{"project":"llm","team":"ml-train"}`)},
		{sheetLines, "AG2", num(2)},
		{sheetLines, "D3", num(46344 + 22.0/24)}, // 14:00 UTC is 22:00 in Shanghai
		{sheetLines, "M3", txt("'-1")},           // a text id that looks like a number stays text, inert
		{sheetLines, "V3", num(-2.5)},            // credits stay negative numbers
		{sheetLines, "W3", blank},                // no effective cost: blank
		{sheetLines, "AC3", num(-2.5)},           // billed cost is the basis, fully inside
		{sheetLines, "V4", blank},                // a null cost is blank, never 0
		{sheetLines, "AB4", num(1)},              // an instant inside the period
		{sheetLines, "AC4", blank},
		{sheetLines, "AD4", blank},
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
			if typ, _ := f.GetCellType(tt.sheet, tt.cell); typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset {
				t.Errorf("%s!%s type = %v, want a number cell", tt.sheet, tt.cell, typ)
			}
		}
	}
}

func TestWriteXLSXNumberFormats(t *testing.T) {
	tests := []struct {
		currency, sheet, cell, want string
	}{
		{"CNY", sheetSummary, "B10", `"¥"#,##0.00`},
		{"USD", sheetTeams, "B2", `"$"#,##0.00`},
		{"EUR", sheetResources, "E2", `"€"#,##0.00`},
		{"CHF", sheetRecs, "C2", `#,##0.00 "CHF"`},
		{"CNY", sheetTasks, "I2", `"¥"#,##0.0000`},
		{"CNY", sheetSummary, "B17", `0.0%`},
		{"CNY", sheetSummary, "B3", `yyyy-mm-dd hh:mm`},
		{"CNY", sheetTeams, "K2", `0.0%`},
		{"CNY", sheetResources, "H2", `#,##0.0`},
		{"CNY", sheetIdle, "C2", `yyyy-mm-dd hh:mm`},
		{"CNY", sheetFindings, "E2", `"¥"#,##0.00`},
		{"CNY", sheetUtil, "C2", `yyyy-mm-dd hh:mm`},
		{"CNY", sheetUtil, "D2", `0.0%`},
		{"CNY", sheetLines, "D2", `yyyy-mm-dd hh:mm`},
		{"CNY", sheetLines, "V2", `"¥"#,##0.00`},  // the line's own currency, CNY
		{"USD", sheetLines, "AC2", `"¥"#,##0.00`}, // the line's CNY in a USD report
		{"CNY", sheetLines, "AD2", `"¥"#,##0.00`}, // the reporting currency's column
		{"CNY", sheetLines, "AB2", `0.0%`},
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
		{sheetTeams, "A3"}, {sheetTasks, "A3"}, {sheetTasks, "B3"}, {sheetResources, "B3"}, {sheetSummary, "Q1"},
		{sheetFindings, "C4"},
		{sheetLines, "N3"},  // resource name (streamed sheet)
		{sheetLines, "AE3"}, // the hostile =HYPERLINK(...) team tag
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
	// No cell anywhere in the workbook holds a formula: every value we write
	// is data.
	for _, sheet := range f.GetSheetList() {
		rows, err := f.Rows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		for r := 1; rows.Next(); r++ {
			cols, _ := rows.Columns()
			for c := range cols {
				cell, _ := excelize.CoordinatesToCellName(c+1, r)
				if fm, _ := f.GetCellFormula(sheet, cell); fm != "" {
					t.Errorf("%s!%s has formula %q", sheet, cell, fm)
				}
			}
		}
		rows.Close()
	}
}

func TestWriteXLSXChartsAndProperties(t *testing.T) {
	b, f := writeBook(t, handResult(t))
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]string{}
	for _, zf := range zr.File {
		rc, _ := zf.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		parts[zf.Name] = string(data)
	}
	// Three native charts, all in the one drawing, which belongs to Summary
	// (sheet1): never to a streamed sheet.
	for _, p := range []string{"xl/charts/chart1.xml", "xl/charts/chart2.xml", "xl/charts/chart3.xml", "xl/drawings/drawing1.xml"} {
		if _, ok := parts[p]; !ok {
			t.Errorf("workbook has no %s", p)
		}
	}
	if _, ok := parts["xl/drawings/drawing2.xml"]; ok {
		t.Error("a second drawing: charts outside Summary")
	}
	if !strings.Contains(parts["xl/worksheets/_rels/sheet1.xml.rels"], "drawing1.xml") {
		t.Error("the charts' drawing is not on Summary")
	}
	for i, title := range []string{"Daily cost by team", "Idle cost by resource", "Average utilization by GPU model"} {
		if c := parts["xl/charts/chart"+strconv.Itoa(i+1)+".xml"]; !strings.Contains(c, title) {
			t.Errorf("chart%d is not %q", i+1, title)
		}
	}
	props, err := f.GetDocProps()
	if err != nil {
		t.Fatal(err)
	}
	if props.Title != "finops 2026-W47" || props.Creator != "finops" || props.Subject == "" || props.Description == "" {
		t.Errorf("properties = %+v", props)
	}
	if props.Created != "2026-11-23T01:30:00Z" {
		t.Errorf("created = %q, want the Meta time", props.Created)
	}
}

func TestWriteXLSXTeamScope(t *testing.T) {
	meta := testMeta()
	meta.Team = "ml-train"
	_, f := writeBookMeta(t, handResult(t), meta)
	if got := raw(t, f, sheetSummary, "B7"); got != "Team ml-train" {
		t.Errorf("scope = %q", got)
	}
	props, _ := f.GetDocProps()
	if props.Title != "finops 2026-W47 · team ml-train" {
		t.Errorf("title = %q", props.Title)
	}
}

func TestWriteXLSXEmptyResult(t *testing.T) {
	b, f := writeBookMeta(t, &analysis.Result{}, Meta{})
	if got := f.GetSheetList(); !slices.Equal(got, sheetOrder) {
		t.Errorf("sheets = %q", got)
	}
	zr, _ := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	for _, zf := range zr.File {
		if zf.Name == "xl/charts/chart1.xml" {
			t.Error("empty result has a chart")
		}
	}
	// The streamed sheets still have their header row.
	if got := raw(t, f, sheetLines, "A1"); got != "Provider" {
		t.Errorf("Billing lines A1 = %q", got)
	}
}

func TestWriteXLSXLineSourceError(t *testing.T) {
	boom := errors.New("database went away")
	meta := testMeta()
	meta.Lines = func(yield func(*finops.BillingLine) error) error {
		lines := handLines(t)
		if err := yield(&lines[0]); err != nil {
			return err
		}
		return boom
	}
	err := WriteXLSX(io.Discard, handResult(t), meta)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the line source's error", err)
	}
}

// TestStreamedSheetsContinue: past a sheet's row limit (Excel's 1,048,576;
// 3 here: the header and two rows) the rows go on in "<sheet> (2)", "(3)" …,
// right after it, each with the header, none lost. handResult has 6
// GPU-hours (three sheets of two) and handLines 3 lines (two sheets: two and
// one).
func TestStreamedSheetsContinue(t *testing.T) {
	meta := testMeta()
	meta.Lines = linesOf(handLines(t))
	_, whole := writeBookMeta(t, handResult(t), meta)
	meta.sheetRows = 3
	_, f := writeBookMeta(t, handResult(t), meta)

	sheets := f.GetSheetList()
	at := slices.Index(sheets, sheetUtil)
	want := []string{sheetUtil, sheetUtil + " (2)", sheetUtil + " (3)", sheetLines, sheetLines + " (2)"}
	if at < 0 || len(sheets) != at+len(want) || !slices.Equal(sheets[at:], want) {
		t.Fatalf("sheets %q: want %q at the end", sheets, want)
	}
	for _, s := range [][]string{want[:3], want[3:]} {
		all, err := whole.GetRows(s[0])
		if err != nil {
			t.Fatal(err)
		}
		var got [][]string
		for i, name := range s {
			rows, err := f.GetRows(name)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) == 0 || !slices.Equal(rows[0], all[0]) {
				t.Errorf("%s: header %q, want %q", name, rows[0], all[0])
			}
			if n := len(rows) - 1; n > 2 || n == 0 || i < len(s)-1 && n != 2 {
				t.Errorf("%s: %d data rows", name, n)
			}
			got = append(got, rows[1:]...)
		}
		if len(got) != len(all)-1 {
			t.Errorf("%s: %d rows in its sheets, want %d", s[0], len(got), len(all)-1)
		}
		for i := range min(len(got), len(all)-1) {
			if !slices.Equal(got[i], all[i+1]) {
				t.Errorf("%s row %d: %q, want %q", s[0], i+1, got[i], all[i+1])
			}
		}
	}
}
