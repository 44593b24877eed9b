package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/analysis"
)

// chargebackResult is handResult with a chargeback of 100.00 (ml 48.00,
// unassigned 52.00 of which 12.00 idle) spread evenly over ml and cv, and an
// allocation by a tag whose values are hostile bill text.
func chargebackResult(t *testing.T) *analysis.Result {
	r := handResult(t)
	r.Chargeback = &analysis.Chargeback{UnallocatedRule: "even", IdleRule: "team:ml", Total: 100,
		UnallocatedPool: 40, IdlePool: 12,
		Teams: []analysis.TeamChargeback{
			{Team: "unassigned", Direct: 52, Unallocated: -40, Idle: -12, ChargedBack: 0},
			{Team: "ml", Direct: 48, Unallocated: 20, Idle: 12, ChargedBack: 80},
			{Team: "=cmd|' /C calc'!A0", Direct: 0, Unallocated: 20, Idle: 0, ChargedBack: 20},
		}}
	r.Allocation = []analysis.Allocation{
		{Dimension: "tag:project", Groups: []analysis.AllocationGroup{
			{Value: "<script>alert(1)</script>", Cost: 70, Share: 0.7},
			{Value: "=HYPERLINK(\"http://evil\")", Cost: 20, Share: 0.2},
			{Value: analysis.Untagged, Cost: 10, Share: 0.1},
		}},
		{Dimension: "provider", Groups: []analysis.AllocationGroup{{Value: "AWS", Cost: 100, Share: 1}}},
	}
	return r
}

// TestChargebackOutputs: the chargeback and allocation reach every output
// — JSON (valid against the schema, amounts as given), the workbook's
// Chargeback and Allocation sheets after By team (formulas defused) and the
// page's tables (bill text escaped); a result without them shows neither.
func TestChargebackOutputs(t *testing.T) {
	sch := reportSchema(t)
	for _, tt := range []struct {
		name string
		r    *analysis.Result
		on   bool
	}{{"configured", chargebackResult(t), true}, {"default", handResult(t), false}} {
		t.Run(tt.name, func(t *testing.T) {
			checkChargebackJSON(t, sch, tt.r, tt.on)
			checkChargebackBook(t, tt.r, tt.on)
			checkChargebackPage(t, tt.r, tt.on)
		})
	}
}

// checkChargebackJSON checks the JSON is valid against the schema and
// holds the chargeback and allocation (amounts as given) exactly when on.
func checkChargebackJSON(t *testing.T, sch *jsonschema.Schema, r *analysis.Result, on bool) {
	t.Helper()
	doc, raw := decodeJSON(t, r)
	if err := validateJSON(sch, raw); err != nil {
		t.Errorf("JSON does not match the schema: %v", err)
	}
	cb, hasCB := doc["chargeback"].(map[string]any)
	al, hasAl := doc["allocation"].([]any)
	if hasCB != on || hasAl != on {
		t.Fatalf("JSON chargeback %v, allocation %v; want %v", hasCB, hasAl, on)
	}
	if on {
		teams := cb["teams"].([]any)
		ml := teams[1].(map[string]any)
		if cb["total"] != 100.0 || cb["idle_rule"] != "team:ml" || ml["charged_back"] != 80.0 || ml["unallocated"] != 20.0 {
			t.Errorf("JSON chargeback %v", cb)
		}
		g := al[0].(map[string]any)["groups"].([]any)[0].(map[string]any)
		if g["value"] != "<script>alert(1)</script>" || g["cost"] != 70.0 || g["share"] != 0.7 {
			t.Errorf("JSON allocation group %v", g)
		}
	}
}

// checkChargebackBook checks the workbook has the Chargeback and
// Allocation sheets just after By team exactly when on, formulas defused.
func checkChargebackBook(t *testing.T, r *analysis.Result, on bool) {
	t.Helper()
	_, f := writeBook(t, r)
	sheets := f.GetSheetList()
	ti := slices.Index(sheets, sheetTeams)
	ci, ai := slices.Index(sheets, sheetChargeback), slices.Index(sheets, sheetAllocation)
	if !on {
		if ci >= 0 || ai >= 0 {
			t.Errorf("sheets %q: want no Chargeback or Allocation", sheets)
		}
	} else {
		if ci != ti+1 || ai != ti+2 {
			t.Fatalf("sheets %q: want Chargeback and Allocation just after %s", sheets, sheetTeams)
		}
		rows, err := f.GetRows(sheetChargeback)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 4 || rows[0][2] != "Share of unallocated (even)" || rows[2][0] != "ml" {
			t.Errorf("Chargeback rows %q", rows)
		}
		arows, err := f.GetRows(sheetAllocation)
		if err != nil {
			t.Fatal(err)
		}
		if len(arows) != 5 || arows[1][0] != "tag:project" || arows[3][1] != analysis.Untagged || arows[4][1] != "AWS" {
			t.Errorf("Allocation rows %q", arows)
		}
		for _, rs := range [][][]string{rows, arows} {
			for _, row := range rs {
				for _, c := range row {
					if strings.HasPrefix(c, "=") {
						t.Errorf("cell %q would be a formula", c)
					}
				}
			}
		}
		if v, _ := f.GetCellValue(sheetChargeback, "E3", excelize.Options{RawCellValue: true}); v != "80" {
			t.Errorf("ml charged back cell = %q, want 80", v)
		}
	}
}

// checkChargebackPage checks the page has the chargeback section and the
// allocation tables exactly when on, the bill's text escaped.
func checkChargebackPage(t *testing.T, r *analysis.Result, on bool) {
	t.Helper()
	page := renderHTML(t, r, nil)
	if got := strings.Contains(page, `id="h-chargeback"`); got != on {
		t.Errorf("page has a Chargeback section: %v, want %v", got, on)
	}
	if got := strings.Contains(page, "Cost by tag:project"); got != on {
		t.Errorf("page has the tag:project table: %v, want %v", got, on)
	}
	if on {
		for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "¥80.00", "Cost by provider", "(untagged)",
			"Charged back adds up to the bill, ¥100.00"} {
			if !strings.Contains(page, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		if strings.Contains(page, "<script>alert(1)") {
			t.Error("page holds the bill's <script> unescaped")
		}
	}
}
