package e2e

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestHostileWorkbookCurrencies: a report over AutoDL lines in CNY and
// RunPod lines in USD, at fx usd: 7.1, keeps each line's "Cost in period" in
// its own currency and adds the reporting currency's beside it: the CNY
// column is the line's cost × 7.1 for a USD line and the same for a CNY one.
func TestHostileWorkbookCurrencies(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	autodl := filepath.Join(repoRoot(t), "testdata", "ingest", "autodl_sample.csv")
	if code, out, errOut := runFinops(t, "--db", db, "ingest", autodl, rentalFile(t, "runpod_billing_pods.json")); code != 0 {
		t.Fatalf("ingest: exit %d: %s %s", code, out, errOut)
	}
	cfg := filepath.Join(dir, "fx.yaml")
	if err := os.WriteFile(cfg, []byte("timezone: Asia/Shanghai\ncurrency: cny\nfx: {usd: \"7.1\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, stdout, stderr := runFinops(t, "--config", cfg, "--db", db, "report", "--from", "2026-11-01", "--to", "2026-11-30",
		"--format", "xlsx", "--out", out); code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	f, err := excelize.OpenFile(filepath.Join(out, "finops-2026-11-01_2026-11-30.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows("Billing lines", excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	cur, own, rep := slices.Index(rows[0], "Currency"), slices.Index(rows[0], "Cost in period (line currency)"),
		slices.Index(rows[0], "Cost in period (CNY)")
	if cur < 0 || own < 0 || rep != own+1 {
		t.Fatalf("header %q: want the CNY column right after the line-currency one", rows[0])
	}
	seen := map[string]int{}
	for _, row := range rows[1:] {
		if len(row) <= rep || row[own] == "" {
			continue
		}
		a, err1 := strconv.ParseFloat(row[own], 64)
		b, err2 := strconv.ParseFloat(row[rep], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("row %q: %v %v", row, err1, err2)
		}
		rate := map[string]float64{"CNY": 1, "USD": 7.1}[row[cur]]
		if rate == 0 || math.Abs(a*rate-b) > 1e-6 {
			t.Errorf("%s line: %v in its currency, %v in CNY, want × %v", row[cur], a, b, rate)
		}
		seen[row[cur]]++
	}
	if seen["CNY"] == 0 || seen["USD"] == 0 {
		t.Errorf("lines per currency %v, want both", seen)
	}
}
