package e2e

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
	"github.com/finops-oss/finops/internal/store"
)

// The holdout-style fleet (issue #25): three hosts with two A100s each,
// rented by the hour, scraped by dcgm-exporter every 30 s for three UTC days,
// with pods coming and going on every GPU. Its numbers are computed here a
// second time, from the raw samples the test wrote and metrics.md's rules, by
// code that shares nothing with finops' (hfExpect), and the two must agree to
// 0.1 %. With seed 25: 70 pods, 420 billed GPU-hours (gpu-c's first 6 hours
// are not billed), idle 158.15 GPU-hours ¥387.15, unmonitored 2.73 GPU-hours
// ¥6.95 (gpu-a's exporter down for 82 minutes of each GPU).
//
// It found two bugs, fixed with it: a gap inside an idle run ended the run
// (analysis/grid.go; metrics.md §Gaps says it must not), which made the 20 +
// 20 idle minutes around gpu-a's gap and the resumed pod's 15 + 20 active
// (idle −0.80 %, the pod's idle cost 0 instead of ¥1.49); and a minute two
// pods' series shared took the first series' mean alone (ingest/prom), so
// the minute 04:02 on Nov 27 with gpu-a-0-009's 2 % and gpu-a-0-010's 53 %
// read idle and lengthened 009's idle run.
var hfStart = time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)

const (
	hfDays    = 3
	hfMinutes = hfDays * 1440
	hfScrape  = 30 * time.Second
	hfScrapes = hfMinutes * 2 // per GPU, 30 s apart
	hfSeed    = 25            // the number: any fixed seed gives the same fleet every run
)

// hfHost is one rented machine. Its exporter scrapes both GPUs at the same
// instants, offset seconds after each half minute, so that samples, pods and
// gaps begin and end mid-minute as they do in a real fleet.
type hfHost struct {
	name   string
	offset time.Duration
	// metric[i] is the utilization GPU i reports: dcgm.GPUUtil (percent,
	// whole numbers, with the old "Hostname" label) or dcgm.GREngineActive
	// (a ratio, with "hostname"), as weekOpenMetrics does.
	metric [2]string
	// billFrom is the first billed hour: gpu-c is rented six hours after its
	// exporter starts, and those hours count for nothing.
	billFrom int
	base     float64 // ¥ per hour (both GPUs); the price moves a little each hour
	// Host gpu-a's exporter is down for the scrapes [down0, down1).
	down0, down1 int
}

var hfHosts = []hfHost{
	{name: "gpu-a", offset: 7 * time.Second, metric: [2]string{dcgm.GPUUtil, dcgm.GPUUtil}, base: 4.80,
		// Day 2 (Nov 26): the last sample at 13:40:37 (covering 13:41 too),
		// the next at 15:04:07; 13:42–15:03 is unmonitored, 82 minutes a GPU.
		down0: (1440 + 13*60 + 41) * 2, down1: (1440 + 15*60 + 4) * 2},
	{name: "gpu-b", offset: 19 * time.Second, metric: [2]string{dcgm.GREngineActive, dcgm.GREngineActive}, base: 5.20},
	{name: "gpu-c", offset: 41 * time.Second, metric: [2]string{dcgm.GREngineActive, dcgm.GPUUtil}, base: 3.60, billFrom: 6},
}

// hfPrice is host h's price for hour k of the window, in cents: whole cents,
// as the rental bill writes it.
func hfPrice(h, k int) int64 { return int64(math.Round(hfHosts[h].base*100)) + int64(k%7)*10 }

// hfGPU is one GPU's history: for each scrape, whether it answered, the pod
// that held it (-1: none; dcgm-exporter then writes no pod label) and the
// value as written in the exposition (percent or ratio per its metric).
type hfGPU struct {
	host, idx int
	uuid      string
	up        []bool
	pod       []int
	value     []string
}

func (g *hfGPU) at(k int) time.Time {
	return hfStart.Add(hfHosts[g.host].offset + time.Duration(k)*hfScrape)
}

