package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/testnum"
)

// demoPurchase is the worked example's purchase block (docs/METRICS.md):
// owned = 120,000 × 0.9 / 36 + 0.4 × 1.25 × 730 × 1.00 × 0.8 + 300 + 200
// = 3,000 + 292 + 500 = ¥3,792 per GPU-month.
const demoPurchase = `
purchase:
  - gpu_model: A100-80GB
    price_per_gpu: 100000
    server_share: 20000
    depreciation_years: 3
    residual: 0.10
    power_watts: 400
    pue: 1.25
    electricity_price: 1.00
    load: 0.8
    hosting_per_gpu_month: 300
    ops_per_gpu_month: 200
`

// TestReviewDemo reviews 2026Q4 on the demo fleet. The test clock is Monday
// 2026-11-30 11:00 in Shanghai and the demo holds four weeks of telemetry (and
// the monthly A100 rental from its last renewal, 2026-10-28): about a third of
// a quarter that is still running. The review must not invent a verdict from
// that: the A100 pair is "insufficient_data" with low confidence, while its
// owning cost and breakeven are still shown. The breakeven uses the demo
// catalog's ¥15 per A100 GPU-hour: 3,792 / (15 × 730) = 34.63%.
func TestReviewDemo(t *testing.T) {
	out := t.TempDir()
	if code, stdout, stderr := runFinops(t, "demo", "--out", out); code != 0 {
		t.Fatalf("demo exit %d\n%s\n%s", code, stdout, stderr)
	}
	cfg := filepath.Join(out, "demo-data", "finops.yaml")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(demoPurchase); err != nil {
		t.Fatal(err)
	}
	f.Close()

	code, stdout, stderr := runFinops(t, "review", "--config", cfg, "--db", filepath.Join(out, "demo-data", "finops.db"),
		"--quarter", "2026Q4", "--out", out)
	if code != 0 {
		t.Fatalf("review exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, ext := range []string{"xlsx", "html", "json"} {
		if fi, err := os.Stat(filepath.Join(out, "finops-review-2026Q4."+ext)); err != nil || fi.Size() == 0 {
			t.Errorf("finops-review-2026Q4.%s missing or empty: %v", ext, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "finops-review-2026Q4.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rv analysis.Review
	if err := json.Unmarshal(b, &rv); err != nil {
		t.Fatal(err)
	}
	checkReviewDemoA100(t, rv)
	if !strings.Contains(stdout, "Not enough data") || !strings.Contains(stdout, "finops-review-2026Q4.html") {
		t.Errorf("stdout:\n%s", stdout)
	}
	html, err := os.ReadFile(filepath.Join(out, "finops-review-2026Q4.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html), "<script") || !strings.Contains(string(html), "2026Q4 is still in progress") {
		t.Error("review page: want no script and the in-progress note")
	}
}

// checkReviewDemoA100: the review is of the running 2026Q4; the A100 pair
// is insufficient data with its owning cost, breakeven and coverage shown;
// the models without assumptions have none.
func checkReviewDemoA100(t *testing.T, rv analysis.Review) {
	t.Helper()
	if !rv.InProgress || rv.Quarter.Label != "2026Q4" || rv.PreviousQuarter.Label != "2026Q3" || rv.Currency != "CNY" {
		t.Errorf("review = %+v", rv)
	}
	if !rv.Quarter.Start.Equal(time.Date(2026, 9, 30, 16, 0, 0, 0, time.UTC)) || !rv.Quarter.End.Equal(time.Date(2026, 12, 31, 16, 0, 0, 0, time.UTC)) {
		t.Errorf("quarter = %v – %v, want Shanghai midnights of Oct 1 and Jan 1", rv.Quarter.Start, rv.Quarter.End)
	}
	verdicts := map[string]analysis.ModelReview{}
	for _, m := range rv.Models {
		verdicts[m.GPUModel] = m
	}
	a100, ok := verdicts["A100-80GB"]
	if !ok {
		t.Fatalf("no A100-80GB in %+v", rv.Models)
	}
	if a100.Verdict != analysis.VerdictInsufficientData || a100.Confidence != "low" ||
		!strings.Contains(a100.Reason, "of the 92 days of 2026Q4 (the quarter is still in progress)") {
		t.Errorf("A100: %s (%s): %s", a100.Verdict, a100.Confidence, a100.Reason)
	}
	if a100.GPUs != 2 || a100.Coverage >= analysis.MinReviewCoverage || a100.PreviousUtilization != nil {
		t.Errorf("A100: GPUs %d, coverage %.3f, previous %v", a100.GPUs, a100.Coverage, a100.PreviousUtilization)
	}
	testnum.Near(t, "A100 owned per GPU-month", a100.OwnedMonthlyPerGPU, 3792, 0.005)
	testnum.Near(t, "A100 breakeven", a100.BreakevenUtilization, 3792.0/(15*730)*100, 0.005)
	testnum.Near(t, "A100 observed", a100.ObservedUtilization, a100.GPUHoursActive/(2*a100.CoveredDays*24)*100, 0.005)
	// Telemetry coverage (issue #25): monitored ÷ billed GPU-hours, times the
	// covered share of the quarter; the default minimum, as no min_coverage
	// is configured.
	monitored := (a100.GPUHoursBilled - a100.GPUHoursUnmonitored) / a100.GPUHoursBilled
	testnum.Near(t, "A100 monitored share", a100.MonitoredShare, monitored, 0.005)
	testnum.Near(t, "A100 telemetry coverage", a100.TelemetryCoverage, a100.Coverage*monitored, 0.005)
	testnum.Near(t, "A100 minimum to count", a100.MinTelemetryCoverage, analysis.DefaultMinTelemetryCoverage, 0.005)
	if want, _ := analysis.UtilizationReading(a100.ObservedUtilization, monitored); !strings.HasPrefix(a100.ObservedText, want) {
		t.Errorf("A100 observed text %q, want it to start %q", a100.ObservedText, want)
	}
	for _, model := range []string{"RTX 4090", "L40S", "A10G"} {
		if m := verdicts[model]; m.Verdict != analysis.VerdictNoAssumptions {
			t.Errorf("%s: verdict %q, want %q", model, m.Verdict, analysis.VerdictNoAssumptions)
		}
	}
}

func TestReviewUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "finops.db")
	for _, args := range [][]string{
		{"review", "--db", db},
		{"review", "--db", db, "--quarter", "2026Q5"},
		{"review", "--db", db, "--quarter", "Q4-2026"},
		{"review", "--db", db, "--quarter", "2027Q1"}, // not started on 2026-11-30
	} {
		if code, _, stderr := runFinops(t, args...); code != cli.ExitUsage {
			t.Errorf("%q: exit %d, want %d (%s)", args, code, cli.ExitUsage, stderr)
		}
	}
}
