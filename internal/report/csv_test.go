package report

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// csvResult is a small result written by hand: a week in Shanghai, one
// resource whose name and team come from a bill and start like formulas.
func csvResult(t *testing.T) *analysis.Result {
	t.Helper()
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	budget := 5000.0
	return &analysis.Result{
		Period: analysis.Period{Start: time.Date(2026, 11, 23, 0, 0, 0, 0, sh).UTC(),
			End: time.Date(2026, 11, 30, 0, 0, 0, 0, sh).UTC(), TimeZone: "Asia/Shanghai", Label: "2026-W48"},
		Currency: "CNY",
		ByResource: []analysis.ResourceCost{{ResourceID: "i-1", ResourceName: `=HYPERLINK("http://x","a, b")`,
			Provider: "autodl", GPUModel: "A100", GPUCount: 2, Pricing: "hourly", Team: "-nlp", Cost: 1234.5,
			GPUHoursBilled: 336, GPUHoursActive: 100.25, GPUHoursIdle: 235.75, IdleCost: 13999.999999991009,
			AvgUtilization: 0.3, PreviousCost: -3.6}},
		ByTeam: []analysis.TeamCost{{Team: "-nlp", Cost: 1234.5, GPUCost: 1200, IdleCost: 0.001, MonthToDate: 2000,
			MonthForecast: 3000}, {Team: "vision", Budget: &budget}},
		Tasks: []analysis.TaskCost{{Task: "@train", Team: "vision", Kind: "training", Cost: 10, GPUHours: 2.5,
			GPUHoursMonitored: 2.5, Units: 1000, Unit: "tokens", UnitCost: 0.01}},
		Recommendations: []analysis.Recommendation{{ID: "adv-0123abcd", ResourceID: "i-1", GPUModel: "A100", GPUCount: 2,
			CurrentMode: "monthly", Action: analysis.ActionSwitchToHourly, CurrentMonthlyCost: 9000,
			RecommendedMonthlyCost: 4000, MonthlySavings: 5000, ActiveHoursPerMonth: 120, BreakevenHoursPerMonth: 300,
			Confidence: "high", Reason: "busy 120 h of 720\nper GPU"}},
		Daily: []analysis.DailyCost{{Day: time.Date(2026, 11, 23, 0, 0, 0, 0, sh), Team: "-nlp", GPUModel: "A100", Cost: 176.357},
			{Day: time.Date(2026, 11, 24, 0, 0, 0, 0, sh), Team: "vision", Cost: 2}},
	}
}

// TestWriteCSV: each table as a BI tool reads it. The expected files are
// written by hand from csvResult: RFC 4180 (CRLF, a field with a comma,
// quote or newline quoted, quotes doubled), money at two decimals with the
// currency in its own column, quantities at full precision, no budget an
// empty cell, dates local, and text from the bill that starts with = + - @
// led by an apostrophe as in the workbook.
func TestWriteCSV(t *testing.T) {
	const period = "2026-W48,2026-11-23,2026-11-29,"
	for _, tc := range []struct {
		table string
		want  []string
	}{
		{"by-resource", []string{
			"period,period_start,period_end,resource_id,resource_name,provider,gpu_model,gpu_count,pricing,team,currency,cost,gpu_hours_billed,gpu_hours_active,gpu_hours_idle,gpu_hours_unmonitored,idle_cost,unmonitored_cost,avg_utilization,previous_cost,saturated_hours",
			period + `i-1,"'=HYPERLINK(""http://x"",""a, b"")",autodl,A100,2,hourly,'-nlp,CNY,1234.50,336,100.25,235.75,0,14000.00,0.00,0.3,-3.60,0`}},
		{"by-team", []string{
			"period,period_start,period_end,team,currency,cost,gpu_cost,idle_cost,monthly_budget,previous_cost,month_to_date,month_forecast",
			period + "'-nlp,CNY,1234.50,1200.00,0.00,,0.00,2000.00,3000.00",
			period + "vision,CNY,0.00,0.00,0.00,5000.00,0.00,0.00,0.00"}},
		{"tasks", []string{
			"period,period_start,period_end,task,team,kind,currency,cost,gpu_hours,idle_cost,units,unit,unit_cost",
			period + "'@train,vision,training,CNY,10.00,2.5,0.00,1000,tokens,0.01"}},
		{"recommendations", []string{
			"period,period_start,period_end,resource_id,gpu_model,gpu_count,current_mode,action,currency,current_monthly_cost,recommended_monthly_cost,monthly_savings,active_hours_per_month,breakeven_hours_per_month,confidence,reason,advice_id",
			period + "i-1,A100,2,monthly,switch_to_hourly,CNY,9000.00,4000.00,5000.00,120,300,high,\"busy 120 h of 720\r\nper GPU\",adv-0123abcd"}},
		{"daily", []string{
			"period,period_start,period_end,date,team,gpu_model,currency,cost",
			period + "2026-11-23,'-nlp,A100,CNY,176.36",
			period + "2026-11-24,vision,,CNY,2.00"}},
	} {
		t.Run(tc.table, func(t *testing.T) { checkCSV(t, csvResult(t), tc.table, tc.want) })
	}
	// A task without units has no unit cost: the cell is blank (by hand:
	// cost 10 over 0 units is no figure), as the workbook's, never 0.
	noUnits := csvResult(t)
	noUnits.Tasks[0].Units, noUnits.Tasks[0].Unit, noUnits.Tasks[0].UnitCost = 0, "", 0
	checkCSV(t, noUnits, "tasks", []string{
		"period,period_start,period_end,task,team,kind,currency,cost,gpu_hours,idle_cost,units,unit,unit_cost",
		period + "'@train,vision,training,CNY,10.00,2.5,0.00,0,,"})
	if err := WriteCSV(&bytes.Buffer{}, csvResult(t), "pools"); err == nil {
		t.Error("an unknown table: no error")
	}
}

// checkCSV checks r's table as WriteCSV writes it: its lines are want, and
// every row has the header's width (what pandas.read_csv needs).
func checkCSV(t *testing.T, r *analysis.Result, table string, want []string) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCSV(&b, r, table); err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(want, "\r\n") + "\r\n"; b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range recs {
		if len(rec) != len(recs[0]) {
			t.Errorf("row %d: %d fields, header %d", i, len(rec), len(recs[0]))
		}
	}
}

// TestWriteAllCSV: --format csv is one file per table, named after the
// report; it is not among the formats written by default.
func TestWriteAllCSV(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteAll(dir, csvResult(t), []string{"csv"}, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	want := []string{"finops-2026-W48-by-resource.csv", "finops-2026-W48-by-team.csv", "finops-2026-W48-tasks.csv",
		"finops-2026-W48-recommendations.csv", "finops-2026-W48-daily.csv"}
	if !slices.Equal(names, want) {
		t.Errorf("wrote %q, want %q", names, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Errorf("%d files in the folder, want %d", len(entries), len(want))
	}
	if slices.Contains(DefaultFormats(), "csv") || !slices.Contains(Formats(), "csv") {
		t.Errorf("formats %q, default %q: csv must be valid but not a default", Formats(), DefaultFormats())
	}
}
