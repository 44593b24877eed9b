package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
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
	m := &rv.Models[0]
	// Float tails a sum leaves; by hand at cents: 1234.5649 → 1234.56,
	// 987.655 → 987.66 (half away from zero), 0.9012345 per GPU-hour stays.
	m.RentCost, m.OwnedMonthlyPerGPU, m.HourlyPrice = 1234.5649, 987.655, 0.9012345
	if len(m.Sensitivity) == 0 {
		t.Fatal("the fixture has no sensitivity rows")
	}
	m.Sensitivity[0].OwnedMonthlyPerGPU = 100.004 // → 100.00
	var b bytes.Buffer
	if err := WriteReviewJSON(&b, rv); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Models []struct {
			RentCost           float64 `json:"rent_cost"`
			OwnedMonthlyPerGPU float64 `json:"owned_monthly_per_gpu"`
			HourlyPrice        float64 `json:"hourly_price"`
			Sensitivity        []struct {
				OwnedMonthlyPerGPU float64 `json:"owned_monthly_per_gpu"`
			} `json:"sensitivity"`
		} `json:"models"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	g := got.Models[0]
	if g.RentCost != 1234.56 || g.OwnedMonthlyPerGPU != 987.66 || g.HourlyPrice != 0.9012345 ||
		g.Sensitivity[0].OwnedMonthlyPerGPU != 100.00 {
		t.Errorf("rent_cost %v, owned_monthly_per_gpu %v, hourly_price %v, sensitivity %v; want 1234.56, 987.66, 0.9012345, 100",
			g.RentCost, g.OwnedMonthlyPerGPU, g.HourlyPrice, g.Sensitivity[0].OwnedMonthlyPerGPU)
	}
	// The sensitivity rows are a slice the caller shares: not rounded in place.
	if m.Sensitivity[0].OwnedMonthlyPerGPU != 100.004 {
		t.Error("WriteReviewJSON changed the caller's sensitivity rows")
	}
}
