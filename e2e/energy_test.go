package e2e

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/cli"
)

// smiPowerHead and smiPowerLine are smiHead and smiLine with power.draw.
const smiPowerHead = "timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n"

func smiPowerLine(at time.Time, g int, util, watts string) string {
	return strings.TrimSuffix(smiLine(at, g, util), "\n") + ", " + watts + "\n"
}

// TestEnergyEndToEnd: the week's bill (writeWeekBill: gpu-a, 2 × A100,
// 20,160 billed GPU-minutes) with an nvidia-smi log of GPU 0 on Monday
// 2026-11-23, 08:00–10:00 UTC, one sample a minute: 90 minutes at 300 W, then
// 30 at 150 W. The task train ran 08:00–10:00.
//
// By hand, with the day's minutes kept (utilization.hot_days 30):
//   - the task on GPU 0: 300 W × 1.5 h / 1000 + 150 W × 0.5 h / 1000 = 0.45 +
//     0.075 = 0.525 kWh;
//   - the resource: the last sample, 09:59, also covers 10:00 (60 s
//     sampling, as in TestExporterDiedMidWeek), so 121 minutes have power:
//     0.525 + 150 / 60 / 1000 = 0.5275 kWh, power coverage 121 / 20,160;
//   - with energy.grid_intensity.default 436: the resource 0.5275 × 436 /
//     1000 = 0.22999 kg CO₂e, the task 0.525 × 436 / 1000 = 0.2289 kg;
//   - a task that names no GPU holds both (GPU 1 reports nothing): still
//     0.525 kWh, but power for 120 of its 240 GPU-minutes: coverage 0.5, a
//     lower bound; without any intensity configured its CO₂e is unknown.
//
// With the default hot_days (3), Monday is compacted as it is imported, and
// the compacted day keeps each minute's mean power (gpu_days.power, schema
// 14) in whole watts, as the report's series holds every minute anyway
// (finops.GPUSeries.AddPower): the same 0.525 and 0.5275 kWh, not the
// day's mean (262.5 W, 263 W kept: 0.526 kWh) spread over the busy and
// the quiet minutes alike. Whole watts could cost at most half a watt a
// minute against the exact energy, 120 × 0.5 / 60,000 = 0.001 kWh for the
// task; here every minute has one sample of a whole number of watts, so
// that tolerance is zero and the case asks for 0.525 to a part in a
// billion (a tolerance of 0.001 would not tell it from the old 0.526).
func TestEnergyEndToEnd(t *testing.T) {
	const hot = "utilization:\n  hot_days: 30\n"
	cases := []struct {
		name, gpus, config   string
		total, task          float64 // kWh
		taskCoverage         float64
		resourceCO2, taskCO2 *float64 // nil: unknown
	}{
		{"task on GPU 0, default intensity", weekUUIDs[0], hot + "energy:\n  grid_intensity:\n    default: 436\n",
			0.5275, 0.525, 1, new(0.22999), new(0.2289)},
		{"task on both GPUs, no intensity", "", hot, 0.5275, 0.525, 0.5, nil, nil},
		{"compacted day", weekUUIDs[0], "", 0.5275, 0.525, 1, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg, db := energyIngest(t, dir, c.gpus, c.config)
			// The hot cases read minute rows; the default reads one GPU-day.
			wantDays := 0
			if !strings.Contains(c.config, "hot_days") {
				wantDays = 1
			}
			if n := counts(t, db); n["gpu_days"] != wantDays || n["gpu_minutes"] != 120*(1-wantDays) {
				t.Errorf("stored %d GPU-days and %d minute rows, want %d and %d", n["gpu_days"], n["gpu_minutes"], wantDays, 120*(1-wantDays))
			}
			rep := filepath.Join(dir, "out")
			// Two hours of telemetry in a week: incomplete (exit 3), written all the same.
			if code, out, errs := runFinops(t, "--config", cfg, "--db", db, "report", "--week", "2026-W48", "--format", "json,html", "--out", rep); code != cli.ExitPartial {
				t.Fatalf("report: exit %d\n%s%s", code, out, errs)
			}
			r := readSummary(t, filepath.Join(rep, "finops-2026-W48.json"))
			e := r.Energy
			if e == nil {
				t.Fatal("the summary has no energy")
			}
			exactly(t, "total kWh", measuredKWh(t, e.Total), c.total)
			exactly(t, "total power coverage", e.Total.PowerCoverage, 121.0/20160)
			if !e.Total.LowerBound {
				t.Error("total energy is not a lower bound")
			}
			if len(e.ByResource) != 1 || len(e.Tasks) != 1 {
				t.Fatalf("energy: resources %+v, tasks %+v", e.ByResource, e.Tasks)
			}
			exactly(t, "gpu-a kWh", measuredKWh(t, e.ByResource[0].EnergyUse), c.total)
			task := e.Tasks[0]
			exactly(t, "train kWh", measuredKWh(t, task.EnergyUse), c.task)
			exactly(t, "train power coverage", task.PowerCoverage, c.taskCoverage)
			if task.LowerBound != (c.taskCoverage < 1) {
				t.Errorf("train lower bound = %v", task.LowerBound)
			}
			for _, co := range []struct {
				name      string
				got, want *float64
			}{{"gpu-a", e.ByResource[0].CO2eKg, c.resourceCO2}, {"train", task.CO2eKg, c.taskCO2}} {
				switch {
				case co.want == nil && co.got != nil:
					t.Errorf("%s CO2e = %v kg, want unknown", co.name, *co.got)
				case co.want != nil && co.got == nil:
					t.Errorf("%s CO2e unknown, want %v kg", co.name, *co.want)
				case co.want != nil:
					exactly(t, co.name+" CO2e kg", *co.got, *co.want)
				}
			}
			page, err := os.ReadFile(filepath.Join(rep, "finops-2026-W48.html"))
			if err != nil {
				t.Fatal(err)
			}
			// The total to three places (0.5275 is 0.527 or 0.528 as the
			// float falls), and the task's.
			for _, want := range []string{"≥ 0.5", strconv.FormatFloat(c.task, 'f', 3, 64) + " kWh"} {
				if !strings.Contains(string(page), want) {
					t.Errorf("the page's energy card lacks %q", want)
				}
			}
		})
	}
}

