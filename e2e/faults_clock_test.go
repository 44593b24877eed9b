package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/testnum"
)

// TestFaultSMIClockSkew: nvidia-smi logs from hosts whose clocks are wrong.
// finops cannot know the true time, so it takes the logged times as they
// are; what must hold is that a skewed clock never invents or double-counts
// a GPU-minute.
//
// The bill (AutoDL, China time, so 08:00 is 00:00 UTC): gpu-a with two
// A100s and gpu-b with one, each rented for the week 2026-W48 at ¥0.04 a
// GPU-minute: 3 × 10,080 = 30,240 billed GPU-minutes = 504 h.
//
// gpu-a, GPU 0, Monday Nov 23, one sample a minute at hh:mm:00.250 (true
// time), 3 % for the first hour and 19 % for the second. At 01:00 true time
// NTP steps the clock back by 2 min 59.5 s, so from then on the log says
// true − 179.5 s: 01:00:00.250 is logged as 00:57:00.750.
//
//	logged 00:00 … 00:56  one sample, 3 %                      57 minutes
//	logged 00:57 … 00:59  two samples (3 % at .250 and 19 % at .750):
//	                      one minute each, mean 11 %            3 minutes
//	logged 01:00 … 01:56  one sample, 19 %                      57 minutes
//	logged 01:57          no sample; covered by 01:56 (60 s sampling)
//
// Monitored: 118 GPU-minutes, not the 121 that counting each of the 120
// samples' minutes (and the one covered after) would give.
// Idle: 00:00–00:56, 57 minutes below 10 % (≥ 30 min). Active: 00:57–01:57,
// 61 minutes (11 % and 19 % are above the threshold). gpu-a's GPU 1 logs
// nothing: unmonitored all week.
//
// gpu-b's clock is 4 h ahead. It logs Sunday Nov 29 from 00:00 to 24:00 true
// time, one sample a minute at 2 %, logged as Nov 29 04:00 to Nov 30 03:59 —
// the last hour after the tests' clock (Nov 30 03:00 UTC), the last four after
// the week and its rental ended. In W48 it has 1,200 logged minutes (04:00–
// 24:00), all idle; the 240 after the week's end count nowhere in it.
//
// Week totals: idle 57 + 1,200 = 1,257 GPU-minutes = 20.95 h = ¥50.28;
// active 61 minutes; unmonitored 30,240 − 1,257 − 61 = 28,922 minutes =
// ¥1,156.88; billed 504 h = ¥1,209.60.
func TestFaultSMIClockSkew(t *testing.T) {
	dir := t.TempDir()
	bill := filepath.Join(dir, "autodl.csv")
	if err := os.WriteFile(bill, []byte("实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n"+
		"gpu-a,训练机,A100-SXM4-80GB * 2,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥806.40,¥806.40\n"+
		"gpu-b,推理机,A100-SXM4-80GB * 1,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥403.20,¥403.20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const header = "timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n"
	row := func(b *strings.Builder, logged time.Time, uuid string, util int) {
		fmt.Fprintf(b, "%s, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, 0, %s, %d %%, 1 %%, 81920 MiB, 1000 MiB, 80.00 W\n",
			logged.Format("2006/01/02 15:04:05.000"), uuid, util)
	}
	const uuidA, uuidB = "GPU-a1000000-0000-0000-0000-000000000000", "GPU-b1000000-0000-0000-0000-000000000000"
	monday := time.Date(2026, 11, 23, 0, 0, 0, 250e6, time.UTC)
	var a strings.Builder
	a.WriteString(header)
	for k := range 120 {
		truth, util := monday.Add(time.Duration(k)*time.Minute), 3
		if k >= 60 {
			truth, util = truth.Add(-179500*time.Millisecond), 19
		}
		row(&a, truth, uuidA, util)
	}
	sunday := time.Date(2026, 11, 29, 0, 0, 0, 250e6, time.UTC)
	var b strings.Builder
	b.WriteString(header)
	for k := range 1440 {
		row(&b, sunday.Add(time.Duration(k)*time.Minute+4*time.Hour), uuidB, 2)
	}
	logA, logB := filepath.Join(dir, "gpu-a.csv"), filepath.Join(dir, "gpu-b.csv")
	os.WriteFile(logA, []byte(a.String()), 0o644)
	os.WriteFile(logB, []byte(b.String()), 0o644)

	db := filepath.Join(dir, "f.db")
	for _, args := range [][]string{{"ingest", bill}, {"ingest", "--host", "gpu-a", "--tz", "UTC", logA},
		{"ingest", "--host", "gpu-b", "--tz", "UTC", logB}} {
		if code, out, errs := runFinops(t, append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}

	// The stored minutes, as the report reads them.
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	series, err := st.GPUSeries(context.Background(), time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	byUUID := map[string]finops.GPUSeries{}
	for _, s := range series {
		byUUID[s.UUID] = s
	}
	minute := func(t time.Time) int64 { return t.Unix() / 60 }
	if s := byUUID[uuidA]; s.Len() != 117 {
		t.Errorf("gpu-a GPU 0: %d stored minutes, want 117 (00:00–01:56, each once)", s.Len())
	} else {
		for i, m := range s.Minutes() {
			want := 3.0
			switch {
			case i >= 60:
				want = 19
			case i >= 57:
				want = 11 // the mean of the minute's two samples
			}
			if at := minute(monday) + int64(i); m.Minute != at || m.Util != want {
				t.Errorf("gpu-a minute %d: %s at %.2f %%, want %s at %.2f %%", i,
					time.Unix(m.Minute*60, 0).UTC().Format("15:04"), m.Util, time.Unix(at*60, 0).UTC().Format("15:04"), want)
			}
		}
	}
	if s := byUUID[uuidB]; s.Len() != 1440 || s.Minutes()[0].Minute != minute(sunday.Add(4*time.Hour)) {
		t.Errorf("gpu-b: %d stored minutes (want 1440, the first at Nov 29 04:00 as logged)", s.Len())
	}

	rep := filepath.Join(dir, "out")
	// The logs cover a few hours of the week: the report is written and
	// says its data is incomplete (exit 3).
	if code, out, errs := runFinops(t, "--db", db, "report", "--week", "2026-W48", "--format", "json", "--out", rep); code != cli.ExitPartial {
		t.Fatalf("report: exit %d, want %d\n%s%s", code, cli.ExitPartial, out, errs)
	}
	r := readSummary(t, filepath.Join(rep, "finops-2026-W48.json"))
	tot := r.Totals
	testnum.Near(t, "gpu_hours_billed", tot.GPUHoursBilled, 504, 0.005)
	testnum.Near(t, "gpu_hours_idle", tot.GPUHoursIdle, 1257.0/60, 0.005)
	testnum.Near(t, "idle_cost", tot.IdleCost, 50.28, 0.005)
	testnum.Near(t, "gpu_hours_active", tot.GPUHoursActive, 61.0/60, 0.005)
	testnum.Near(t, "gpu_hours_unmonitored", tot.GPUHoursUnmonitored, 28922.0/60, 0.005)
	testnum.Near(t, "unmonitored_cost", tot.UnmonitoredCost, 1156.88, 0.005)
	idle := map[string]float64{}
	for _, res := range r.ByResource {
		idle[res.ResourceID] = res.IdleCost
	}
	testnum.Near(t, "gpu-a idle cost", idle["gpu-a"], 57*0.04, 0.005)
	testnum.Near(t, "gpu-b idle cost", idle["gpu-b"], 1200*0.04, 0.005)
}
