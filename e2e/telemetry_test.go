package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/nvml"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
	"github.com/finops-oss/finops/internal/testnum"
)

// The telemetry week: Monday 2026-11-23 to Monday 2026-11-30 UTC, ISO week
// 2026-W48 — the last complete week at the tests' clock. Host gpu-a has two
// A100s, rented weekly from AutoDL for ¥806.40: 2 GPUs × 168 h × ¥2.40, so
// ¥0.04 a GPU-minute. Every minute at :00 each GPU reports:
//
//	GPU-a0, every day: 00:00–08:00 3 %, 08:00–12:00 85 %, 12:00–12:20 5 % (a
//	20-minute dip: active), 12:20–18:00 90 %, 18:00–20:00 no value, 20:00–24:00 1 %.
//	GPU-a1, every day: 02:00–03:00 2 %, 14:00–14:25 8 % (25 minutes: active), else 95 %;
//	it runs the pod train-7 of namespace nlp the whole week.
//
// Hand-computed, with a sample covering its own minute and the next (60 s
// sampling): GPU-a0 is idle 00:00–08:00 and 20:00–24:00 (one 12-hour run
// across midnight): 720 min a day; unmonitored 18:01–20:00 (18:00 is covered
// by the 17:59 sample): 119 min a day. GPU-a1 is idle 60 min a day.
// Idle = 7 × (720 + 60) = 5,460 GPU-minutes = 91 h = ¥218.40; unmonitored =
// 7 × 119 = 833 min = ¥33.32; billed 336 GPU-hours = ¥806.40. The pod holds
// GPU-a1 all week: ¥403.20, of which idle 7 × 60 × ¥0.04 = ¥16.80.
var weekStart = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

const weekMinutes = 7 * 1440

// weekUtil is GPU g's utilization at minute m of the week; ok is false when
// the GPU reported no value.
func weekUtil(g, m int) (util float64, ok bool) {
	d := m % 1440
	if g == 0 {
		switch {
		case d < 480:
			return 3, true
		case d < 720:
			return 85, true
		case d < 740:
			return 5, true
		case d < 1080:
			return 90, true
		case d < 1200:
			return 0, false
		}
		return 1, true
	}
	switch {
	case d >= 120 && d < 180:
		return 2, true
	case d >= 840 && d < 865:
		return 8, true
	}
	return 95, true
}

var weekUUIDs = []string{"GPU-a1000000-0000-0000-0000-000000000000", "GPU-a1000000-0000-0000-0000-000000000001"}

// writeWeekBill writes the AutoDL bill of the week (China time: 08:00 is 00:00 UTC).
func writeWeekBill(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "autodl.csv")
	body := "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n" +
		"gpu-a,训练机,A100-SXM4-80GB * 2,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥806.40,¥806.40\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// reportWeek imports the week's bill (writeWeekBill) and then each telemetry
