package e2e

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/cli"
)

// The two fleets of the rollup tests, AutoDL bills of week 2026-W48 (China
// time: 08:00 is 00:00 UTC). Every price is a whole number of cents per
// GPU-minute — A100 ¥806.40 / (2 GPUs × 10,080 min) = ¥0.04, RTX 4090
// ¥201.60 / 10,080 = ¥403.20 / 20,160 = ¥0.02 — so every minute, and every
// idle, team and resource amount, is an exact number of cents: rounding each
// shard's JSON to the cent cannot differ from rounding the one report of
// both fleets.
//
//	eu: gpu-a  A100 × 2      ¥806.40  team nlp     telemetry: the week's (weekOpenMetrics)
//	    gpu-b  RTX 4090 × 1  ¥201.60  team vision  none
//	cn: gpu-c  A100 × 2      ¥806.40  team nlp     none
//	    gpu-d  RTX 4090 × 2  ¥403.20  team speech  none
const (
	rollupBillEU = "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n" +
		"gpu-a,训练机,A100-SXM4-80GB * 2,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥806.40,¥806.40\n" +
		"gpu-b,推理机,RTX 4090 * 1,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥201.60,¥201.60\n"
	rollupBillCN = "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n" +
		"gpu-c,训练机,A100-SXM4-80GB * 2,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥806.40,¥806.40\n" +
		"gpu-d,推理机,RTX 4090 * 2,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥403.20,¥403.20\n"
	rollupTeams = "timezone: UTC\nthresholds: {min_coverage: %s}\nteams: [{name: nlp}, {name: vision}, {name: speech}]\n" +
		"resources:\n  - {id: gpu-a, team: nlp}\n  - {id: gpu-b, team: vision}\n  - {id: gpu-c, team: nlp}\n  - {id: gpu-d, team: speech}\n"
)

// rollupFleet writes files into dir: name → body.
func rollupFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rollupReport ingests each file into a new database in dir with the config
// in dir, reports 2026-W48 as JSON into dir/out and returns the summary's path.
func rollupReport(t *testing.T, dir string, wantCode int, files ...string) string {
	t.Helper()
	cfg, db := filepath.Join(dir, "finops.yaml"), filepath.Join(dir, "f.db")
	for _, f := range files {
		if code, out, errs := runFinops(t, "--config", cfg, "--db", db, "ingest", filepath.Join(dir, f)); code != 0 {
			t.Fatalf("ingest %s: exit %d\n%s%s", f, code, out, errs)
		}
	}
	out := filepath.Join(dir, "out")
	if code, stdout, errs := runFinops(t, "--config", cfg, "--db", db, "report", "--week", "2026-W48", "--format", "json", "--out", out); code != wantCode {
		t.Fatalf("report %s: exit %d, want %d\n%s%s", dir, code, wantCode, stdout, errs)
	}
	return filepath.Join(out, "finops-2026-W48.json")
}

func cents(v float64) int64 { return int64(math.Round(v * 100)) }

// TestRollupEqualsOneReport: finops rollup over two shards' summaries equals
// one finops over both fleets, to the cent. By hand (prices above):
//
//	eu cost 806.40 + 201.60 = 1,008.00; cn 806.40 + 403.20 = 1,209.60
//	total = GPU cost = 2,217.60
//	idle: gpu-a's 91 h at ¥0.04 a GPU-minute = 218.40 (telemetryWeek's
//	  hand count); nothing else is monitored, so nothing else is idle
//	teams: nlp 806.40 + 806.40 = 1,612.80 (idle 218.40), vision 201.60, speech 403.20
//	billed GPU-hours: 336 + 168 + 336 + 336 = 1,176; monitored: gpu-a's
//	  336 − 833/60 = 322.1166…; coverage eu 322.1166/504, cn 0,
//	  the fleet 322.1166/1,176 = 0.27391…; min_coverage 0.2: all complete
func TestRollupEqualsOneReport(t *testing.T) {
	root := t.TempDir()
	eu, cn, both := filepath.Join(root, "eu"), filepath.Join(root, "cn"), filepath.Join(root, "both")
	om := string(weekOpenMetrics())
	cfg := strings.Replace(rollupTeams, "%s", "0.2", 1)
	for _, d := range []string{eu, cn, both} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		rollupFiles(t, d, map[string]string{"finops.yaml": cfg})
	}
	rollupFiles(t, eu, map[string]string{"autodl-eu.csv": rollupBillEU, "dcgm-week.om": om})
	rollupFiles(t, cn, map[string]string{"autodl-cn.csv": rollupBillCN})
	rollupFiles(t, both, map[string]string{"autodl-eu.csv": rollupBillEU, "autodl-cn.csv": rollupBillCN, "dcgm-week.om": om})
	euJSON := rollupReport(t, eu, 0, "autodl-eu.csv", "dcgm-week.om")
	cnJSON := rollupReport(t, cn, 0, "autodl-cn.csv")
	one := readSummary(t, rollupReport(t, both, 0, "autodl-eu.csv", "autodl-cn.csv", "dcgm-week.om"))

	org := filepath.Join(root, "org")
	code, out, errs := runFinops(t, "rollup", "--name", "eu", "--name", "cn", "--out", org, "--format", "json,html,xlsx", euJSON, cnJSON)
	if code != 0 {
		t.Fatalf("rollup: exit %d\n%s%s", code, out, errs)
	}
	// The terminal summary's shard table: eu 322.1166 / 504 = 63.9 % covered.
	if !regexp.MustCompile(`(?m)^  eu +¥1,008\.00 +504\.0 h +63\.9% +no$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^  cn +¥1,209\.60 +672\.0 h +0\.0% +no$`).MatchString(out) {
		t.Errorf("summary without the shards' lines:\n%s", out)
	}
	got := readSummary(t, filepath.Join(org, "finops-2026-W48.json"))
	for _, f := range []string{"finops-2026-W48.html", "finops-2026-W48.xlsx"} {
		if _, err := os.Stat(filepath.Join(org, f)); err != nil {
			t.Errorf("rollup did not write %s: %v", f, err)
		}
	}
	checkRollupMoney(t, got, one)
	checkRollupCoverage(t, got, one)
	checkRollupIncompleteShard(t, eu, org, cnJSON)
}

