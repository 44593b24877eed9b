package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
)

// TestIngestOpenMetricsBackfillWeek: the week's promtool backfill file
// (OpenMetrics: timestamps in seconds, ending in # EOF) ingested as a file
// gives the hand-computed numbers of the week that TestPrometheusWeek gets
// from a real Prometheus fed the same file — not "2 rows, 1970-01-21".
func TestIngestOpenMetricsBackfillWeek(t *testing.T) {
	dir := t.TempDir()
	om := filepath.Join(dir, "dcgm-week.om")
	if err := os.WriteFile(om, weekOpenMetrics(), 0o644); err != nil {
		t.Fatal(err)
	}
	// One reading per GPU and minute: 2 × 7 × 1440 = 20,160, from Monday
	// 00:00 to Sunday 23:59 UTC.
	code, out, errs := runFinops(t, "ingest", "--check", om)
	if code != 0 || !strings.Contains(out, ": OK\n  format:     dcgm\n  rows:       20160 good") ||
		!strings.Contains(out, "2026-11-23T00:00:00Z .. 2026-11-29T23:59:00Z") {
		t.Fatalf("--check: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(errs, "modification time") {
		t.Errorf("a file with timestamps got a note about its modification time: %s", errs)
	}
	r, _ := reportWeek(t, dir, "json", 0, []string{"ingest", om})
	checkWeek(t, r, false)
}

// TestIngestScrapeTime: a scrape without sample timestamps is stamped with
// --at, else a time in its name, else its modification time — and then
// standard error says so, naming the file and the time.
func TestIngestScrapeTime(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "telemetry", "metrics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, file string
		args       []string
		want       string // the period start --check prints
		noted      bool
	}{
		{"--at", "scrape.prom", []string{"--at", "2026-11-25T10:30:00+08:00"}, "2026-11-25T02:30:00Z", false},
		{"--at wins over the name", "gpu-a-20261126T090000Z.prom", []string{"--at", "2026-11-25T02:30:00Z"}, "2026-11-25T02:30:00Z", false},
		{"compact stamp in the name", "gpu-a-20261126T090000Z.prom", nil, "2026-11-26T09:00:00Z", false},
		{"RFC 3339 stamp with dashes for colons", "gpu-a_2026-11-26T09-00-00Z.prom", nil, "2026-11-26T09:00:00Z", false},
		{"RFC 3339 stamp with an offset", "gpu-a_2026-11-26T17:00:00+08:00.prom", nil, "2026-11-26T09:00:00Z", false},
		{"modification time", "scrape-0800.prom", nil, "2026-11-24T08:00:00Z", true},
		{"two different stamps: modification time", "20261126T090000Z-20261127T090000Z.prom", nil, "2026-11-24T08:00:00Z", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(p, src, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runFinops(t, append(append([]string{"ingest", "--check"}, c.args...), p)...)
			if code != 0 || !strings.Contains(out, "period:     "+c.want+" .. "+c.want) {
				t.Fatalf("exit %d, want period %s\n%s%s", code, c.want, out, errs)
			}
			noted := strings.Contains(errs, p+": no sample timestamps, no --at and no time in the file name: read as scraped at "+
				c.want+", the file's modification time\n")
			if noted != c.noted || !c.noted && strings.Contains(errs, "modification time") {
				t.Errorf("stderr %q: want the note %v", errs, c.noted)
			}
		})
	}
	code, _, errs := runFinops(t, "ingest", "--check", "--at", "2026-11-25 10:30", "x.prom")
	if code != cli.ExitUsage || !strings.Contains(errs, `--at "2026-11-25 10:30": want an RFC 3339 time`) {
		t.Errorf("bad --at: exit %d, %s", code, errs)
	}
}

// TestIngestSMIKeyedByBusID: a headerless log keyed by pci.bus_id (no index,
// no uuid) is read with its own field list, two GPUs of host gpu-a: rows of
// smi_logger_h100x2_busid.csv, 08:12:38 to 08:13:38 local time.
func TestIngestSMIKeyedByBusID(t *testing.T) {
	log := filepath.Join(repoRoot(t), "testdata", "ingest", "smi_logger_h100x2_busid.csv")
	fields := "timestamp,name,pci.bus_id,utilization.gpu,memory.total,memory.used,power.draw"
	db := filepath.Join(t.TempDir(), "f.db")
	code, out, errs := runFinops(t, "--db", db, "ingest", "--host", "gpu-a", "--tz", "UTC", "--fields", fields, log)
	if code != 0 || !strings.Contains(out, "nvidia-smi, 6 rows, 2026-07-14T08:12:38Z") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if c := counts(t, db); c["gpus"] != 2 {
		t.Errorf("counts %v: want 2 GPUs (gpu-a/00000000:00:09.0 and gpu-a/00000000:00:0A.0)", c)
	}
}

// TestIngestNvidiaGPUExporterScrape: a saved nvidia_gpu_exporter answer
// (the exporter's H100 golden under load) is told from its first bytes and
// read as that exporter's telemetry — one GPU with its measures, not a
// dcgm scrape of an empty GPU.
func TestIngestNvidiaGPUExporterScrape(t *testing.T) {
	src := filepath.Join(repoRoot(t), "testdata", "telemetry", "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.metrics")
	code, out, errs := runFinops(t, "ingest", "--check", "--host", "gpu-b", "--at", "2026-11-24T08:00:00Z", src)
	if code != 0 || !strings.Contains(out, ": OK\n  format:     nvidia_gpu_exporter\n  rows:       1 good") ||
		!strings.Contains(out, "2026-11-24T08:00:00Z .. 2026-11-24T08:00:00Z") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}
