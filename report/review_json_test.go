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