// inWindow reports whether scrape k has a sample in the three days: the
// exporter answered, and the last scrapes of an offset host do not fall
// after midnight (which the fetch of the three days would not read).
func (g *hfGPU) inWindow(k int) bool {
	return g.up[k] && g.at(k).Before(hfStart.Add(hfMinutes*time.Minute))
}

// util is the utilization (0–100) a written value stands for, as finops'
// default query asks for it (GR_ENGINE_ACTIVE × 100, or GPU_UTIL).
func (g *hfGPU) util(k int) float64 {
	v, err := strconv.ParseFloat(g.value[k], 64)
	if err != nil {
		panic(err)
	}
	if hfHosts[g.host].metric[g.idx] == dcgm.GREngineActive {
		return v * 100
	}
	return v
}

type hfPod struct{ name, ns string }

type hfFleet struct {
	gpus []*hfGPU
	pods []hfPod
}

// hfGen writes the fleet's histories.
type hfGen struct {
	r *rand.Rand
	f *hfFleet
}

// Utilizations are drawn far from the 10 % threshold — idle at most 8 %,
// busy at least 25 % — so a minute mixing both means at least 12.5 %: which
// side of the threshold a minute falls on never hangs on float rounding
// (finops keeps its grid in float32).
func (gn *hfGen) value(g *hfGPU, busy bool) string {
	var pct float64
	if busy {
		pct = 25 + float64(gn.r.Intn(751))/10 // 25.0–100.0
	} else {
		pct = float64(gn.r.Intn(81)) / 10 // 0.0–8.0
	}
	if hfHosts[g.host].metric[g.idx] == dcgm.GPUUtil {
		return strconv.Itoa(int(pct)) // NVML's whole percent
	}
	return strconv.FormatFloat(pct/100, 'f', 3, 64) // a ratio, 0.255
}

func (gn *hfGen) newPod(prefix string) int {
	ns := []string{"nlp", "vision", "research"}[gn.r.Intn(3)]
	gn.f.pods = append(gn.f.pods, hfPod{name: fmt.Sprintf("%s-%03d", prefix, len(gn.f.pods)), ns: ns})
	return len(gn.f.pods) - 1
}

// put gives scrapes [from, to) of g to pod (−1: none), busy or idle.
func (gn *hfGen) put(g *hfGPU, from, to, pod int, busy bool) {
	for k := max(from, 0); k < min(to, hfScrapes); k++ {
		g.pod[k] = pod
		g.value[k] = gn.value(g, busy)
	}
}

// fill writes random churn over scrapes [from, to) of the GPUs gs, which
// share their pods (a pod asks for both GPUs of gpu-b), each with its own
// utilization: between pods the GPU idles with no pod label (0–150 minutes,
// and one handover in five with none, so two pods share a minute); a pod
// lasts 20 minutes to 8 hours and alternates busy phases (5 minutes to 2
// hours) with idle ones (3 to 90 minutes: dips shorter than 30 minutes are
// active, longer ones idle), and ends wherever its length says — mid-minute,
// mid-hour, mid-phase.
func (gn *hfGen) fill(gs []*hfGPU, from, to int) {
	k := from
	for k < to {
		if gn.r.Intn(5) > 0 {
			n := gn.r.Intn(300)
			for _, g := range gs {
				gn.put(g, k, min(k+n, to), -1, false)
			}
			k += n
		}
		end := min(k+40+gn.r.Intn(960), to)
		pod := gn.newPod(fmt.Sprintf("%s-%d", hfHosts[gs[0].host].name, gs[0].idx))
		for k < end {
			busy := gn.r.Intn(3) > 0
			n := 6 + gn.r.Intn(175)
			if busy {
				n = 10 + gn.r.Intn(230)
			}
			// Both GPUs of a shared pod are busy or idle together, each
			// at its own level.
			for _, g := range gs {
				gn.put(g, k, min(k+n, end), pod, busy)
			}
			k += n
		}
		k = end
	}
}

