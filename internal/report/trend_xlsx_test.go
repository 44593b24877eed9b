package report

import (
	"slices"
	"strconv"
	"testing"

	"github.com/finops-oss/finops/internal/testnum"
)

// TestXLSXTrendSheet: the Trend sheet of trendResult: a row per absent
// week (W40–W42), then per week a total, a row per team and per resource
// (5 rows × 5 weeks); the last week's rows carry the movers. Without a
// history there is no sheet.
func TestXLSXTrendSheet(t *testing.T) {
	_, f := writeBook(t, trendResult(t))
	if !slices.Contains(f.GetSheetList(), sheetTrend) {
		t.Fatalf("sheets %v, want %s", f.GetSheetList(), sheetTrend)
	}
	rows, err := f.GetRows(sheetTrend)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+3+25 {
		t.Fatalf("%d rows, want a header, 3 absent weeks and 25", len(rows))
	}
	num := func(cell string) float64 {
		v, err := strconv.ParseFloat(raw(t, f, sheetTrend, cell), 64)
		if err != nil {
			t.Fatalf("%s: %v", cell, err)
		}
		return v
	}
	for _, c := range []struct{ cell, want string }{
		{"A2", "2026-W40"}, {"C2", "absent: before the first data"},
		// W43's total (row 5): its telemetry covered half: a lower bound.
		{"A5", "2026-W43"}, {"C5", "total"}, {"H5", "yes"}, {"J5", "not_enough_history"},
		// W47 (rows 25–29): total, ml-train, hostileFormula, gpu-a100-1, hostileScript.
		{"A25", "2026-W47"}, {"C25", "total"}, {"J25", "above_range"},
		{"C26", "team"}, {"D26", "ml-train"}, {"J26", "above_range"}, {"L26", "run"},
		{"D27", "'" + hostileFormula},
		{"C28", "resource"}, {"E28", "gpu-a100-1"}, {"D28", "ml-train"},
	} {
		if got := raw(t, f, sheetTrend, c.cell); got != c.want {
			t.Errorf("%s = %q, want %q", c.cell, got, c.want)
		}
	}
	// W47: total 4500, idle 750 + 80; mean 3490, +1010 = +28.9 %.
	testnum.NearRel(t, "W47 cost", num("F25"), 4500, 1e-6)
	testnum.NearRel(t, "W47 idle", num("G25"), 830, 1e-6)
	testnum.NearRel(t, "W47 mean", num("M25"), 3490, 1e-6)
	testnum.NearRel(t, "W47 change", num("N25"), 1010, 1e-6)
	testnum.NearRel(t, "W47 change %", num("O25"), 1010.0/3490, 1e-6)
	testnum.NearRel(t, "W43 coverage", num("I5"), 0.5, 1e-6)
	// ml-train: 1000 a run; mean 3150.
	testnum.NearRel(t, "ml-train unit cost", num("K26"), 1000, 1e-6)
	testnum.NearRel(t, "ml-train mean", num("M26"), 3150, 1e-6)
	if raw(t, f, sheetTrend, "M5") != "" {
		t.Error("a week before the last has a mover")
	}

	_, f = writeBook(t, handResult(t))
	if slices.Contains(f.GetSheetList(), sheetTrend) {
		t.Error("a result without history has a Trend sheet")
	}
}
