package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/testnum"
)

// writeWeeksBill writes nine weeks of AutoDL bills in writeWeekBill's
// format, 2026-W40 to W48 (Mon Sep 28 to Mon Nov 30, 08:00 in the bill's
// +08:00: midnight UTC): gpu-a (2 GPUs) and gpu-b (1 GPU) rented by the
// week at the amounts given.
func writeWeeksBill(t *testing.T, dir string, a, b []string) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString("实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n")
	w40 := time.Date(2026, 9, 28, 8, 0, 0, 0, time.UTC)
	for k := range a {
		s, e := w40.AddDate(0, 0, 7*k).Format(time.DateTime), w40.AddDate(0, 0, 7*k+7).Format(time.DateTime)
		fmt.Fprintf(&sb, "gpu-a,训练机,A100-SXM4-80GB * 2,包周,%s,%s,¥%s,¥%s\n", s, e, a[k], a[k])
		fmt.Fprintf(&sb, "gpu-b,推理机,A100-SXM4-80GB * 1,包周,%s,%s,¥%s,¥%s\n", s, e, b[k], b[k])
	}
	p := filepath.Join(dir, "autodl-weeks.csv")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportTrend ingests nine weeks of bills and reports W48 with ten
// weeks of history (report.trend_weeks: 10). By hand:
//
//	gpu-a (infra): 700, 720, 680, 700, 800, 800, 760, 840, 1200 (W40…W48)
//	gpu-b (ml):    300 a week, 150 in W48
//	totals:        1000, 1020, 980, 1000, 1100, 1100, 1060, 1140, 1350
//	W39 ends where the first bill starts (Sep 28): absent, not zero.
//	No telemetry: coverage 0 every week, so idle (0) is a lower bound.
//	flags: W40–W43 have fewer than 4 weeks before them: not_enough_history.
//	  W44: [980, 1020] ± max(40/2, 1000/10) = [880, 1120]: 1100 in range.
//	  W47: [1000, 1100] ± max(50, 106.5): 1140 ≤ 1206.5, in range.
//	  W48: [1060, 1140] ± max(40, 110) = [950, 1250]: 1350 above.
//	  infra W48: [760, 840] ± max(40, 80): 1200 > 920, above.
//	  ml W48: [300, 300] ± max(0, 30): 150 < 270, below.
//	movers (W48 against W44…W47):
//	  total mean 4400 / 4 = 1100, +250, +22.7 %;
//	  infra mean 3200 / 4 = 800, +400, +50 %; ml mean 300, −150, −50 %;
//	  top: infra, gpu-a (+400), ml, gpu-b (−150).
//
// W46 reported alone says what the history says of it: 760 + 300.
func TestReportTrend(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	bill := writeWeeksBill(t, dir, []string{"700", "720", "680", "700", "800", "800", "760", "840", "1200"},
		[]string{"300", "300", "300", "300", "300", "300", "300", "300", "150"})
	cfg := filepath.Join(dir, "finops.yaml")
	if err := os.WriteFile(cfg, []byte("report:\n  trend_weeks: 10\nteams:\n  - name: infra\n  - name: ml\n"+
		"resources:\n  - id: gpu-a\n    team: infra\n  - id: gpu-b\n    team: ml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runFinops(t, "--config", cfg, "--db", db, "ingest", bill); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, errs)
	}
	report := func(week string) analysis.Result {
		t.Helper()
		out := filepath.Join(dir, week)
		if code, stdout, errs := runFinops(t, "--config", cfg, "--db", db, "report", "--week", week, "--format", "json", "--out", out); code != 0 {
			t.Fatalf("report %s: exit %d\n%s%s", week, code, stdout, errs)
		}
		return readSummary(t, filepath.Join(out, "finops-"+week+".json"))
	}
	r := report("2026-W48")
	tr := r.Trend
	if tr == nil {
		t.Fatal("no trend in the JSON summary")
	}
	if tr.WeeksAsked != 10 || strings.Join(tr.AbsentWeeks, ",") != "2026-W39" {
		t.Errorf("weeks asked %d, absent %v; want 10 and [2026-W39]", tr.WeeksAsked, tr.AbsentWeeks)
	}
	totals := []float64{1000, 1020, 980, 1000, 1100, 1100, 1060, 1140, 1350}
	infra := []float64{700, 720, 680, 700, 800, 800, 760, 840, 1200}
	if len(tr.Weeks) != len(totals) {
		t.Fatalf("%d weeks, want %d", len(tr.Weeks), len(totals))
	}
	flags := []string{"not_enough_history", "not_enough_history", "not_enough_history", "not_enough_history",
		"in_range", "in_range", "in_range", "in_range", "above_range"}
	for i, w := range tr.Weeks {
		if want := fmt.Sprintf("2026-W%02d", 40+i); w.Label != want {
			t.Errorf("week %d is %s, want %s", i, w.Label, want)
		}
		testnum.Near(t, w.Label+" cost", w.Cost, totals[i], 0.005)
		testnum.Near(t, w.Label+" idle", w.IdleCost, 0, 0.005)
		if !w.IdleLowerBound || w.Coverage != 0 {
			t.Errorf("%s: coverage %v, lower bound %v; want 0 and a lower bound", w.Label, w.Coverage, w.IdleLowerBound)
		}
		if w.Anomaly != flags[i] {
			t.Errorf("%s anomaly %s, want %s", w.Label, w.Anomaly, flags[i])
		}
		if len(w.Teams) != 2 || w.Teams[0].Team != "infra" {
			t.Fatalf("%s teams %+v, want infra then ml", w.Label, w.Teams)
		}
		testnum.Near(t, w.Label+" infra", w.Teams[0].Cost, infra[i], 0.005)
	}
	last := tr.Weeks[8]
	if last.Teams[0].Anomaly != "above_range" || last.Teams[1].Anomaly != "below_range" {
		t.Errorf("W48 infra %s, ml %s; want above_range, below_range", last.Teams[0].Anomaly, last.Teams[1].Anomaly)
	}
	if !tr.EnoughHistory || tr.TotalMover == nil || tr.TotalMover.ChangePct == nil {
		t.Fatalf("W48 has four weeks before it: want movers, got %+v", tr.TotalMover)
	}
	testnum.Near(t, "total mean", tr.TotalMover.Mean, 1100, 0.005)
	testnum.Near(t, "total change", tr.TotalMover.Change, 250, 0.005)
	testnum.Near(t, "total change %", *tr.TotalMover.ChangePct, 250.0/1100, 0.005)
	var top []string
	for _, m := range tr.TopMovers {
		top = append(top, m.Name)
	}
	if strings.Join(top, ",") != "infra,gpu-a,ml,gpu-b" {
		t.Errorf("top movers %v, want infra, gpu-a, ml, gpu-b", top)
	}
	testnum.Near(t, "infra change", tr.TopMovers[0].Change, 400, 0.005)
	testnum.Near(t, "ml change", tr.TopMovers[2].Change, -150, 0.005)

	own := report("2026-W46")
	w46 := tr.Weeks[6]
	testnum.Near(t, "W46 alone", own.Totals.Cost, 1060, 0.005)
	testnum.Near(t, "W46 in the history", w46.Cost, own.Totals.Cost, 0.005)
	testnum.Near(t, "W46 idle", w46.IdleCost, own.Totals.IdleCost, 0.005)
	for i, tc := range own.ByTeam {
		if w46.Teams[i].Team != tc.Team {
			t.Fatalf("W46 team %d: %s in the history, %s alone", i, w46.Teams[i].Team, tc.Team)
		}
		testnum.Near(t, "W46 "+tc.Team, w46.Teams[i].Cost, tc.Cost, 0.005)
	}
}
