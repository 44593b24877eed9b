package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/analysis"
)

func TestWriteReviewJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteReviewJSON(&buf, reviewFixture(t)); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"quarter", "previous_quarter", "currency", "in_progress", "models", "warnings"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	if w, ok := doc["warnings"].([]any); !ok || len(w) != 0 {
		t.Errorf("warnings = %v, want []", doc["warnings"])
	}
	var rv analysis.Review
	if err := json.Unmarshal(buf.Bytes(), &rv); err != nil {
		t.Fatal(err)
	}
	var a100 *analysis.ModelReview
	for i := range rv.Models {
		if rv.Models[i].GPUModel == "A100-80GB" {
			a100 = &rv.Models[i]
		}
	}
	// Full precision: the breakeven is 3,792 / 10,950, not rounded for display.
	if a100 == nil || a100.Verdict != analysis.VerdictBuy || math.Abs(a100.BreakevenUtilization-3792.0/10950*100) > 1e-9 ||
		math.Abs(a100.OwnedMonthlyPerGPU-3792) > 1e-9 || len(a100.Sensitivity) != 4 || *a100.PreviousUtilization != 50 {
		t.Errorf("A100 = %+v", a100)
	}
	// A model without assumptions still has [] lists, not null.
	if !strings.Contains(buf.String(), `"sensitivity": []`) {
		t.Error("want an empty sensitivity list as []")
	}
}

func TestWriteReviewAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	rv := reviewFixture(t)
	rv.Quarter.Label = "../2026Q1"
	paths, err := WriteReviewAll(dir, rv, testMeta())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"finops-review-_2026Q1.xlsx", "finops-review-_2026Q1.html", "finops-review-_2026Q1.json"}
	if len(paths) != 3 {
		t.Fatalf("paths = %q", paths)
	}
	for i, p := range paths {
		if filepath.Dir(p) != dir || filepath.Base(p) != want[i] {
			t.Errorf("path %q, want %s in %s", p, want[i], dir)
		}
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestWriteReviewSummary(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteReviewSummary(&buf, reviewFixture(t)); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if !strings.Contains(s, "Rent-or-buy review 2026Q1") || !strings.Contains(s, "Buy") || !strings.Contains(s, "¥3,792.00") ||
		strings.Contains(s, "\x1b") {
		t.Errorf("summary:\n%s", s)
	}
}

// TestWriteReviewJSONRoundsMoney: the review's amounts of money come out at
// the currency's minor unit (CNY: cents), as the report's JSON does; prices
// keep their digits; the caller's review is not changed.
func TestWriteReviewJSONRoundsMoney(t *testing.T) {
	rv := reviewFixture(t)
	m0 := rv.Models[0]
	m0.OwnedMonthlyPerGPU += 0.0049 // a float tail a sum leaves, below a cent
	rv.Models[0] = m0
	var b bytes.Buffer
	if err := WriteReviewJSON(&b, rv); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Models []struct {
			OwnedMonthlyPerGPU float64 `json:"owned_monthly_per_gpu"`
			MonthlySavings     float64 `json:"monthly_savings"`
			RentCost           float64 `json:"rent_cost"`
			HourlyPrice        float64 `json:"hourly_price"`
			Sensitivity        []struct {
				OwnedMonthlyPerGPU float64 `json:"owned_monthly_per_gpu"`
			} `json:"sensitivity"`
		} `json:"models"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	cents := func(v float64) bool { return math.Abs(v*100-math.Round(v*100)) < 1e-6 }
	g := got.Models[0]
	// By hand: x + 0.0049 rounds back to x's cents when x has whole cents.
	if want := math.Round(m0.OwnedMonthlyPerGPU*100) / 100; g.OwnedMonthlyPerGPU != want {
		t.Errorf("owned_monthly_per_gpu = %v, want %v", g.OwnedMonthlyPerGPU, want)
	}
	for name, v := range map[string]float64{"monthly_savings": g.MonthlySavings, "rent_cost": g.RentCost} {
		if !cents(v) {
			t.Errorf("%s = %v, not whole cents", name, v)
		}
	}
	for _, s := range g.Sensitivity {
		if !cents(s.OwnedMonthlyPerGPU) {
			t.Errorf("sensitivity owned_monthly_per_gpu = %v, not whole cents", s.OwnedMonthlyPerGPU)
		}
	}
	if g.HourlyPrice != m0.HourlyPrice {
		t.Errorf("hourly_price = %v, want %v as given", g.HourlyPrice, m0.HourlyPrice)
	}
	if rv.Models[0].OwnedMonthlyPerGPU != m0.OwnedMonthlyPerGPU {
		t.Error("WriteReviewJSON changed the caller's review")
	}
}
