package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/testnum"
)

// TestIngestConfiguredSources: `finops ingest` named no path imports the
// config's sources, as `finops run` does (issue #27: it was a usage error).
// The config is TestRunExporterDiedMidWeek's: the week's bill and three days
// of nvidia-smi logs, so the report over what it imported says what the
// run's does: 8,285 of 20,160 GPU-minutes monitored (TestExporterDiedMidWeek),
// coverage 41 %.
func TestIngestConfiguredSources(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	cfg := filepath.Join(dir, "finops.yaml")
	yaml := fmt.Sprintf("database: %s\nout: %s\nformats: [json]\nbilling:\n  - path: %s\n    mapping: autodl\n"+
		"utilization:\n  nvidia_smi:\n    - path: %s/*.csv\n      host: gpu-a\n      timezone: UTC\n",
		db, filepath.Join(dir, "out"), writeWeekBill(t, dir), writeSMIDays(t, dir, 3))
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, []byte(fmt.Sprintf("database: %s\n", filepath.Join(dir, "e.db"))), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		want     string // in stdout or stderr
	}{
		{"a flag for named files", []string{"--config", cfg, "ingest", "--host", "gpu-b"}, cli.ExitUsage, "--host describes the files named on the command line"},
		{"nothing configured", []string{"--config", empty, "ingest"}, cli.ExitUsage, "no paths and no sources configured"},
		{"check", []string{"--config", cfg, "ingest", "--check"}, cli.ExitOK, ""},
		{"the configured sources", []string{"--config", cfg, "ingest"}, cli.ExitOK, ""},
		// Imported already: the same files change nothing.
		{"again, as JSON", []string{"--config", cfg, "ingest", "--format", "json"}, cli.ExitOK, `"file"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runFinops(t, tc.args...)
			if code != tc.wantCode || !strings.Contains(out+errs, tc.want) {
				t.Fatalf("%v: exit %d, want %d and %q\n%s%s", tc.args, code, tc.wantCode, tc.want, out, errs)
			}
		})
	}
	// 1 bill + 3 logs; 3 days × 2 GPUs, compacted (they ended long before the clock).
	if c := counts(t, db); c["source_files"] != 4 || c["billing_lines"] != 1 || c["gpu_days"] != 6 {
		t.Errorf("database after ingest: %v, want 4 files, the bill's 1 line and the logs' 6 GPU-days", c)
	}
	if code, out, errs := runFinops(t, "--config", cfg, "report", "--week", "2026-W48"); code != cli.ExitPartial {
		t.Fatalf("report: exit %d, want %d\n%s%s", code, cli.ExitPartial, out, errs)
	}
	r := readSummary(t, filepath.Join(dir, "out", "finops-2026-W48.json"))
	testnum.Near(t, "GPU-hours monitored", r.Totals.GPUHoursBilled-r.Totals.GPUHoursUnmonitored, 8285.0/60, 0.005)
}
