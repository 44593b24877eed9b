package e2e

// nvidia-smi logs without a header in another field order (issue 13 item 2):
// the logger's --query-gpu list comes from --fields or the config's fields:
// key, or is told from the values; what cannot be told is refused naming the
// fix, and a refused file leaves the database as it was.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

const loggerQuery = "timestamp,name,pci.bus_id,index,uuid,utilization.gpu,memory.total,memory.used,power.draw"

// loggerLog writes testdata's 9-field logger log (with units) into dir, or
// its nounits twin (nvidia-smi drops " %", " MiB", " W").
func loggerLog(t *testing.T, dir string, units bool) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "ingest", "smi_logger_h100x2.csv"))
	if err != nil {
		t.Fatal(err)
	}
	name := "gpu-a-units.csv"
	if !units {
		b = regexp.MustCompile(`(?m)(\d) (%|MiB|W)(,|$)`).ReplaceAll(b, []byte("$1$3"))
		name = "gpu-a-nounits.csv"
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// extraQuery adds temperature.gpu and clocks.sm, which finops does not read;
// without the list the nounits rows below are refused (clocks.sm could be
// memory.used), so reading them shows that the list given is used.
const extraQuery = "timestamp,gpu_name,gpu_bus_id,index,gpu_uuid,temperature.gpu,utilization.gpu,clocks.sm,memory.total,memory.used,power.draw"

const extraLog = `2026/07/14 08:12:38.696, NVIDIA H100 80GB HBM3, 00000000:00:09.0, 0, GPU-6d3f8a2e-0000-0000-0000-000000000000, 31, 0, 345, 81559, 0, 69.85
2026/07/14 08:12:38.696, NVIDIA H100 80GB HBM3, 00000000:00:0A.0, 1, GPU-9b1c47d0-0000-0000-0000-000000000000, 33, 0, 345, 81559, 59, 71.15
2026/07/14 08:13:08.701, NVIDIA H100 80GB HBM3, 00000000:00:09.0, 0, GPU-6d3f8a2e-0000-0000-0000-000000000000, 58, 100, 1980, 81559, 19818, 631.95
2026/07/14 08:13:08.701, NVIDIA H100 80GB HBM3, 00000000:00:0A.0, 1, GPU-9b1c47d0-0000-0000-0000-000000000000, 47, 37, 1755, 81559, 11125, 433.78
`

// TestHostileSMIFieldsFlag: the logger line read with --fields and detected,
// with and without units (2 GPUs, 6 samples); a name nvidia-smi does not
// know is a usage error (exit 2); a header that disagrees with --fields, and
// a log whose fields are ambiguous, are refused (exit 1), the database as it was.
func TestHostileSMIFieldsFlag(t *testing.T) {
	dir := t.TempDir()
	for _, units := range []bool{true, false} {
		log := loggerLog(t, dir, units)
		for _, args := range [][]string{{"--fields", loggerQuery}, {"--format", "nvidia-smi"}} {
			db := filepath.Join(t.TempDir(), "f.db")
			code, out, errs := runFinops(t, append(append([]string{"--db", db, "ingest", "--host", "gpu-a"}, args...), log)...)
			if code != 0 || !strings.Contains(out, "nvidia-smi, 6 rows") {
				t.Fatalf("%v %s: exit %d\n%s%s", args, log, code, out, errs)
			}
			if c := counts(t, db); c["gpus"] != 2 {
				t.Errorf("%v %s: counts %v, want 2 GPUs", args, log, c)
			}
		}
	}
	extra := writeConfig(t, dir, "gpu-a-extra.csv", extraLog)
	db, before := hostileDB(t)
	refused(t, db, before, []string{"--format", "nvidia-smi", extra}, "gpu-a-extra.csv:1", "both look like memory.used", "give --fields")
	if code, out, errs := runFinops(t, "--db", db, "ingest", "--fields", extraQuery, extra); code != 0 || !strings.Contains(out, "nvidia-smi, 4 rows") {
		t.Errorf("extra fields: exit %d\n%s%s", code, out, errs)
	}
	db, before = hostileDB(t)
	code, out, errs := runFinops(t, "--db", db, "ingest", "--fields", "timestamp,uuid,gpu_util", loggerLog(t, dir, true))
	if code != cli.ExitUsage || !strings.Contains(out+errs, `--fields: "gpu_util" is not an nvidia-smi --query-gpu field`) {
		t.Errorf("unknown field: exit %d, want %d\n%s%s", code, cli.ExitUsage, out, errs)
	}
	if code, _, _ := runFinops(t, "--db", db, "ingest", "--format", "focus", "--fields", loggerQuery, loggerLog(t, dir, true)); code != cli.ExitUsage {
		t.Errorf("--fields with --format focus: exit %d, want %d", code, cli.ExitUsage)
	}
	headed := filepath.Join(dir, "headed.csv")
	body, _ := os.ReadFile(loggerLog(t, dir, true))
	head := "timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n"
	if err := os.WriteFile(headed, append([]byte(head), body...), 0o644); err != nil {
		t.Fatal(err)
	}
	refused(t, db, before, []string{"--fields", "timestamp,uuid,utilization.gpu", headed},
		"headed.csv:1", "the header lists timestamp,name,pci.bus_id", "the fields given are timestamp,uuid,utilization.gpu")
	// utilization.gpu and utilization.memory, both in %, in 6 fields.
	ambiguous := filepath.Join(dir, "ambiguous.csv")
	if err := os.WriteFile(ambiguous, []byte("2026/07/14 08:13:08.701, GPU-6d3f8a2e, 100 %, 11 %, 19818 MiB, 631.95 W\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused(t, db, before, []string{"--format", "nvidia-smi", ambiguous},
		"ambiguous.csv:1", "columns 3 and 4 both look like utilization.gpu", "give --fields")
}

// TestHostileSMIFieldsConfig: the scheduled run reads a nounits log with
// fields finops does not read by utilization.nvidia_smi[].fields (aliases
// included), which detection alone refuses; an unknown field in
// the key is refused at load naming the key (exit 2).
func TestHostileSMIFieldsConfig(t *testing.T) {
	dir := t.TempDir()
	log := writeConfig(t, dir, "gpu-a-extra.csv", extraLog)
	db := filepath.Join(dir, "f.db")
	cfg := writeConfig(t, dir, "finops.yaml", fmt.Sprintf("database: %s\nout: %s\nformats: [json]\n"+
		"utilization:\n  nvidia_smi:\n    - path: %s\n      host: gpu-a\n      fields: %s\n",
		db, filepath.Join(dir, "out"), log, extraQuery))
	if code, out, errs := runFinops(t, "--config", cfg, "run", "--no-upload", "--no-email"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	if c := counts(t, db); c["gpus"] != 2 {
		t.Errorf("counts %v, want 2 GPUs", c)
	}
	bad := writeConfig(t, dir, "bad.yaml", fmt.Sprintf("database: %s\nutilization:\n  nvidia_smi:\n    - path: %s\n      host: gpu-a\n      fields: timestamp,uuid,gpu_util\n",
		filepath.Join(dir, "g.db"), log))
	code, out, errs := runFinops(t, "--config", bad, "run", "--no-upload", "--no-email")
	if code != cli.ExitUsage || !strings.Contains(out+errs, `utilization.nvidia_smi[0].fields: "gpu_util" is not an nvidia-smi --query-gpu field`) {
		t.Errorf("bad fields: exit %d, want %d\n%s%s", code, cli.ExitUsage, out, errs)
	}
}