// checkRollupMoney: the rollup and the one report hold the totals, teams'
// and resources' costs computed by hand.
func checkRollupMoney(t *testing.T, got, one analysis.Result) {
	t.Helper()

	for _, c := range []struct {
		name         string
		roll, single float64
		want         int64 // cents, by hand
	}{
		{"cost", got.Totals.Cost, one.Totals.Cost, 221760},
		{"gpu_cost", got.Totals.GPUCost, one.Totals.GPUCost, 221760},
		{"idle_cost", got.Totals.IdleCost, one.Totals.IdleCost, 21840},
	} {
		if cents(c.roll) != c.want || cents(c.single) != c.want {
			t.Errorf("%s: rollup %.2f, one report %.2f, want %.2f", c.name, c.roll, c.single, float64(c.want)/100)
		}
	}
	teams := func(r analysis.Result) map[string][2]int64 {
		m := map[string][2]int64{}
		for _, tc := range r.ByTeam {
			m[tc.Team] = [2]int64{cents(tc.Cost), cents(tc.IdleCost)}
		}
		return m
	}
	wantTeams := map[string][2]int64{"nlp": {161280, 21840}, "vision": {20160, 0}, "speech": {40320, 0}}
	for name, r := range map[string]analysis.Result{"rollup": got, "one report": one} {
		if tm := teams(r); len(tm) != len(wantTeams) {
			t.Errorf("%s teams %v, want %v", name, tm, wantTeams)
		}
		for team, w := range wantTeams {
			if g := teams(r)[team]; g != w {
				t.Errorf("%s team %s: cost, idle %v cents, want %v", name, team, g, w)
			}
		}
	}
	resources := func(r analysis.Result) map[string]int64 {
		m := map[string]int64{}
		for _, rc := range r.ByResource {
			m[rc.ResourceID] = cents(rc.Cost)
		}
		return m
	}
	wantRes := map[string]int64{"gpu-a": 80640, "gpu-b": 20160, "gpu-c": 80640, "gpu-d": 40320}
	for name, r := range map[string]analysis.Result{"rollup": got, "one report": one} {
		rm := resources(r)
		if len(rm) != len(wantRes) {
			t.Errorf("%s resources %v, want %v", name, rm, wantRes)
		}
		for id, w := range wantRes {
			if rm[id] != w {
				t.Errorf("%s resource %s: %d cents, want %d", name, id, rm[id], w)
			}
		}
	}
}

// checkRollupCoverage: the fleet's and each shard's coverage are the hand
// count's, the shards named and complete, the merged team warned of.
func checkRollupCoverage(t *testing.T, got, one analysis.Result) {
	t.Helper()
	monitored := 336 - 833.0/60
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"rollup coverage", got.DataQuality.Coverage, monitored / 1176},
		{"one report's coverage", one.DataQuality.Coverage, monitored / 1176},
		{"shard eu coverage", got.Shards[0].Coverage, monitored / 504},
		{"shard cn coverage", got.Shards[1].Coverage, 0},
		{"shard eu monitored", got.Shards[0].GPUHoursMonitored, monitored},
		{"shard cn billed", got.Shards[1].GPUHoursBilled, 672},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %.12f, want %.12f", c.name, c.got, c.want)
		}
	}
	if len(got.Shards) != 2 || got.Shards[0].Name != "eu" || cents(got.Shards[0].Cost) != 100800 || cents(got.Shards[1].Cost) != 120960 ||
		got.Shards[0].Incomplete || got.Shards[1].Incomplete {
		t.Errorf("shards %+v", got.Shards)
	}
	if !strings.Contains(strings.Join(got.DataQuality.Warnings, "\n"), "Team nlp appears in shards eu, cn") {
		t.Errorf("warnings %q: want the merged team named", got.DataQuality.Warnings)
	}

}