func newHoldoutFleet() *hfFleet {
	f := &hfFleet{}
	gn := &hfGen{r: rand.New(rand.NewSource(hfSeed)), f: f}
	for h, host := range hfHosts {
		for i := 0; i < 2; i++ {
			g := &hfGPU{host: h, idx: i, uuid: fmt.Sprintf("GPU-%08x-0000-4000-8000-%012x", 0xa100+h, i),
				up: make([]bool, hfScrapes), pod: make([]int, hfScrapes), value: make([]string, hfScrapes)}
			for k := range g.up {
				g.up[k] = k < host.down0 || k >= host.down1
			}
			f.gpus = append(f.gpus, g)
		}
	}
	a0, a1, b0, b1, c0, c1 := f.gpus[0], f.gpus[1], f.gpus[2], f.gpus[3], f.gpus[4], f.gpus[5]
	d0, d1 := hfHosts[0].down0, hfHosts[0].down1
	// GPU a0 around the exporter's outage: a busy pod ends 20 minutes
	// before it, the GPU idles those 20 minutes with no pod, the exporter
	// is down, the GPU idles 20 more minutes, then a busy pod starts. 40
	// idle minutes with a gap inside: one idle run (metrics.md §Gaps), where
	// two 20-minute runs would each be active.
	gn.fill([]*hfGPU{a0}, 0, d0-200)
	gn.put(a0, d0-200, d0-40, gn.newPod("gpu-a-0-pre"), true)
	gn.put(a0, d0-40, d1+40, -1, false)
	gn.put(a0, d1+40, d1+300, gn.newPod("gpu-a-0-post"), true)
	gn.fill([]*hfGPU{a0}, d1+300, hfScrapes)
	// GPU a1: a pod spans the outage, busy, idle for its last 15 minutes
	// before it and its first 20 after it, then busy again: 35 idle minutes
	// of one run, allocated to the pod (allocated but idle).
	gn.fill([]*hfGPU{a1}, 0, d0-400)
	resume := gn.newPod("gpu-a-1-resume")
	gn.put(a1, d0-400, d0-30, resume, true)
	gn.put(a1, d0-30, d1+40, resume, false)
	gn.put(a1, d1+40, d1+400, resume, true)
	gn.fill([]*hfGPU{a1}, d1+400, hfScrapes)
	gn.fill([]*hfGPU{b0, b1}, 0, hfScrapes)
	gn.fill([]*hfGPU{c0}, 0, hfScrapes)
	gn.fill([]*hfGPU{c1}, 0, hfScrapes)
	return f
}

// openMetrics is the fleet as dcgm-exporter history in Prometheus: one
// series per GPU and pod (labels exported_pod and exported_namespace, as
// Prometheus renames the exporter's pod labels), one without pod labels
// between pods; no sample while the exporter is down, and no staleness
// marker anywhere (a backfilled TSDB).
func (f *hfFleet) openMetrics() []byte {
	var om promtest.OpenMetrics
	for _, metric := range []string{dcgm.GPUUtil, dcgm.GREngineActive} {
		om.Family(metric)
		for _, g := range f.gpus {
			host := hfHosts[g.host]
			if host.metric[g.idx] != metric {
				continue
			}
			hostLabel := "hostname"
			if metric == dcgm.GPUUtil {
				hostLabel = "Hostname"
			}
			base := []string{"gpu", strconv.Itoa(g.idx), "UUID", g.uuid, "device", "nvidia" + strconv.Itoa(g.idx),
				"modelName", "NVIDIA A100-SXM4-80GB", hostLabel, host.name, "instance", "10.0.0." + strconv.Itoa(7+g.host) + ":9400", "job", "dcgm"}
			withPod := map[int][]string{}
			for k := range g.up {
				if !g.inWindow(k) {
					continue
				}
				labels := base
				if p := g.pod[k]; p >= 0 {
					if withPod[p] == nil {
						withPod[p] = append(append([]string{}, base...), "exported_pod", f.pods[p].name, "exported_namespace", f.pods[p].ns)
					}
					labels = withPod[p]
				}
				om.Sample(labels, g.at(k), g.value[k])
			}
		}
	}
	return om.Bytes()
}

