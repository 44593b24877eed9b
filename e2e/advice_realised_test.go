package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/testnum"
)

// writeHourlyBill writes an AutoDL bill of gpu-r, one A100 billed by the
// hour (按量计费): one line per span, each [start, end) in UTC, written in
// the bill's +08:00, at the amount given.
func writeHourlyBill(t *testing.T, path string, spans [][2]time.Time, amounts []string) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString("实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n")
	cst := time.FixedZone("CST", 8*3600)
	for i, s := range spans {
		fmt.Fprintf(&sb, "gpu-r,推理机,A100-SXM4-80GB * 1,按量计费,%s,%s,¥%s,¥%s\n",
			s[0].In(cst).Format(time.DateTime), s[1].In(cst).Format(time.DateTime), amounts[i], amounts[i])
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeBusyLogs writes nvidia-smi logs of gpu-r's one GPU, a sample a
// minute over [from, to): 90 % from 08:00 to 14:00 UTC, 0 % the rest of
// the day.
func writeBusyLogs(t *testing.T, dir string, from, to time.Time) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(smiHead)
	for at := from; at.Before(to); at = at.Add(time.Minute) {
		util := "0 %"
		if h := at.Hour(); h >= 8 && h < 14 {
			util = "90 %"
		}
		b.WriteString(smiLine(at, 0, util))
	}
	if err := os.WriteFile(filepath.Join(dir, "gpu-r.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cliAt is cli with the clock at at.
func cliAt(t *testing.T, at time.Time, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	m := cli.NewMain(nil, &out, &errb)
	m.Now = func() time.Time { return at }
	m.Getenv = func(string) string { return "" }
	code = m.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

// TestAdviceRealisedEndToEnd follows one piece of advice from the report
// that gives it to the report that measures it, in one SQLite database.
//
// Before: gpu-r, one A100 by the hour at ¥4, runs all day from Mon Nov 2
// (¥96 a day, 28 days to Nov 30 00:00 UTC) and until 03:00 on Nov 30
// (¥12). Its nvidia-smi logs, a sample a minute, say it is busy 08:00–14:00
// only. W48's advice, over the 28-day lookback Nov 2 – Nov 30 (D = 28):
//
//	active 6 h × 28 days = 168 h, nothing unmonitored;
//	A30 = 168 × 30 / 28 = 180 h; current = 28 × 96 × 30 / 28 = ¥2,880;
//	hourly released when idle: 180 × 4 × 1.10 = ¥792 (A30 ≥ 5 h: no release);
//	already hourly → stop_when_idle, saving 2,880 − 792 = ¥2,088.
//
// The lead marks it done at the tests' clock, Mon Nov 30 03:00 UTC, and
// from Dec 1 the GPU runs only 08:00–14:00: ¥24 a day. Reported for W50
// [Dec 7, Dec 14), by METRICS.md §Advice:
//
//	before = cost over [Nov 2 03:00, Nov 30 03:00) ÷ 28 days
//	       = (96 × 21/24 + 27 × 96 + 12) / 28 = (84 + 2,592 + 12) / 28 = ¥96/day;
//	after  = cost over the full days Dec 1 … Dec 13 ÷ 13 = 13 × 24 / 13 = ¥24/day;
//	realised = (96 − 24) × 30.4375 = ¥2,191.50 a month, expected ¥2,088.
func TestAdviceRealisedEndToEnd(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	clock := now
	run := func(args ...string) string {
		t.Helper()
		code, out, errs := cliAt(t, clock, append([]string{"--db", db}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		return out
	}
	report := func(week string) analysis.Result {
		t.Helper()
		out := filepath.Join(dir, week)
		run("report", "--week", week, "--format", "json", "--out", out)
		return readSummary(t, filepath.Join(out, "finops-"+week+".json"))
	}

	nov2 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	var spans [][2]time.Time
	var amounts []string
	for d := range 28 {
		spans = append(spans, [2]time.Time{nov2.AddDate(0, 0, d), nov2.AddDate(0, 0, d+1)})
		amounts = append(amounts, "96.00")
	}
	nov30 := nov2.AddDate(0, 0, 28)
	spans = append(spans, [2]time.Time{nov30, nov30.Add(3 * time.Hour)})
	amounts = append(amounts, "12.00")
	run("ingest", writeHourlyBill(t, filepath.Join(dir, "before.csv"), spans, amounts))
	run("ingest", "--host", "gpu-r", "--tz", "UTC", writeBusyLogs(t, filepath.Join(dir, "logs-before"), nov2, nov30))

	w48 := report("2026-W48")
	var rec *analysis.Recommendation
	for i := range w48.Recommendations {
		if w48.Recommendations[i].ResourceID == "gpu-r" {
			rec = &w48.Recommendations[i]
		}
	}
	if rec == nil || rec.Action != analysis.ActionStopWhenIdle || rec.ID != analysis.AdviceID("gpu-r", analysis.ActionStopWhenIdle) {
		t.Fatalf("W48 advice of gpu-r %+v, want stop_when_idle with its id", rec)
	}
	testnum.Near(t, "W48 monthly_savings", rec.MonthlySavings, 2088, 0.005)
	if out := run("advice", "--week", "2026-W48", "done", rec.ID, "--why", "stopped when idle"); !strings.Contains(out, rec.ID) {
		t.Errorf("advice done does not name %s:\n%s", rec.ID, out)
	}

	// Two weeks on: Mon Dec 14, 03:00 UTC, W50 is the last complete week.
	clock = time.Date(2026, 12, 14, 3, 0, 0, 0, time.UTC)
	dec1 := nov30.AddDate(0, 0, 1)
	spans, amounts = nil, nil
	for d := range 13 {
		day := dec1.AddDate(0, 0, d)
		spans = append(spans, [2]time.Time{day.Add(8 * time.Hour), day.Add(14 * time.Hour)})
		amounts = append(amounts, "24.00")
	}
	run("ingest", writeHourlyBill(t, filepath.Join(dir, "after.csv"), spans, amounts))
	run("ingest", "--host", "gpu-r", "--tz", "UTC", writeBusyLogs(t, filepath.Join(dir, "logs-after"), dec1, dec1.AddDate(0, 0, 13)))

	w50 := report("2026-W50")
	for _, r := range w50.Recommendations {
		if r.ID == rec.ID {
			t.Errorf("W50 still recommends %s (%s on %s)", r.ID, r.Action, r.ResourceID)
		}
	}
	a := w50.Advice
	if a == nil || len(a.Realised) != 1 {
		t.Fatalf("W50 advice %+v, want one realised entry", a)
	}
	got := a.Realised[0]
	if got.ID != rec.ID || got.Status != analysis.RealisedMeasured || got.DaysAfter != 13 || got.BeforeFromBaseline {
		t.Errorf("realised %+v, want %s measured over 13 days from the bills", got, rec.ID)
	}
	if !got.DecidedAt.Equal(now) {
		t.Errorf("decided at %v, want the clock's %v", got.DecidedAt, now)
	}
	testnum.Near(t, "before per day", got.BeforePerDay, 96, 0.005)
	testnum.Near(t, "after per day", got.AfterPerDay, 24, 0.005)
	testnum.Near(t, "realised", got.RealisedMonthlySavings, 2191.50, 0.005)
	testnum.Near(t, "expected", got.ExpectedMonthlySavings, 2088, 0.005)
	testnum.Near(t, "realised total", a.RealisedMonthlySavings, 2191.50, 0.005)
	if a.TooEarly != 0 {
		t.Errorf("too early %d, want 0", a.TooEarly)
	}
}