// ingest's arguments into a new database in dir, reports 2026-W48 in the
// formats given (json among them) into dir/out, checks the report's exit
// code and returns its JSON summary and standard output.
func reportWeek(t *testing.T, dir, formats string, wantCode int, telemetry ...[]string) (analysis.Result, string) {
	t.Helper()
	db := filepath.Join(dir, "f.db")
	for _, args := range append([][]string{{"ingest", writeWeekBill(t, dir)}}, telemetry...) {
		if code, out, errs := runFinops(t, append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	rep := filepath.Join(dir, "out")
	code, out, errs := runFinops(t, "--db", db, "report", "--week", "2026-W48", "--format", formats, "--out", rep)
	if code != wantCode {
		t.Fatalf("report: exit %d, want %d\n%s%s", code, wantCode, out, errs)
	}
	return readSummary(t, filepath.Join(rep, "finops-2026-W48.json")), out
}

// checkWeek asserts the hand-computed numbers of the week.
func checkWeek(t *testing.T, r analysis.Result, withTask bool) {
	t.Helper()
	tot := r.Totals
	testnum.Near(t, "gpu_hours_billed", tot.GPUHoursBilled, 336, 0.005)
	testnum.Near(t, "gpu_hours_idle", tot.GPUHoursIdle, 91, 0.005)
	testnum.Near(t, "idle_cost", tot.IdleCost, 218.40, 0.005)
	testnum.Near(t, "gpu_hours_unmonitored", tot.GPUHoursUnmonitored, 833.0/60, 0.005)
	testnum.Near(t, "unmonitored_cost", tot.UnmonitoredCost, 33.32, 0.005)
	testnum.Near(t, "gpu_hours_active", tot.GPUHoursActive, 336-91-833.0/60, 0.005)
	if len(r.ByResource) != 1 || r.ByResource[0].ResourceID != "gpu-a" {
		t.Fatalf("resources %+v", r.ByResource)
	}
	testnum.Near(t, "gpu-a idle_cost", r.ByResource[0].IdleCost, 218.40, 0.005)
	var spans float64
	for _, s := range r.IdleSpans {
		spans += s.Hours
	}
	testnum.Near(t, "idle span hours", spans, 91, 0.005)
	if !withTask {
		return
	}
	if len(r.Tasks) != 1 || r.Tasks[0].Task != "train-7" || r.Tasks[0].Team != "nlp" {
		t.Fatalf("tasks %+v", r.Tasks)
	}
	testnum.Near(t, "train-7 cost", r.Tasks[0].Cost, 403.20, 0.005)
	testnum.Near(t, "train-7 idle cost", r.Tasks[0].IdleCost, 16.80, 0.005)
	testnum.Near(t, "train-7 GPU-hours", r.Tasks[0].GPUHours, 168, 0.005)
}

// weekOpenMetrics is the week as dcgm-exporter history: GPU-a0 reports
// DCGM_FI_DEV_GPU_UTIL with the old Hostname label (NaN where it had no
// value), GPU-a1 DCGM_FI_PROF_GR_ENGINE_ACTIVE (a ratio) with the new
// hostname label and pod labels Prometheus renamed to exported_*.
func weekOpenMetrics() []byte { return weekOpenMetricsUntil(weekMinutes) }

// weekOpenMetricsUntil is the week's history for its first minutes only: an
// exporter that died then.
func weekOpenMetricsUntil(minutes int) []byte {
	var om promtest.OpenMetrics
	l0 := []string{"gpu", "0", "UUID", weekUUIDs[0], "device", "nvidia0", "modelName", "NVIDIA A100-SXM4-80GB",
		"Hostname", "gpu-a", "DCGM_FI_DRIVER_VERSION", "550.54.15", "instance", "10.0.0.7:9400", "job", "dcgm"}
	l1 := []string{"gpu", "1", "UUID", weekUUIDs[1], "device", "nvidia1", "modelName", "NVIDIA A100-SXM4-80GB",
		"hostname", "gpu-a", "exported_pod", "train-7", "exported_namespace", "nlp", "instance", "10.0.0.7:9400", "job", "dcgm"}
	at := func(m int) time.Time { return weekStart.Add(time.Duration(m) * time.Minute) }
	om.Family(dcgm.GPUUtil)
	for m := 0; m < minutes; m++ {
		v := "NaN" // what a scrape with no value reads as
		if u, ok := weekUtil(0, m); ok {
			v = strconv.FormatFloat(u, 'f', -1, 64)
		}
		om.Sample(l0, at(m), v)
	}
	om.Family(dcgm.GREngineActive)
	for m := 0; m < minutes; m++ {
		u, _ := weekUtil(1, m)
		om.Sample(l1, at(m), strconv.FormatFloat(u/100, 'f', -1, 64))
	}
	om.Family(dcgm.FBUsed)
	for m := 0; m < minutes; m++ {
		om.Sample(l0, at(m), "40000")
	}
	return om.Bytes()
}

// TestPrometheusWeek backfills the week into a real Prometheus, ingests it
// through `finops ingest prometheus` and checks the hand-computed idle
// GPU-hours and cost. Then the server is stopped: a scheduled run on a fresh
// database reports the source missing, still writes its report, exits 3, and
// counts the week unmonitored — never idle, never zero.
func TestPrometheusWeek(t *testing.T) {
	srv := promtest.Start(t, weekOpenMetrics())
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	bill := writeWeekBill(t, dir)
	if code, out, errs := runFinops(t, "--db", db, "ingest", bill); code != 0 {
		t.Fatalf("ingest bill: exit %d\n%s%s", code, out, errs)
	}
	args := []string{"--db", db, "ingest", "prometheus", "--url", srv.URL, "--name", "lab",
		"--task-label", "pod,exported_pod", "--team-label", "namespace,exported_namespace", "--from", "2026-11-23", "--to", "2026-11-29"}
	code, out, errs := runFinops(t, args...)
	if code != 0 {
		t.Fatalf("ingest prometheus: exit %d\n%s%s", code, out, errs)
	}
	if n := strings.Count(out, "2880 samples, 1 task runs"); n != 7 {
		t.Errorf("want 7 days of 2,880 samples and a task run:\n%s", out)
	}
	before := counts(t, db)
	// Every day is stored complete: a second run fetches nothing again.
	code, out, errs = runFinops(t, args...)
	if code != 0 || !strings.Contains(out, "prometheus lab: 0 days fetched, 7 already stored") {
		t.Errorf("second ingest: exit %d\n%s%s", code, out, errs)
	}
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("second ingest changed the database: %v → %v", before, after)
	}
	rep := filepath.Join(dir, "out")
	if code, out, errs := runFinops(t, "--db", db, "report", "--week", "2026-W48", "--format", "json", "--out", rep); code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, out, errs)
	}
	checkWeek(t, readSummary(t, filepath.Join(rep, "finops-2026-W48.json")), true)

	// Down: the real server stopped.
	srv.Stop()
	r := runWithPrometheus(t, srv.URL, "")
	for _, s := range r.DataQuality.Sources {
		if strings.HasPrefix(s.Name, "prometheus") && s.Status != "missing" {
			t.Errorf("source %+v: want missing", s)
		}
	}
	checkMissing(t, r)
}