// writeBill writes the hourly rental bill of the three hosts (AutoDL's
// columns, China time: 08:00 there is 00:00 UTC).
func (f *hfFleet) writeBill(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n")
	sh := time.FixedZone("CST", 8*3600)
	for h, host := range hfHosts {
		for k := host.billFrom; k < hfDays*24; k++ {
			from := hfStart.Add(time.Duration(k) * time.Hour).In(sh)
			p := hfPrice(h, k)
			fmt.Fprintf(&b, "%s,训练机,A100-SXM4-80GB * 2,按量计费,%s,%s,¥%d.%02d,¥%d.%02d\n", host.name,
				from.Format("2006-01-02 15:04:05"), from.Add(time.Hour).Format("2006-01-02 15:04:05"), p/100, p%100, p/100, p%100)
		}
	}
	p := filepath.Join(dir, "rental.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hfTask is one pod's expected figures.
type hfTask struct {
	team                       string // its namespace
	cost, idleCost, gpuMinutes float64
	first, last                int // minutes of its first and last sample
}

// hfExpected is the fleet's figures by metrics.md, computed from the raw
// samples.
type hfExpected struct {
	billedMin, idleMin, unmonMin float64 // billed GPU-minutes of each class
	idleCost, unmonCost          float64
	tasks                        map[string]*hfTask
	// sharedMin counts the GPU-minutes two pods held (one's last sample and
	// the next's first in the same minute).
	sharedMin int
}

// hfExpect computes the fleet's figures from its samples and bill, by
// metrics.md and docs/METRICS.md, without any of finops' code.
func (f *hfFleet) hfExpect() hfExpected {
	e := hfExpected{tasks: map[string]*hfTask{}}
	for _, g := range f.gpus {
		host := hfHosts[g.host]
		// rate(R, t) (metrics.md §GPU resources): the hour's line spread
		// uniformly over its 60 minutes and 2 GPUs; 0 where nothing is
		// billed — "only billed minutes count for money", and for hours.
		rate := func(m int) (float64, bool) {
			if m/60 < host.billFrom {
				return 0, false
			}
			return float64(hfPrice(g.host, m/60)) / 100 / 60 / 2, true
		}
		// The minute grid (metrics.md §Utilization): a minute's own
		// utilization is the mean of the GPU's samples in [t, t+60 s) —
		// every sample of the GPU, whichever series (pod) it came in.
		sum, n := make([]float64, hfMinutes), make([]int, hfMinutes)
		// holders[m]: the pods with a real sample on this GPU in minute m.
		// A task holds a GPU-minute its series has a sample in: from its
		// first real sample's minute to its last's, not the 5 minutes a
		// query engine repeats after it (§Decided: stale series; docs
		// §Prometheus: "a series whose last sample is at 10:17:30 ends at
		// the 10:17 minute"), and not through a gap in its series (docs:
		// "a series that stops and comes back has no point in the gap",
		// TestFetchDayStaleSeries: two runs).
		holders := make([][]int, hfMinutes)
		for k := range g.up {
			if !g.inWindow(k) {
				continue
			}
			m := int(g.at(k).Sub(hfStart) / time.Minute)
			sum[m] += g.util(k)
			n[m]++
			if p := g.pod[k]; p >= 0 && (len(holders[m]) == 0 || holders[m][len(holders[m])-1] != p) {
				holders[m] = append(holders[m], p)
			}
		}
		// A sample also covers the minutes after its own up to the sampling
		// interval rounded up to whole minutes (docs §Utilization and idle):
		// 30 s scrapes, read per 60 s step, cover their own minute and the
		// next. So a minute without samples of its own takes the previous
		// minute's mean when that minute has samples; else it is
		// unmonitored (NaN).
		util := make([]float64, hfMinutes)
		for m := range util {
			switch {
			case n[m] > 0:
				util[m] = sum[m] / float64(n[m])
			case m > 0 && n[m-1] > 0:
				util[m] = sum[m-1] / float64(n[m-1])
			default:
				util[m] = math.NaN()
			}
		}
		// Idle runs: monitored minutes under 10 % are candidates; a run of
		// them at least 30 minutes long is idle, a shorter one active. An
		// active minute ends a run. An unmonitored minute neither ends it
		// nor counts in it (metrics.md, Decided after the third review,
		// §Gaps: "a telemetry gap inside an idle run neither ends the run
		// nor makes the minutes around it busy; the gap's minutes are
		// unmonitored"): 20 idle minutes, a gap, 20 more are one 40-minute
		// run. (Counting the gap's minutes in the length too would give the
		// same classes in this fleet: its gaps sit inside idle runs that are
		// long enough either way.)
		idle := hfIdleMinutes(util)
		for m := range util {
			r, billed := rate(m)
			if billed {
				e.billedMin++
				switch {
				case math.IsNaN(util[m]):
					e.unmonMin++
					e.unmonCost += r
				case idle[m]:
					e.idleMin++
					e.idleCost += r
				}
			}
			// A task's cost is the rate of the GPU-minutes it holds, a
			// minute held by two pods split evenly (docs §Tasks); its idle
			// cost the part on idle minutes (metrics.md §Tasks).
			for _, p := range holders[m] {
				name := f.pods[p].name
				tk := e.tasks[name]
				if tk == nil {
					tk = &hfTask{team: f.pods[p].ns, first: m}
					e.tasks[name] = tk
				}
				tk.first, tk.last = min(tk.first, m), max(tk.last, m)
				if !billed {
					continue
				}
				if len(holders[m]) > 1 {
					e.sharedMin++
				}
				share := 1 / float64(len(holders[m]))
				tk.cost += r * share
				tk.gpuMinutes += share
				if idle[m] {
					tk.idleCost += r * share
				}
			}
		}
	}
	return e
}

// hfIdleMinutes marks the minutes of util (NaN: unmonitored) that are in an
// idle run: at least 30 monitored minutes under 10 %, ended by an active
// minute, an unmonitored minute neither ending nor counting in it.
func hfIdleMinutes(util []float64) []bool {
	idle := make([]bool, len(util))
	var run []int
	closeRun := func() {
		if len(run) >= 30 {
			for _, m := range run {
				idle[m] = true
			}
		}
		run = run[:0]
	}
	for m, u := range util {
		switch {
		case math.IsNaN(u):
		case u < 10:
			run = append(run, m)
		default:
			closeRun()
		}
	}
	closeRun()
	return idle
}

// near is within 0.1 % of want, or half a cent of it (the report's amounts
// are in cents; a pod with no idle minute has idle cost 0).
func near(got, want float64) bool {
	return math.Abs(got-want) <= math.Max(0.001*math.Abs(want), 0.005)
}

// TestPrometheusHoldoutFleet runs the holdout-style fleet through the real
// pipeline — the hourly bill, `finops ingest prometheus` with the pod and
// namespace labels from a real Prometheus backfilled with its history, and
// `finops report` — and checks its idle, unmonitored and task figures against
// hfExpect's, and that each pod's runs end at its last real sample.
func TestPrometheusHoldoutFleet(t *testing.T) {
	f := newHoldoutFleet()
	want := f.hfExpect()
	srv := promtest.Start(t, f.openMetrics())
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	if code, out, errs := runFinops(t, "--db", db, "ingest", f.writeBill(t, dir)); code != 0 {
		t.Fatalf("ingest bill: exit %d\n%s%s", code, out, errs)
	}
	from, to := hfStart.Format("2006-01-02"), hfStart.AddDate(0, 0, hfDays-1).Format("2006-01-02")
	code, out, errs := runFinops(t, "--db", db, "ingest", "prometheus", "--url", srv.URL, "--name", "holdout",
		"--task-label", "pod,exported_pod", "--team-label", "namespace,exported_namespace", "--from", from, "--to", to)
	if code != 0 {
		t.Fatalf("ingest prometheus: exit %d\n%s%s", code, out, errs)
	}
	rep := filepath.Join(dir, "out")
	if code, out, errs := runFinops(t, "--db", db, "report", "--from", from, "--to", to, "--format", "json", "--out", rep); code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, out, errs)
	}
	r := readSummary(t, filepath.Join(rep, "finops-"+from+"_"+to+".json"))

	// The fleet is what it was built to be: churn on every GPU, idle both
	// allocated and not, a gap.
	if len(want.tasks) < 20 || want.idleMin < 600 || want.unmonMin < 160 || want.sharedMin == 0 ||
		want.tasks["gpu-a-1-resume-023"] == nil || want.tasks["gpu-a-1-resume-023"].idleCost == 0 {
		t.Fatalf("fleet: %d pods, %.0f idle, %.0f unmonitored and %d shared GPU-minutes, no idle resumed pod: not the fleet the test means",
			len(want.tasks), want.idleMin, want.unmonMin, want.sharedMin)
	}
	tot := r.Totals
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"gpu_hours_billed", tot.GPUHoursBilled, want.billedMin / 60},
		{"gpu_hours_idle", tot.GPUHoursIdle, want.idleMin / 60},
		{"idle_cost", tot.IdleCost, want.idleCost},
		{"gpu_hours_unmonitored", tot.GPUHoursUnmonitored, want.unmonMin / 60},
		{"unmonitored_cost", tot.UnmonitoredCost, want.unmonCost},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %.4f, want %.4f (%+.3f %%)", c.name, c.got, c.want, 100*(c.got-c.want)/c.want)
		}
	}
	t.Logf("%d pods, %d GPU-minutes shared by two; billed %.1f GPU-hours, idle %.2f h ¥%.2f, unmonitored %.2f h ¥%.2f",
		len(want.tasks), want.sharedMin, want.billedMin/60, want.idleMin/60, want.idleCost, want.unmonMin/60, want.unmonCost)
	checkHoldoutTasks(t, r, want)
	checkHoldoutRunSpans(t, db, want)
}

