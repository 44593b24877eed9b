package report

import (
	"archive/zip"
	"bytes"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops"
)

// TestWriteXLSXPrintSetup: every sheet prints landscape, one page wide and
// with its header row on every page (issue #16: LibreOffice printed 92 pages
// with charts split across them); the Summary prints the KPI table and the
// charts, A:M, not the helper tables behind them.
func TestWriteXLSXPrintSetup(t *testing.T) {
	_, f := writeBook(t, handResult(t))
	names := checkPrintSetup(t, f)
	if got := names[sheetSummary+"|_xlnm.Print_Area"]; !strings.HasPrefix(got, "'Summary'!$A$1:$M$") {
		t.Errorf("Summary print area %q, want A1 to column M", got)
	}
}

// TestWriteReviewXLSXPrintSetup: the rent-or-buy review's sheets print the
// same way.
func TestWriteReviewXLSXPrintSetup(t *testing.T) {
	checkPrintSetup(t, openReviewBook(t, reviewFixture(t)))
}

// checkPrintSetup checks every sheet of f for landscape, one page wide and
// its header row repeated, and returns the defined names (scope|name → refers
// to).
func checkPrintSetup(t *testing.T, f *excelize.File) map[string]string {
	t.Helper()
	names := map[string]string{} // scope|name → refers to
	for _, dn := range f.GetDefinedName() {
		names[dn.Scope+"|"+dn.Name] = dn.RefersTo
	}
	for _, sheet := range f.GetSheetList() {
		pl, err := f.GetPageLayout(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if pl.Orientation == nil || *pl.Orientation != "landscape" || pl.FitToWidth == nil || *pl.FitToWidth != 1 ||
			pl.FitToHeight == nil || *pl.FitToHeight != 0 {
			t.Errorf("%s: page layout %+v, want landscape, 1 page wide, any height", sheet, pl)
		}
		if pl.Size == nil {
			t.Errorf("%s: no paper size, so it prints on the spreadsheet program's locale's", sheet)
		}
		props, err := f.GetSheetProps(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if props.FitToPage == nil || !*props.FitToPage {
			t.Errorf("%s: fit to page is off, so the fit to width is ignored", sheet)
		}
		want := "'" + sheet + "'!$1:$1"
		if noPrintSheet.MatchString(sheet) {
			want = "" // left out of printing (checkPrintFit)
		}
		if got := names[sheet+"|_xlnm.Print_Titles"]; got != want {
			t.Errorf("%s: print titles %q, want %q", sheet, got, want)
		}
	}
	return names
}

// TestWriteXLSXCharts: the Summary's charts start in column D beside the KPI
// table (not right of the helper tables, at column K or beyond, off a
// laptop's screen); axis labels are dark grey with titles, not excelize's
// near-white default (tx1 at 15 % luminance + 85 % = #D9D9D9); the idle and
// utilization bar charts are one colour, not one per bar.
func TestWriteXLSXCharts(t *testing.T) {
	data, _ := writeBook(t, handResult(t))
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]string{}
	for _, zf := range zr.File {
		if strings.HasPrefix(zf.Name, "xl/charts/chart") || strings.HasPrefix(zf.Name, "xl/drawings/drawing") {
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			parts[zf.Name] = string(b)
		}
	}
	drawing := parts["xl/drawings/drawing1.xml"]
	// Three anchors, each from column index 3 (D).
	if n, nd := strings.Count(drawing, "<xdr:from>"), strings.Count(drawing, "<xdr:from><xdr:col>3</xdr:col>"); n != 3 || nd != 3 {
		t.Errorf("%d charts, %d of them from column D; want 3 and 3:\n%s", n, nd, drawing)
	}
	titles := map[string]bool{}
	for name, xml := range parts {
		if !strings.HasPrefix(name, "xl/charts/") {
			continue
		}
		for _, ax := range []string{"catAx", "valAx"} { // excelize writes the chart namespace as the default
			_, rest, ok := strings.Cut(xml, "<"+ax+">")
			body, _, _ := strings.Cut(rest, "</"+ax+">")
			_, afterTitle, _ := strings.Cut(body, "</title>")
			_, labels, _ := strings.Cut(afterTitle, "<txPr>") // the tick labels' text properties
			if !ok || strings.Contains(labels, `<a:lumOff val="85000"`) || !strings.Contains(labels, `<a:srgbClr val="404040"`) {
				t.Errorf("%s: %s labels are not dark grey: %s", name, ax, labels)
			}
		}
		for _, title := range []string{"Day", "Cost (CNY)", "Resource", "Idle cost (CNY)", "GPU model", "Average utilization"} {
			if strings.Contains(xml, "<a:t>"+title+"</a:t>") {
				titles[title] = true
			}
		}
		if strings.Contains(xml, `<barDir val="bar"`) && !strings.Contains(xml, `<varyColors val="0"`) {
			t.Errorf("%s: a bar chart whose bars vary in colour", name)
		}
	}
	if bars := strings.Count(strings.Join(slices.Collect(maps.Values(parts)), ""), `<barDir val="bar"`); bars != 2 {
		t.Errorf("%d horizontal bar charts, want 2 (idle cost, utilization)", bars)
	}
	if len(titles) != 6 {
		t.Errorf("axis titles found: %v, want all six", titles)
	}
}

// TestWriteXLSXLinesInTwoCurrencies: a USD line in a CNY report at
// fx USD: 7.1 keeps its cost in dollars, formatted in dollars, and gets
// ¥ beside it: 100 × 7.1 = ¥710 (by hand). A line in a currency without a
// rate leaves the reporting-currency cell blank rather than counting 1:1.
func TestWriteXLSXLinesInTwoCurrencies(t *testing.T) {
	loc := shanghai(t)
	r := handResult(t)
	d := func(s string) *decimal.Decimal { v := decimal.RequireFromString(s); return &v }
	in := func(cur string) finops.BillingLine {
		s := r.Period.Start.In(loc)
		return finops.BillingLine{Provider: "aws", ChargeStart: s, ChargeEnd: s.Add(3600e9), BilledCost: d("100"), Currency: cur}
	}
	meta := testMeta()
	meta.Lines = linesOf([]finops.BillingLine{in("USD"), in("EUR")})
	meta.FX = map[string]decimal.Decimal{"usd": decimal.RequireFromString("7.1")}
	_, f := writeBookMeta(t, r, meta)
	for _, c := range []struct{ cell, value, format string }{
		{"AC2", "100", `"$"#,##0.00`},
		{"AD2", "710", `"¥"#,##0.00`},
		{"V2", "100", `"$"#,##0.00`},
		{"AC3", "100", `"€"#,##0.00`},
		{"AD3", "", ""},
	} {
		if got := raw(t, f, sheetLines, c.cell); got != c.value {
			t.Errorf("%s = %q, want %q", c.cell, got, c.value)
		}
		if c.format == "" {
			continue
		}
		id, err := f.GetCellStyle(sheetLines, c.cell)
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.GetStyle(id)
		if err != nil {
			t.Fatal(err)
		}
		if st.CustomNumFmt == nil || *st.CustomNumFmt != c.format {
			t.Errorf("%s format %v, want %s", c.cell, st.CustomNumFmt, c.format)
		}
	}
}