// runWithPrometheus runs `finops run` for the week on a fresh database with
// the bill and one Prometheus source, expects exit 3 and returns the report.
func runWithPrometheus(t *testing.T, url, extra string) analysis.Result {
	t.Helper()
	dir := t.TempDir()
	bill := writeWeekBill(t, dir)
	cfg := filepath.Join(dir, "finops.yaml")
	yaml := fmt.Sprintf(`database: %s
out: %s
formats: [json]
billing:
  - path: %s
    mapping: autodl
utilization:
  prometheus:
    - url: %s
      name: lab
      timeout: 300ms
      retries: 1
      retry_backoff: 10ms
%s`, filepath.Join(dir, "f.db"), filepath.Join(dir, "out"), bill, url, extra)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runFinops(t, "--config", cfg, "run")
	if code != cli.ExitPartial {
		t.Fatalf("run: exit %d, want %d (partial)\n%s%s", code, cli.ExitPartial, out, errs)
	}
	if !strings.Contains(out, "source prometheus lab") {
		t.Errorf("run output does not name the source:\n%s", out)
	}
	return readSummary(t, filepath.Join(dir, "out", "finops-2026-W48.json"))
}

// checkMissing: no telemetry came, so the week is unmonitored — not idle,
// not zero — and the bill is still all there.
func checkMissing(t *testing.T, r analysis.Result) {
	t.Helper()
	testnum.Near(t, "gpu_hours_billed", r.Totals.GPUHoursBilled, 336, 0.005)
	testnum.Near(t, "cost", r.Totals.Cost, 806.40, 0.005)
	testnum.Near(t, "gpu_hours_idle", r.Totals.GPUHoursIdle, 0, 0.005)
	testnum.Near(t, "idle_cost", r.Totals.IdleCost, 0, 0.005)
	testnum.Near(t, "gpu_hours_unmonitored", r.Totals.GPUHoursUnmonitored, 336, 0.005)
	testnum.Near(t, "unmonitored_cost", r.Totals.UnmonitoredCost, 806.40, 0.005)
}