// checkHoldoutTasks: each task of the report is a pod of the fleet, with its
// namespace as team and hfExpect's cost, idle cost and GPU-hours; no pod
// with billed minutes is missing.
func checkHoldoutTasks(t *testing.T, r analysis.Result, want hfExpected) {
	t.Helper()

	got := map[string]bool{}
	for _, tc := range r.Tasks {
		got[tc.Task] = true
		w := want.tasks[tc.Task]
		if w == nil {
			t.Errorf("task %s: not a pod of the fleet", tc.Task)
			continue
		}
		if tc.Team != w.team {
			t.Errorf("task %s: team %q, want its namespace %q", tc.Task, tc.Team, w.team)
		}
		if !near(tc.Cost, w.cost) || !near(tc.IdleCost, w.idleCost) || !near(tc.GPUHours, w.gpuMinutes/60) {
			t.Errorf("task %s: cost %.4f idle %.4f GPU-hours %.4f, want %.4f idle %.4f GPU-hours %.4f",
				tc.Task, tc.Cost, tc.IdleCost, tc.GPUHours, w.cost, w.idleCost, w.gpuMinutes/60)
		}
	}
	for name, w := range want.tasks {
		if !got[name] && w.gpuMinutes > 0 {
			t.Errorf("task %s (%.0f billed GPU-minutes) missing from the report", name, w.gpuMinutes)
		}
	}

}

