package e2e

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHostileCSV: report --format csv writes the five long-format tables a
// BI tool loads, and only them; csv in the config's formats is accepted. The
// expected rows are the AutoDL sample's lines (testdata/ingest/
// autodl_sample.csv) read by hand: in November, the daily-rental A100
// autodl-b2 cost ¥1,234.50 on Nov 3, the first 4090 line ¥12.60 on Nov 2.
func TestHostileCSV(t *testing.T) {
	db, _ := hostileDB(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "finops.yaml")
	if err := os.WriteFile(cfg, []byte("timezone: Asia/Shanghai\nformats: [csv]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runFinops(t, "--config", cfg, "--db", db, "report", "--from", "2026-11-01", "--to", "2026-11-30", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	base := "finops-2026-11-01_2026-11-30-"
	// The five tables and the trend's (report.trend_weeks defaults to 8), by name.
	want := []string{base + "by-resource.csv", base + "by-team.csv", base + "daily.csv", base + "recommendations.csv", base + "tasks.csv",
		base + "trend.csv"}
	if !slices.Equal(names, want) {
		t.Fatalf("wrote %q, want %q", names, want)
	}
	read := func(name string) map[string][]string { // first column after the period's three → row
		f, err := os.Open(filepath.Join(out, base+name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rows := map[string][]string{}
		for _, r := range recs {
			rows[r[3]+"|"+r[4]] = r
		}
		return rows
	}
	res := read("by-resource")
	if r := res["autodl-b2|推理机"]; r == nil || r[10] != "CNY" || r[11] != "1234.50" {
		t.Errorf("by-resource autodl-b2 = %q, want CNY 1234.50", r)
	}
	daily := read("daily")
	var got []string
	for k, r := range daily {
		if strings.HasPrefix(k, "2026-11-02|") && r[7] == "12.60" {
			got = append(got, k)
		}
	}
	if len(got) != 1 {
		t.Errorf("daily: the ¥12.60 of Nov 2 in %d rows, want 1: %q", len(got), daily)
	}
	if _, ok := daily["date|team"]; !ok {
		t.Errorf("daily has no header row: %q", daily)
	}
}