// Faults a real server cannot be made to produce on demand, from a fake
// beside the real-server test above: 503s, an answer slower than the
// timeout, and an answer with warnings (partial data).
func TestPrometheusFaults(t *testing.T) {
	serve := func(h http.HandlerFunc) string {
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		return s.URL
	}
	t.Run("503", func(t *testing.T) {
		url := serve(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"status":"error","errorType":"unavailable","error":"TSDB not ready"}`)
		})
		r := runWithPrometheus(t, url, "")
		wantStatus(t, r, "missing", "503")
		checkMissing(t, r)
	})
	t.Run("slow", func(t *testing.T) {
		url := serve(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
			}
		})
		start := time.Now()
		r := runWithPrometheus(t, url, "")
		wantStatus(t, r, "missing", "")
		checkMissing(t, r)
		if d := time.Since(start); d > 2500*time.Millisecond {
			t.Errorf("a slow server held the run for %v: timeouts are not applied", d)
		}
	})
	t.Run("warnings", func(t *testing.T) {
		// Every step of the week at 50 % for GPU-a0, with a warning: the data
		// is kept, the source is partial, and the days are fetched again later.
		url := serve(weekWithWarning)
		r := runWithPrometheus(t, url, "")
		wantStatus(t, r, "partial", "partial response")
		// GPU-a0 at 50 % all week: active; GPU-a1 never reported: unmonitored.
		testnum.Near(t, "gpu_hours_idle", r.Totals.GPUHoursIdle, 0, 0.005)
		testnum.Near(t, "gpu_hours_active", r.Totals.GPUHoursActive, 168, 0.005)
		testnum.Near(t, "gpu_hours_unmonitored", r.Totals.GPUHoursUnmonitored, 168, 0.005)
	})
	t.Run("concurrent_days", func(t *testing.T) {
		// The config's concurrent_days reaches the fetcher: with answers that
		// take 30 ms, exactly that many requests are ever in flight at once
		// (one query of a day at a time, so one request per day in flight),
		// and the numbers are those of the warnings run.
		for _, n := range []int{1, 3} {
			// Days in flight, not requests: under load a request can time
			// out on the client (300 ms) and be retried while the server
			// still holds the first one, which is the same day, not a
			// second day fetched early.
			var mu sync.Mutex
			days := map[string]int{}
			most := 0
			url := serve(func(w http.ResponseWriter, r *http.Request) {
				// The body read first: a request the client gave up on
				// (its timeout) then ends here at once instead of counting.
				_ = r.ParseForm()
				day := r.Form.Get("start")
				mu.Lock()
				days[day]++
				most = max(most, len(days))
				mu.Unlock()
				defer func() {
					mu.Lock()
					if days[day]--; days[day] == 0 {
						delete(days, day)
					}
					mu.Unlock()
				}()
				select {
				case <-time.After(30 * time.Millisecond):
				case <-r.Context().Done():
					return
				}
				weekWithWarning(w, r)
			})
			r := runWithPrometheus(t, url, fmt.Sprintf("      concurrent_days: %d\n", n))
			mu.Lock()
			if most != n {
				t.Errorf("concurrent_days %d: %d days at most in flight", n, most)
			}
			mu.Unlock()
			testnum.Near(t, "gpu_hours_active", r.Totals.GPUHoursActive, 168, 0.005)
			testnum.Near(t, "gpu_hours_unmonitored", r.Totals.GPUHoursUnmonitored, 168, 0.005)
		}
	})
}

// weekWithWarning answers every step of the week at 50 % for GPU-a0, with a
// warning (partial data).
func weekWithWarning(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	start, _ := strconv.ParseFloat(r.Form.Get("start"), 64)
	end, _ := strconv.ParseFloat(r.Form.Get("end"), 64)
	var vals [][]any
	for ts := start; ts <= end; ts += 60 {
		if ts >= float64(weekStart.Unix()) && ts < float64(weekStart.Add(7*24*time.Hour).Unix()) {
			vals = append(vals, []any{ts, "50"})
		}
	}
	result := []any{}
	if len(vals) > 0 && strings.Contains(r.Form.Get("query"), "UTIL") {
		result = append(result, map[string]any{"metric": map[string]string{"UUID": weekUUIDs[0], "gpu": "0", "Hostname": "gpu-a"}, "values": vals})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "warnings": []string{"store gpu-b unreachable: partial response"},
		"data": map[string]any{"resultType": "matrix", "result": result}})
}

func wantStatus(t *testing.T, r analysis.Result, status, detail string) {
	t.Helper()
	for _, s := range r.DataQuality.Sources {
		if s.Name == "prometheus lab" {
			if s.Status != status || !strings.Contains(s.Detail, detail) || s.Kind != "utilization" {
				t.Errorf("source %+v: want status %s mentioning %q", s, status, detail)
			}
			return
		}
	}
	t.Errorf("no prometheus source in data quality: %+v", r.DataQuality.Sources)
}

// The same week as nvidia-smi logs: the host's clock is UTC+8 (Shanghai),
// values carry units, the unmonitored hours are [N/A] rows, one file a day.
func TestNvidiaSMIWeekSameNumbers(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	if err := os.Mkdir(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	sh := time.FixedZone("CST", 8*3600)
	for day := 0; day < 7; day++ {
		var b strings.Builder
		b.WriteString("timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n")
		for m := day * 1440; m < (day+1)*1440; m++ {
			for g := 0; g < 2; g++ {
				util := "[N/A]"
				if u, ok := weekUtil(g, m); ok {
					util = strconv.FormatFloat(u, 'f', -1, 64) + " %"
				}
				fmt.Fprintf(&b, "%s, NVIDIA A100-SXM4-80GB, 00000000:%02X:00.0, %d, %s, %s, 11 %%, 81920 MiB, 40000 MiB, 300.50 W\n",
					weekStart.Add(time.Duration(m)*time.Minute).In(sh).Format("2006/01/02 15:04:05.000"), 7+g, g, weekUUIDs[g], util)
			}
		}
		if err := os.WriteFile(filepath.Join(logs, fmt.Sprintf("gpu-a-%d.csv", day)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := reportWeek(t, dir, "json", 0, []string{"ingest", "--host", "gpu-a", "--tz", "Asia/Shanghai", logs})
	checkWeek(t, r, false)
}

// The same week as NVML spool files, written by the collector's own spool
// writer (the collector was down, writing nothing, where the others have no
// value), read by the scheduled run from utilization.nvml_spool.
func TestNVMLSpoolWeekSameNumbers(t *testing.T) {
	dir := t.TempDir()
	spoolDir := filepath.Join(dir, "spool")
	sp, err := nvml.OpenSpool(nvml.Options{Dir: spoolDir, Host: "gpu-a"})
	if err != nil {
		t.Fatal(err)
	}
	mem, total, power, apps := 40000.0, 81920.0, 300.5, 1
	for m := 0; m < weekMinutes; m++ {
		at := weekStart.Add(time.Duration(m) * time.Minute)
		var rows []nvml.Row
		for g := 0; g < 2; g++ {
			u, ok := weekUtil(g, m)
			if !ok {
				continue
			}
			rows = append(rows, nvml.Row{Time: at, Index: g, Name: "NVIDIA A100-SXM4-80GB", UUID: weekUUIDs[g], Util: &u,
				MemUsedMiB: &mem, MemTotalMiB: &total, PowerW: &power, ComputeApps: &apps})
		}
		if err := sp.Write(at, rows); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "finops.yaml")
	yaml := fmt.Sprintf("database: %s\nout: %s\nformats: [json]\nbilling:\n  - path: %s\n    mapping: autodl\nutilization:\n  nvml_spool:\n    - path: %s\n",
		filepath.Join(dir, "f.db"), filepath.Join(dir, "out"), writeWeekBill(t, dir), spoolDir)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runFinops(t, "--config", cfg, "run"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	checkWeek(t, readSummary(t, filepath.Join(dir, "out", "finops-2026-W48.json")), false)
}

// A dcgm-exporter scrape logged to disk is recognised by its first bytes and
// stamped with the file's modification time.
func TestIngestDCGMScrape(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "telemetry", "metrics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	scrape := filepath.Join(dir, "scrape-0800.prom")
	if err := os.WriteFile(scrape, src, 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	if err := os.Chtimes(scrape, at, at); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "f.db")
	code, out, errs := runFinops(t, "--db", db, "ingest", scrape)
	if code != 0 || !strings.Contains(out, "dcgm, 3 rows, 2026-11-24T08:00:00Z") || !strings.Contains(out, "every 30s") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	// 2026-11-24 ended more than utilization.hot_days (3) before the test's
	// clock (2026-11-30 03:00): its minutes were compacted into GPU-days.
	if c := counts(t, db); c["gpus"] != 3 || c["gpu_days"] != 3 || c["gpu_minutes"] != 0 {
		t.Errorf("counts %v: want 3 GPUs, each one day (compacted), no minutes left", c)
	}
	// utilization.hot_days: 30 keeps the day per minute.
	cfg := filepath.Join(dir, "finops.yaml")
	if err := os.WriteFile(cfg, []byte("utilization:\n  hot_days: 30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db2 := filepath.Join(dir, "hot.db")
	if code, out, errs := runFinops(t, "--config", cfg, "--db", db2, "ingest", scrape); code != 0 {
		t.Fatalf("hot_days 30: exit %d\n%s%s", code, out, errs)
	}
	if c := counts(t, db2); c["gpu_days"] != 0 || c["gpu_minutes"] != 3 {
		t.Errorf("hot_days 30: counts %v: want 3 minutes, no days", c)
	}
	code, out, _ = runFinops(t, "ingest", "--check", scrape)
	if code != 0 || !strings.Contains(out, ": OK\n  format:     dcgm\n  rows:       3 good") {
		t.Errorf("--check: exit %d\n%s", code, out)
	}
}

// Without an NVIDIA driver (CI) or in the default build (no nvml tag), the
// collector says why and exits 1.
func TestCollectNVMLWithoutGPU(t *testing.T) {
	if _, err := os.Stat("/dev/nvidiactl"); err == nil {
		t.Skip("this machine has an NVIDIA driver")
	}
	code, out, errs := runFinops(t, "collect", "nvml", "--out", t.TempDir(), "--interval", "1s")
	want := "libnvidia-ml.so.1 not found"
	if !nvml.Available {
		want = "needs -tags nvml and cgo"
	}
	if code != cli.ExitFailed || !strings.Contains(out+errs, want) {
		t.Errorf("exit %d, want 1 and %q:\n%s%s", code, want, out, errs)
	}
	if code, _, errs := runFinops(t, "collect", "nvml"); code != cli.ExitUsage || !strings.Contains(errs, "--out") {
		t.Errorf("no --out: exit %d %s", code, errs)
	}
}