// checkHoldoutRunSpans: each pod's runs start at its first sample's minute
// and end at the end of its last sample's minute.
func checkHoldoutRunSpans(t *testing.T, db string, want hfExpected) {
	t.Helper()
	// Each pod's runs start at its first sample's minute and end at the end
	// of its last sample's minute — not 5 minutes later (Prometheus'
	// lookback repeating the last value of a series without a staleness
	// marker).
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.TaskRuns(context.Background(), hfStart, hfStart.AddDate(0, 0, hfDays))
	if err != nil {
		t.Fatal(err)
	}
	span := map[string][2]time.Time{}
	for _, run := range runs {
		s, ok := span[run.Task]
		if !ok || run.Start.Before(s[0]) {
			s[0] = run.Start
		}
		if run.End.After(s[1]) {
			s[1] = run.End
		}
		span[run.Task] = s
	}
	var names []string
	for name := range want.tasks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		w := want.tasks[name]
		s := span[name]
		ws, we := hfStart.Add(time.Duration(w.first)*time.Minute), hfStart.Add(time.Duration(w.last+1)*time.Minute)
		if !s[0].Equal(ws) || !s[1].Equal(we) {
			t.Errorf("task %s runs %s–%s, want %s–%s (its first and last sample's minutes)", name,
				s[0].Format("01-02 15:04"), s[1].Format("01-02 15:04"), ws.Format("01-02 15:04"), we.Format("01-02 15:04"))
		}
	}
}
