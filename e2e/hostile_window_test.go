package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/testnum"
)

// TestHostileWindow: a report window of a century, or from year 0, over a
// database of five AutoDL lines (issue #14: 2.1 GB and 14 s, or no end at
// all). A typed date outside 2000–2100 is a usage error; a window far longer
// than the data is clipped to the days the data spans, with the note on
// stderr and first in the data-quality box, in little memory; the review's
// quarter is held to the same years.
func TestHostileWindow(t *testing.T) {
	db, _ := hostileDB(t) // testdata/ingest/autodl_sample.csv: China time, 2026-11-01 to 2026-12-01
	cfg := filepath.Join(t.TempDir(), "finops.yaml")
	if err := os.WriteFile(cfg, []byte("timezone: Asia/Shanghai\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	// The file's earliest line is the monthly 2026-11-01 – 2026-12-01 (China
	// time); now is 2026-11-30 11:00 in Shanghai.
	nov1 := time.Date(2026, 11, 1, 0, 0, 0, 0, sh)
	for _, tc := range []struct {
		name       string
		args       []string
		code       int
		stderr     string // a part of stderr
		start, end time.Time
		label      string
		cost       float64 // nothing billed inside the window is lost
	}{
		// The start is clipped to Nov 1; the data runs past the window's end
		// (today's 00:00, --since covers whole days), so the end stays.
		// 1926-11-30 to 2026-11-30 is 36,525 days (25 leap days, 1928–2024),
		// so 36,500 days back is 1926-12-25.
		{"since a century", []string{"report", "--since", "36500d"}, 0,
			"note: report window 1926-12-25 to 2026-11-29 is longer than the data: the report covers 2026-11-01 to 2026-11-29",
			nov1, time.Date(2026, 11, 30, 0, 0, 0, 0, sh), "1926-12-25_2026-11-29",
			// ¥2,143.00, the file's total (docs/INGEST.md), less the last day
			// (Nov 30) of the ¥899 month: 899 × 24 / 720.
			2143 - 899.0*24/720},
		// Both ends are clipped: the last line ends Dec 1 00:00 China time.
		{"2000 to 2100", []string{"report", "--from", "2000-01-01", "--to", "2100-12-31"}, 0,
			"the report covers 2026-11-01 to 2026-11-30", nov1, time.Date(2026, 12, 1, 0, 0, 0, 0, sh), "2000-01-01_2100-12-31", 2143},
		{"from year 0", []string{"report", "--from", "0000-01-01", "--to", "2026-11-30"}, cli.ExitUsage,
			`--from "0000-01-01": the year must be between 2000 and 2100`, time.Time{}, time.Time{}, "", 0},
		{"to 9999", []string{"report", "--from", "2026-11-01", "--to", "9999-12-31"}, cli.ExitUsage,
			`--to "9999-12-31": the year must be between 2000 and 2100`, time.Time{}, time.Time{}, "", 0},
		{"week 1999", []string{"report", "--week", "1999-W01"}, cli.ExitUsage,
			`--week "1999-W01": the year must be between 2000 and 2100`, time.Time{}, time.Time{}, "", 0},
		{"review year 0", []string{"review", "--quarter", "0000Q1"}, cli.ExitUsage,
			`--quarter "0000Q1": the year must be between 2000 and 2100`, time.Time{}, time.Time{}, "", 0},
		// An in-range quarter over the same five lines: clipped inside the
		// analysis (the review's own coverage says how much of it has data).
		{"review 2026Q4", []string{"review", "--quarter", "2026Q4"}, 0, "", time.Time{}, time.Time{}, "", 0},
		{"review 2101", []string{"review", "--quarter", "2101Q1"}, cli.ExitUsage,
			`--quarter "2101Q1": the year must be between 2000 and 2100`, time.Time{}, time.Time{}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"--config", cfg, "--db", db}, tc.args...)
			if tc.args[0] == "report" {
				args = append(args, "--format", "json")
			}
			args = append(args, "--out", out)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			began := time.Now()
			code, stdout, stderr := runFinops(t, args...)
			took := time.Since(began)
			runtime.ReadMemStats(&after)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr, tc.stderr)
			}
			// Before the fix: 2.1 GB and 14 s for the century.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 50<<20 {
				t.Errorf("allocated %d MB, want under 50 MB", alloc>>20)
			}
			if took > 5*time.Second {
				t.Errorf("took %v", took)
			}
			if tc.code != 0 || tc.args[0] == "review" {
				return
			}
			s := readSummary(t, filepath.Join(out, "finops-"+tc.label+".json"))
			if !s.Period.Start.Equal(tc.start) || !s.Period.End.Equal(tc.end) {
				t.Errorf("period [%v, %v), want [%v, %v)", s.Period.Start, s.Period.End, tc.start, tc.end)
			}
			if note := strings.TrimPrefix(strings.TrimSpace(stderr), "note: "); s.DataQuality.Clipped != note ||
				len(s.DataQuality.Warnings) == 0 || s.DataQuality.Warnings[0] != note {
				t.Errorf("data quality: clipped %q, warnings %q; want the note %q", s.DataQuality.Clipped, s.DataQuality.Warnings, note)
			}
			testnum.Near(t, "cost", s.Totals.Cost, tc.cost, 0.005)
		})
	}
}