// checkRollupIncompleteShard: an incomplete shard: eu's telemetry covers
// 64% of its GPU-hours, under a min_coverage of 0.9. Its report and the
// rollup exit 3, naming it.
func checkRollupIncompleteShard(t *testing.T, eu, org, cnJSON string) {
	t.Helper()
	rollupFiles(t, eu, map[string]string{"finops.yaml": strings.Replace(rollupTeams, "%s", "0.9", 1)})
	if err := os.RemoveAll(filepath.Join(eu, "f.db")); err != nil {
		t.Fatal(err)
	}
	euJSON := rollupReport(t, eu, cli.ExitPartial, "autodl-eu.csv", "dcgm-week.om")
	code, out, errs := runFinops(t, "rollup", "--name", "eu", "--name", "cn", "--out", org, "--format", "json", euJSON, cnJSON)
	if code != cli.ExitPartial || !strings.Contains(errs, "Shard eu: Telemetry covers 64% of the 504.0 billed GPU-hours") {
		t.Errorf("rollup with eu incomplete: exit %d, want %d\n%s%s", code, cli.ExitPartial, out, errs)
	}
	if s := readSummary(t, filepath.Join(org, "finops-2026-W48.json")); len(s.Shards) != 2 || !s.Shards[0].Incomplete || s.Shards[1].Incomplete {
		t.Errorf("shards %+v: want eu incomplete", s.Shards)
	}
	// For scripts: one JSON result line saying so.
	code, out, errs = runFinops(t, "--log-format", "json", "rollup", "--name", "eu", "--name", "cn", "--out", org, "--format", "json", euJSON, cnJSON)
	if code != cli.ExitPartial || !strings.HasPrefix(out, `{"command":"rollup","period":"2026-W48","status":"partial","exit_code":3,"files":["`) {
		t.Errorf("--log-format json: exit %d\n%s%s", code, out, errs)
	}
}

