package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
	"github.com/finops-oss/finops/internal/report"
	"github.com/finops-oss/finops/internal/testnum"
)

// smiHead is the header of the nvidia-smi logs these tests write, and
// smiLine one of its rows: GPU g of gpu-a at t, with util ("[N/A]" or
// "85 %").
const smiHead = "timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], memory.total [MiB], memory.used [MiB]\n"

func smiLine(at time.Time, g int, util string) string {
	return fmt.Sprintf("%s, NVIDIA A100-SXM4-80GB, 00000000:%02X:00.0, %d, %s, %s, 81920 MiB, 40000 MiB\n",
		at.Format("2006/01/02 15:04:05.000"), 7+g, g, weekUUIDs[g], util)
}

// writeSMIDays writes the week's nvidia-smi logs (weekUtil's values, UTC
// timestamps) for days [0, days): an exporter that died after them.
func writeSMIDays(t *testing.T, dir string, days int) string {
	t.Helper()
	logs := filepath.Join(dir, "logs")
	if err := os.Mkdir(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	for day := range days {
		var b strings.Builder
		b.WriteString(smiHead)
		for m := day * 1440; m < (day+1)*1440; m++ {
			for g := range 2 {
				util := "[N/A]"
				if u, ok := weekUtil(g, m); ok {
					util = strconv.FormatFloat(u, 'f', -1, 64) + " %"
				}
				b.WriteString(smiLine(weekStart.Add(time.Duration(m)*time.Minute), g, util))
			}
		}
		if err := os.WriteFile(filepath.Join(logs, fmt.Sprintf("gpu-a-%d.csv", day)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return logs
}

// TestExporterDiedMidWeek: the week's bill (2 × A100, 336 GPU-hours at
// 2.40 a GPU-hour) with nvidia-smi logs that stop on Thursday 00:00. The
// report says the data is incomplete at the top of every output, calls
// idle a lower bound, never "idle ¥0", and exits 3.
//
// By hand, from weekUtil:
//   - a sample covers the minute after it too when the next one is missing
//     (which makes TestNvidiaSMIWeekSameNumbers' 7 × 120 [N/A] minutes 833
//     unmonitored: 119 a day), so the last samples, Wed 23:59, also cover
//     Thu 00:00 on both GPUs;
//   - monitored: 3 days × 2 GPUs × 1,440 = 8,640 minutes, less 3 × 119 of
//     GPU 0's [N/A], plus the 2 carried minutes: 8,285 min = 138.0833 h;
//   - unmonitored: 336 h − 138.0833 = 197.9167 h; coverage 8,285 / 20,160 =
//     41.1 %;
//   - idle: GPU 0 Mon 00–08 (8 h), Mon 20:00–Tue 08:00 (12 h), Tue 20:00–Wed
//     08:00 (12 h), Wed 20:00–Thu 00:01 (4 h 1 min, the carried minute at
//     1 %); GPU 1 02:00–03:00 on each of 3 days (3 h): 39 h 1 min, × 2.40 =
//     93.64.
func TestExporterDiedMidWeek(t *testing.T) {
	dir := t.TempDir()
	r, out := reportWeek(t, dir, "json,html", cli.ExitPartial, []string{"ingest", "--host", "gpu-a", "--tz", "UTC", writeSMIDays(t, dir, 3)})
	rep := filepath.Join(dir, "out")
	tot := r.Totals
	testnum.Near(t, "gpu_hours_billed", tot.GPUHoursBilled, 336, 0.005)
	testnum.Near(t, "gpu_hours_unmonitored", tot.GPUHoursUnmonitored, 336-8285.0/60, 0.005)
	testnum.Near(t, "coverage", r.DataQuality.Coverage, 8285.0/20160, 0.005)
	testnum.Near(t, "gpu_hours_idle", tot.GPUHoursIdle, 39+1.0/60, 0.005)
	testnum.Near(t, "idle_cost", tot.IdleCost, 93.64, 0.005)
	inc := strings.Join(r.DataQuality.Incomplete, "\n")
	for _, w := range []string{"Source nvidia-smi gpu-a is stale: 3 files, data until 2026-11-25T23:59:00Z",
		"Telemetry covers 41% of the 336.0 billed GPU-hours (at least 80% is needed)"} {
		if !strings.Contains(inc, w) {
			t.Errorf("data_quality.incomplete lacks %q:\n%s", w, inc)
		}
	}
	// The terminal summary starts with it.
	if i, j := strings.Index(out, "Data incomplete"), strings.Index(out, "Total cost"); i < 0 || i > j {
		t.Errorf("the summary does not open with the incomplete data:\n%s", out)
	}
	page, err := os.ReadFile(filepath.Join(rep, "finops-2026-W48.html"))
	if err != nil {
		t.Fatal(err)
	}
	// The page opens with it, before the headline and the figures.
	p := string(page)
	if i, j := strings.Index(p, `class="incomplete"`), strings.Index(p, `class="headline"`); i < 0 || i > j {
		t.Errorf("the page does not open with the incomplete data")
	}
	if !strings.Contains(p, "≥ ¥93.64") || !strings.Contains(p, "at least ¥93.64 (12%) of it paid for idle GPUs (41% of GPU-hours monitored)") {
		i := strings.Index(p, "93.6")
		t.Errorf("the page does not call idle a lower bound: %q", p[max(i-200, 0):min(i+100, len(p))])
	}
	// The idle card's parts add up to it (issue #27: it showed "of which
	// unallocated ¥806.40", every billed minute no task held, unmonitored
	// ones included, inside an idle cost of ¥93.64). No task ran: all the
	// idle cost is idle no task held, none allocated: that 0 is exact (no
	// task held a minute nobody saw), the part no task held a lower bound
	// as the whole is (issue 33: parts of a lower bound are lower bounds).
	for _, part := range []string{"of which idle, no task held</span> <strong>≥ ¥93.64</strong>",
		"of which allocated but idle</span> <strong>¥0.00</strong>"} {
		if !strings.Contains(p, part) {
			t.Errorf("the idle card lacks %q", part)
		}
	}
	if strings.Contains(p, "of which unallocated") {
		t.Error("the idle card shows the unallocated cost as a part of the idle cost")
	}
	// Every email: the whole report's and each team's.
	for _, team := range append([]string{""}, teamsOf(r)...) {
		res := &r
		if team != "" {
			res = r.ForTeam(team)
		}
		subject, text, _, err := report.EmailBody(res, report.EmailOptions{Team: team})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(subject, "· data incomplete") || strings.Contains(subject, "idle ¥0") || !strings.Contains(subject, "idle ≥ ¥94") {
			t.Errorf("team %q: subject %q", team, subject)
		}
		if !strings.Contains(text, "is stale") {
			t.Errorf("team %q: the body does not say the telemetry stopped:\n%s", team, text)
		}
	}
}

// TestNoTelemetryIdleUnknown: the bill with no telemetry at all but a
// source that stopped the week before: idle is "unknown", not ¥0.
func TestNoTelemetryIdleUnknown(t *testing.T) {
	dir := t.TempDir()
	// One hour of last week's Monday (Nov 16 00:00–00:59), before the window.
	logs := filepath.Join(dir, "old.csv")
	var b strings.Builder
	b.WriteString(smiHead)
	for m := range 60 {
		b.WriteString(smiLine(weekStart.AddDate(0, 0, -7).Add(time.Duration(m)*time.Minute), 0, "50 %"))
	}
	if err := os.WriteFile(logs, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r, out := reportWeek(t, dir, "json,html", cli.ExitPartial, []string{"ingest", "--host", "gpu-a", "--tz", "UTC", logs})
	// The source did not vanish from the box: it is there, stale.
	stale := false
	for _, s := range r.DataQuality.Sources {
		stale = stale || s.Status == "stale" && s.Name == "nvidia-smi gpu-a"
	}
	if !stale {
		t.Errorf("the source that stopped is not in the data-quality box: %+v", r.DataQuality.Sources)
	}
	subject, _, _, err := report.EmailBody(&r, report.EmailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(subject, "idle unknown (no telemetry)") || !strings.Contains(out, "Idle cost            unknown") {
		t.Errorf("subject %q / summary:\n%s", subject, out)
	}
	// Unknown is not zero below the headline too (issue 33): gpu-a's row in
	// the terminal and the page, and its, its team's and the totals' JSON.
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "gpu-a") && strings.Contains(l, "A100") && strings.Count(l, "unknown") != 2 {
			t.Errorf("gpu-a's row in the summary: %q, want its idle cost and utilization unknown", l)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, "out", "finops-2026-W48.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<td class="num">unknown</td><td class="num">unknown</td></tr>`) {
		t.Error("the page's resource row of gpu-a does not read unknown, unknown")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "out", "finops-2026-W48.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Totals     map[string]any   `json:"totals"`
		ByTeam     []map[string]any `json:"by_team"`
		ByResource []map[string]any `json:"by_resource"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	rows := append([]map[string]any{doc.Totals}, append(doc.ByTeam, doc.ByResource...)...)
	for _, m := range rows {
		for _, k := range []string{"idle_cost", "avg_utilization", "avg_gpu_utilization"} {
			if v, ok := m[k]; ok && v != nil {
				t.Errorf("%s of %v = %v, want null: nobody measured it", k, m["resource_id"], v)
			}
		}
		if c, ok := m["coverage"]; !ok || c != 0.0 {
			t.Errorf("coverage beside it = %v, want 0", c)
		}
	}
}

// teamsOf lists the report's teams.
func teamsOf(r analysis.Result) []string {
	var out []string
	for _, t := range r.ByTeam {
		out = append(out, t.Team)
	}
	return out
}

// TestIngestHostClockAhead: an nvidia-smi log from a host whose clock runs
// a year ahead. A log of only such samples is refused naming the clock; a
// log with some is imported without them, and the warning reaches the
// report's data-quality box.
func TestIngestHostClockAhead(t *testing.T) {
	dir := t.TempDir()
	line := func(at time.Time) string { return smiLine(at, 0, "50 %") }
	ahead := now.AddDate(1, 0, 0) // the test clock's now, a year on
	allAhead := filepath.Join(dir, "ahead.csv")
	mixed := filepath.Join(dir, "mixed.csv")
	os.WriteFile(allAhead, []byte(smiHead+line(ahead)+line(ahead.Add(time.Minute))), 0o644)
	os.WriteFile(mixed, []byte(smiHead+line(weekStart)+line(weekStart.Add(time.Minute))+line(ahead)), 0o644)
	db := filepath.Join(dir, "f.db")
	code, out, _ := runFinops(t, "--db", db, "ingest", "--host", "gpu-a", "--tz", "UTC", allAhead)
	if code != cli.ExitFailed || !strings.Contains(out, "every sample is refused: 2 samples dated after 2026-11-30T04:00:00Z, up to 2027-11-30T03:01:00Z: the host's clock runs ahead") {
		t.Errorf("a log a year ahead: exit %d:\n%s", code, out)
	}
	code, out, _ = runFinops(t, "--db", db, "ingest", "--host", "gpu-a", "--tz", "UTC", mixed)
	if code != 0 || !strings.Contains(out, "warning: "+mixed+":4: field \"timestamp\": 1 samples dated after") {
		t.Errorf("a log with one sample a year ahead: exit %d:\n%s", code, out)
	}
	// The good samples (Nov 23) are older than utilization.hot_days: one
	// compacted GPU-day. The refused one would be a minute row of 2027.
	if c := counts(t, db); c["gpu_days"] != 1 || c["gpu_minutes"] != 0 {
		t.Errorf("stored %d GPU-days and %d minute rows, want the good samples' one day only", c["gpu_days"], c["gpu_minutes"])
	}
	// The week's report repeats the warning in its data-quality box.
	rep := filepath.Join(dir, "out")
	if code, out, errs := runFinops(t, "--db", db, "report", "--week", "2026-W48", "--format", "json", "--out", rep); code != 0 && code != cli.ExitPartial {
		t.Fatalf("report: exit %d\n%s%s", code, out, errs)
	}
	r := readSummary(t, filepath.Join(rep, "finops-2026-W48.json"))
	if w := strings.Join(r.DataQuality.Warnings, "\n"); !strings.Contains(w, "1 samples dated after 2026-11-30T04:00:00Z") {
		t.Errorf("the report's warnings do not repeat the clock's:\n%s", w)
	}
}

// TestRunExporterDiedMidWeek: the same week through the scheduled run,
// whose data-quality box lists its configured sources: the run reads the
// logs, names the telemetry that stopped, and exits 3.
func TestRunExporterDiedMidWeek(t *testing.T) {
	dir := t.TempDir()
	logs := writeSMIDays(t, dir, 3)
	cfg := filepath.Join(dir, "finops.yaml")
	yaml := fmt.Sprintf("database: %s\nout: %s\nformats: [json]\nbilling:\n  - path: %s\n    mapping: autodl\n"+
		"utilization:\n  nvidia_smi:\n    - path: %s/*.csv\n      host: gpu-a\n      timezone: UTC\n",
		filepath.Join(dir, "f.db"), filepath.Join(dir, "out"), writeWeekBill(t, dir), logs)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runFinops(t, "--config", cfg, "run", "--week", "2026-W48", "--no-upload", "--no-email")
	if code != cli.ExitPartial {
		t.Fatalf("run: exit %d, want %d\n%s%s", code, cli.ExitPartial, out, errs)
	}
	r := readSummary(t, filepath.Join(dir, "out", "finops-2026-W48.json"))
	inc := strings.Join(r.DataQuality.Incomplete, "\n")
	// 8,285 of 20,160 GPU-minutes monitored (TestExporterDiedMidWeek). The
	// configured source is one row, named as configured (its glob), with
	// the date its data ends (issue #33: not the glob "ok" and the host
	// "stale" beside it).
	for _, w := range []string{"Source " + logs + "/*.csv is stale: 3 files, data until 2026-11-25T23:59:00Z",
		"Telemetry covers 41% of the 336.0 billed GPU-hours"} {
		if !strings.Contains(inc, w) {
			t.Errorf("incomplete lacks %q:\n%s", w, inc)
		}
	}
}

// TestPrometheusExporterDiedMidWeek: the same week and death as
// TestExporterDiedMidWeek, served by a real Prometheus whose dcgm-exporter
// series end on Wednesday 23:59. The minutes Prometheus' lookback would
// repeat after them are not samples, so the figures are the nvidia-smi
// logs' to the minute: 8,285 of 20,160 GPU-minutes monitored, idle 39 h
// 1 min (¥93.64); the report is incomplete and exits 3.
func TestPrometheusExporterDiedMidWeek(t *testing.T) {
	srv := promtest.Start(t, weekOpenMetricsUntil(3*1440))
	r, _ := reportWeek(t, t.TempDir(), "json", cli.ExitPartial,
		[]string{"ingest", "prometheus", "--url", srv.URL, "--name", "lab", "--from", "2026-11-23", "--to", "2026-11-29"})
	testnum.Near(t, "gpu_hours_unmonitored", r.Totals.GPUHoursUnmonitored, 336-8285.0/60, 0.005)
	testnum.Near(t, "coverage", r.DataQuality.Coverage, 8285.0/20160, 0.005)
	testnum.Near(t, "gpu_hours_idle", r.Totals.GPUHoursIdle, 39+1.0/60, 0.005)
	testnum.Near(t, "idle_cost", r.Totals.IdleCost, 93.64, 0.005)
	inc := strings.Join(r.DataQuality.Incomplete, "\n")
	if !strings.Contains(inc, "is stale") || !strings.Contains(inc, "Telemetry covers 41% of the 336.0 billed GPU-hours") {
		t.Errorf("data_quality.incomplete:\n%s", inc)
	}
	subject, _, _, err := report.EmailBody(&r, report.EmailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(subject, "idle ≥ ¥94 (12%) · data incomplete") {
		t.Errorf("subject %q", subject)
	}
}

// TestPartialLogsWarning: a report written with incomplete data (exit 3)
// is logged as a warning, not as "finops failed" at ERROR: the report is
// there and says what is missing.
func TestPartialLogsWarning(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	for _, args := range [][]string{{"ingest", writeWeekBill(t, dir)}, {"ingest", "--host", "gpu-a", "--tz", "UTC", writeSMIDays(t, dir, 3)}} {
		if code, out, errs := runFinops(t, append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	code, _, errs := runFinops(t, "--db", db, "--log-format", "json", "report", "--week", "2026-W48", "--format", "json", "--out", filepath.Join(dir, "out"))
	if code != cli.ExitPartial {
		t.Fatalf("exit %d, want %d\n%s", code, cli.ExitPartial, errs)
	}
	if strings.Contains(errs, "finops failed") || !strings.Contains(errs, `"level":"WARN","msg":"finops finished, but not everything is complete","exit":3`) {
		t.Errorf("stderr does not log the partial report as a warning:\n%s", errs)
	}
}
