package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/finops-oss/finops/internal/testnum"
)

// TestFallBackWeekAmerican: a host in New York logs nvidia-smi in local time
// once a minute through 2026-W44, whose Sunday (1 Nov) the clocks fall back
// at 02:00 EDT to 01:00 EST, so 01:00–01:59 is written twice. The logger cuts
// its files at UTC midnight, so the repeated hour (05:00–06:59 UTC) is in the
// middle of the Nov 1 file, not at a file's start.
//
// The bill (AutoDL, China time: 08:00 is 00:00 UTC) rents one A100 for the
// UTC week, 10,080 GPU-minutes at ¥0.04 = ¥403.20. Every one of those
// minutes has a sample at 50 %, so by hand: active 168 h, idle 0,
// unmonitored 0. Read with the wrong pass for the second 01:00 hour, 60 of
// them would be unmonitored.
func TestFallBackWeekAmerican(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bill := filepath.Join(dir, "autodl.csv")
	if err := os.WriteFile(bill, []byte("实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n"+
		"gpu-ny,训练机,A100-SXM4-80GB * 1,包周,2026-10-26 08:00:00,2026-11-02 08:00:00,¥403.20,¥403.20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const header = "timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n"
	monday := time.Date(2026, 10, 26, 0, 0, 0, 250e6, time.UTC)
	db := filepath.Join(dir, "f.db")
	if code, out, errs := runFinops(t, "--db", db, "ingest", bill); code != 0 {
		t.Fatalf("ingest bill: exit %d\n%s%s", code, out, errs)
	}
	for day := range 7 {
		var b strings.Builder
		b.WriteString(header)
		for k := range 1440 {
			at := monday.Add(time.Duration(day*1440+k) * time.Minute)
			b.WriteString(at.In(ny).Format("2006/01/02 15:04:05.000") +
				", NVIDIA A100-SXM4-80GB, 00000000:07:00.0, 0, GPU-ny000000-0000-0000-0000-000000000000, 50 %, 1 %, 81920 MiB, 1000 MiB, 80.00 W\n")
		}
		log := filepath.Join(dir, monday.AddDate(0, 0, day).Format("2006-01-02")+".csv")
		if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out, errs := runFinops(t, "--db", db, "ingest", "--host", "gpu-ny", "--tz", "America/New_York", log); code != 0 {
			t.Fatalf("ingest %s: exit %d\n%s%s", log, code, out, errs)
		}
	}
	rep := filepath.Join(dir, "out")
	if code, out, errs := runFinops(t, "--db", db, "report", "--week", "2026-W44", "--format", "json", "--out", rep); code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, out, errs)
	}
	tot := readSummary(t, filepath.Join(rep, "finops-2026-W44.json")).Totals
	testnum.Near(t, "gpu_hours_billed", tot.GPUHoursBilled, 168, 0.005)
	testnum.Near(t, "gpu_hours_active", tot.GPUHoursActive, 168, 0.005)
	testnum.Near(t, "gpu_hours_idle", tot.GPUHoursIdle, 0, 0.005)
	testnum.Near(t, "gpu_hours_unmonitored", tot.GPUHoursUnmonitored, 0, 0.005)
}

// TestAmbiguousSpanWarns: a task run whose start could be either pass of the
// repeated hour is read as the first, and `ingest` says so (in --check and
// in the import's line), never silently.
func TestAmbiguousSpanWarns(t *testing.T) {
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.csv")
	if err := os.WriteFile(tasks, []byte("task,resource,start,end\nb,r,2026-11-01 01:00:00,2026-11-01 02:00:00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"ingest", "--check"}, {"ingest"}} {
		args = append(append([]string{"--db", filepath.Join(dir, "f.db")}, args...), "--tz", "America/New_York", tasks)
		code, out, errs := runFinops(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		if !strings.Contains(out, "warning") || !strings.Contains(out, "1 runs") || !strings.Contains(out, "America/New_York") {
			t.Errorf("%v: no warning of the guessed pass:\n%s", args, out)
		}
	}
}