// TestRollupRefusesAndConverts: what finops rollup refuses, with exit 2 and
// what to do, and a USD shard converted at a given rate. The shards are real
// reports: eu (rollupBillEU, no telemetry: ¥1,008.00), cn (rollupBillCN),
// cn for a different period, and us, chargebackBill's FOCUS export (USD
// 118.33: ml 80.00, infer 20.00, unassigned 18.33, with allocation and
// chargeback configured).
func TestRollupRefusesAndConverts(t *testing.T) {
	root := t.TempDir()
	dirs := map[string]string{}
	for _, n := range []string{"eu", "cn", "cnshort", "us"} {
		dirs[n] = filepath.Join(root, n)
		if err := os.MkdirAll(dirs[n], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := strings.Replace(rollupTeams, "%s", "0.2", 1)
	rollupFiles(t, dirs["eu"], map[string]string{"finops.yaml": cfg, "bill.csv": rollupBillEU})
	rollupFiles(t, dirs["cn"], map[string]string{"finops.yaml": cfg, "bill.csv": rollupBillCN})
	rollupFiles(t, dirs["us"], map[string]string{"finops.yaml": chargebackConfig, "bill.csv": chargebackBill})
	eu, cn, us := rollupReport(t, dirs["eu"], 0, "bill.csv"), rollupReport(t, dirs["cn"], 0, "bill.csv"), rollupReport(t, dirs["us"], 0, "bill.csv")
	short := filepath.Join(dirs["cnshort"], "cn-5d.json")
	if code, out, errs := runFinops(t, "--config", filepath.Join(dirs["cn"], "finops.yaml"), "--db", filepath.Join(dirs["cn"], "f.db"), "report",
		"--from", "2026-11-23", "--to", "2026-11-27", "--format", "json", "--out", dirs["cnshort"]); code != 0 {
		t.Fatalf("report cn 5 days: exit %d\n%s%s", code, out, errs)
	} else if err := os.Rename(filepath.Join(dirs["cnshort"], "finops-2026-11-23_2026-11-27.json"), short); err != nil {
		t.Fatal(err)
	}
	v3 := filepath.Join(root, "v3.json")
	b, err := os.ReadFile(cn)
	if err != nil {
		t.Fatal(err)
	}
	rollupFiles(t, root, map[string]string{"v3.json": strings.Replace(string(b), `"schema_version": "2"`, `"schema_version": "3"`, 1)})
	fx := filepath.Join(root, "fx.yaml")
	rollupFiles(t, root, map[string]string{"fx.yaml": "currency: CNY\nfx: {USD: 7.1}\n"})

	out := filepath.Join(root, "org")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"two files of one name", []string{eu, cn}, []string{`two shards are named "out"`, "name each with --name"}},
		{"one name twice", []string{"--name", "x", "--name", "x", eu, cn}, []string{`two shards are named "x"`}},
		{"a newer schema", []string{"--name", "eu", "--name", "cn", eu, v3}, []string{`shard cn has schema_version "3"`}},
		{"another period", []string{"--name", "eu", "--name", "cn", eu, short},
			[]string{"shard eu covers 2026-W48", "and shard cn 2026-11-23_2026-11-27", "a rollup combines one period"}},
		{"two currencies, no rate", []string{"--name", "eu", "--name", "us", eu, us},
			[]string{"the shards are in 2 currencies (CNY: eu; USD: us)", "--rate USD/CNY=<CNY per USD>"}},
		{"a bad rate", []string{"--rate", "USD:CNY=7", eu, us}, []string{`--rate "USD:CNY=7"`}},
		{"a bill, not a summary", []string{filepath.Join(dirs["eu"], "bill.csv")}, []string{"shard bill.csv is not a finops JSON summary"}},
		{"csv", []string{"--format", "csv", eu}, []string{`--format "csv": want some of xlsx, html, json`}},
		{"no file", nil, []string{"requires at least 1 arg"}},
		{"over a shard", []string{"--out", filepath.Dir(eu), "--name", "eu", eu}, []string{"would write the rollup over shard eu"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"rollup", "--out", out}, c.args...)
			code, stdout, errs := runFinops(t, args...)
			if code != cli.ExitUsage {
				t.Fatalf("exit %d, want %d\n%s%s", code, cli.ExitUsage, stdout, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q: want %q", errs, w)
				}
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused rollup wrote %s", out)
	}

	// At 7.1 yuan a dollar, each amount converted and rounded to the fen:
	// us 118.33 × 7.1 = 840.143 → 840.14; ml 568.00, infer 142.00,
	// unassigned 18.33 × 7.1 = 130.143 → 130.14. Total 1,008.00 + 840.14 = 1,848.14.
	const evil = `<script>alert("eu")</script>`
	for name, args := range map[string][]string{
		"--rate":     {"rollup", "--rate", "USD/CNY=7.1"},
		"config fx":  {"--config", fx, "rollup"},
		"both, flag": {"--config", fx, "rollup", "--rate", "usd/cny=7.1"},
	} {
		checkRollupConverted(t, name, filepath.Join(out, strings.ReplaceAll(name, " ", "_")), args, evil, eu, us)
	}
}

// checkRollupConverted runs the rollup of eu (named evil) and the USD shard
// us at 7.1 yuan a dollar into dir: the amounts converted to the fen, the
// dropped sections named, the shard's name escaped on the page.
func checkRollupConverted(t *testing.T, name, dir string, args []string, evil, eu, us string) {
	t.Helper()
	code, stdout, errs := runFinops(t, append(args, "--name", evil, "--name", "us", "--out", dir, "--format", "json,html", eu, us)...)
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", name, code, stdout, errs)
	}
	s := readSummary(t, filepath.Join(dir, "finops-2026-W48.json"))
	teams := map[string]int64{}
	for _, tc := range s.ByTeam {
		teams[tc.Team] = cents(tc.Cost)
	}
	if s.Currency != "CNY" || cents(s.Totals.Cost) != 184814 || teams["ml"] != 56800 || teams["infer"] != 14200 ||
		teams["unassigned"] != 13014 || teams["nlp"] != 80640 || len(s.Shards) != 2 || cents(s.Shards[1].Cost) != 84014 ||
		s.Shards[1].Currency != "USD" {
		t.Errorf("%s: %s %.2f, teams %v, shards %+v", name, s.Currency, s.Totals.Cost, teams, s.Shards)
	}
	if !strings.Contains(strings.Join(s.DataQuality.Warnings, "\n"), "Shard us: allocation, chargeback, trend not combined by the rollup") {
		t.Errorf("%s: warnings %q: want the dropped sections named", name, s.DataQuality.Warnings)
	}
	html, err := os.ReadFile(filepath.Join(dir, "finops-2026-W48.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html), evil) || !strings.Contains(string(html), "<td>&lt;script&gt;alert(&#34;eu&#34;)&lt;/script&gt;</td>") {
		t.Errorf("%s: the page does not show the shard name %q escaped", name, evil)
	}
}