// exactly compares energy to a part in a billion: approx's half a cent
// would not tell 0.525 kWh from 0.526.
// measuredKWh is u's energy, which power readings measured: nil (unknown)
// fails the test.
func measuredKWh(t *testing.T, u analysis.EnergyUse) float64 {
	t.Helper()
	if u.KWh == nil {
		t.Fatalf("energy unknown (null), want measured: %+v", u)
	}
	return *u.KWh
}

func exactly(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.9g, want %.9g", name, got, want)
	}
}

// energyIngest writes a two-hour nvidia-smi power log of gpu-a (300 W at
// 90 %, the last half hour 150 W at 40 %), a task on gpus and config into
// dir, and ingests them with the week's bill.
func energyIngest(t *testing.T, dir, gpus, config string) (cfg, db string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(smiPowerHead)
	for m := 480; m < 600; m++ {
		util, watts := "90 %", "300.00 W"
		if m >= 570 {
			util, watts = "40 %", "150.00 W"
		}
		b.WriteString(smiPowerLine(weekStart.Add(time.Duration(m)*time.Minute), 0, util, watts))
	}
	logPath := filepath.Join(dir, "gpu-a.csv")
	tasks := filepath.Join(dir, "tasks.csv")
	cfg = filepath.Join(dir, "finops.yaml")
	for p, body := range map[string]string{logPath: b.String(), cfg: config,
		tasks: "task,team,resource,gpus,start,end\ntrain,nlp,gpu-a," + gpus + ",2026-11-23T08:00:00Z,2026-11-23T10:00:00Z\n"} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db = filepath.Join(dir, "f.db")
	for _, args := range [][]string{{"ingest", writeWeekBill(t, dir)}, {"ingest", "--host", "gpu-a", "--tz", "UTC", logPath}, {"ingest", tasks}} {
		if code, out, errs := runFinops(t, append([]string{"--config", cfg, "--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	return cfg, db
}
