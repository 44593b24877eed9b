package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

// Values that parse but are wrong (issue #14): a blank currency, a charge
// period in year 9999, a line over centuries, utilization out of 0–100 %,
// memory above its total, task units ≤ 0, a GPU line of no usage. Each is
// refused (exit 1, the database as it was) or kept and shown, never guessed.

// writeInput writes text to dir/name and returns the path.
func writeInput(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// weekJSON writes the 2026-W48 report as JSON and decodes its totals and data quality.
func weekJSON(t *testing.T, db string) (totals map[string]float64, dq struct {
	Warnings       []string `json:"warnings"`
	SamplesDropped []struct {
		Source  string `json:"source"`
		Samples int    `json:"samples"`
	} `json:"samples_dropped"`
}) {
	t.Helper()
	out := t.TempDir()
	// These weeks hold a day or so of telemetry: exit 3 (incomplete) is
	// expected too; their values are what the tests check.
	if code, so, se := runFinops(t, "--db", db, "report", "--week", "2026-W48", "--format", "json", "--out", out); code != 0 && code != cli.ExitPartial {
		t.Fatalf("report: exit %d: %s %s", code, so, se)
	}
	b, err := os.ReadFile(filepath.Join(out, "finops-2026-W48.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Totals      map[string]float64 `json:"totals"`
		DataQuality json.RawMessage    `json:"data_quality"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(r.DataQuality, &dq); err != nil {
		t.Fatal(err)
	}
	return r.Totals, dq
}

const focusWeekHead = "ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency,ChargeCategory,ChargeFrequency,ConsumedQuantity,ResourceId,x_InstanceType\n"

// TestHostileBlankCurrency: a blank currency refuses the file (FOCUS, and a
// rental CSV through a mapping without currency) unless --currency says it.
func TestHostileBlankCurrency(t *testing.T) {
	db, before := hostileDB(t)
	dir := t.TempDir()
	focus := writeInput(t, dir, "focus.csv", focusWeekHead+"2026-11-24T00:00:00Z,2026-11-24T01:00:00Z,32.77,,Usage,Usage-Based,1,i-1,p4d.24xlarge\n")
	refused(t, db, before, []string{focus}, "focus.csv:2", `"BillingCurrency"`, "currency is blank", "--currency")
	cfg := writeInput(t, dir, "f.yaml", "mappings:\n  hy:\n    columns: {resource_id: 实例, start: 开始, end: 结束, cost: 金额}\n")
	rental := writeInput(t, dir, "hy.csv", "实例,开始,结束,金额\nr1,2026-11-24 00:00,2026-11-24 01:00,1.5\n")
	refused(t, db, before, []string{"--config", cfg, rental}, "hy.csv:2", `mapping "hy"`)
	if code, so, se := runFinops(t, "--db", db, "ingest", "--currency", "USD", focus); code != 0 || !strings.Contains(so, "32.77 USD") {
		t.Errorf("--currency USD: exit %d: %s %s", code, so, se)
	}
}

// TestHostileChargePeriod: a period in 9999 or year 1 is a bad field for
// --check and for an import; a line over 31 days is kept and warned about,
// in the ingest output and in the report's data quality.
func TestHostileChargePeriod(t *testing.T) {
	db, before := hostileDB(t)
	dir := t.TempDir()
	for name, row := range map[string]string{
		"end9999.csv": "2026-11-24T00:00:00Z,9999-12-31T00:00:00Z,10,USD,Usage,Usage-Based,1,i-1,p4d.24xlarge\n",
		"start1.csv":  "0001-01-01T00:00:00Z,2026-11-24T00:00:00Z,10,USD,Usage,Usage-Based,1,i-1,p4d.24xlarge\n",
	} {
		p := writeInput(t, dir, name, focusWeekHead+row)
		field := `"ChargePeriodEnd"`
		if name == "start1.csv" {
			field = `"ChargePeriodStart"`
		}
		if code, so, _ := runFinops(t, "ingest", "--check", p); code != cli.ExitFailed || !strings.Contains(so, "INVALID") || !strings.Contains(so, field) {
			t.Errorf("%s --check: exit %d: %s", name, code, so)
		}
		refused(t, db, before, []string{p}, name+":2", field, "between 2000 and 2100")
	}
	// A Vast.ai charge (another reader) from 1999 is refused the same way.
	vast := writeInput(t, dir, "vast.json", `{"results": [{"type": "instance", "source": "instance-1", "amount": 1.5, "start": 915148800, "end": 915152400}]}`)
	refused(t, db, before, []string{vast}, "vast.json", `"results[0].start"`, "1999-01-01")

	// 60 days, recurring: kept, warned. By hand: 2026-10-01 .. 2026-11-30 is 60 days.
	long := writeInput(t, dir, "long.csv", focusWeekHead+"2026-10-01T00:00:00Z,2026-11-30T00:00:00Z,600,CNY,Usage,Recurring,1,i-2,\n")
	code, so, se := runFinops(t, "--db", db, "ingest", long)
	if code != 0 || !strings.Contains(so, "1 warnings") || !strings.Contains(so, "warning: "+long+`:2: field "ChargePeriodEnd"`) ||
		!strings.Contains(so, "60.0 days") {
		t.Errorf("long line: exit %d: %s %s", code, so, se)
	}
	_, dq := weekJSON(t, db)
	if !strings.Contains(strings.Join(dq.Warnings, "\n"), long+`:2: field "ChargePeriodEnd": the charge period`) {
		t.Errorf("the report's data quality lacks the warning: %q", dq.Warnings)
	}
}

// TestHostileUtilOutOfRange: −7 % and 150 % from a dcgm scrape and an
// nvidia-smi log are dropped and counted per source in the report's data
// quality, never clamped into idle or busy minutes.
func TestHostileUtilOutOfRange(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	// 2026-11-24T00:00:00Z = 1795478400 s.
	scrape := writeInput(t, dir, "gpu-a.prom", `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",Hostname="gpu-a"} -7 1795478400000
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b",Hostname="gpu-a"} 150 1795478400000
DCGM_FI_DEV_GPU_UTIL{gpu="2",UUID="GPU-c",Hostname="gpu-a"} 60 1795478400000
`)
	smi := writeInput(t, dir, "gpu-b.csv", "timestamp, name, index, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n"+
		"2026/11/24 00:00:00.000, NVIDIA L4, 0, GPU-d, -7 %, 10 MiB, 100 MiB\n"+
		"2026/11/24 00:01:00.000, NVIDIA L4, 0, GPU-d, 150 %, 10 MiB, 100 MiB\n"+
		"2026/11/24 00:02:00.000, NVIDIA L4, 0, GPU-d, 30 %, 10 MiB, 100 MiB\n")
	code, so, se := runFinops(t, "--db", db, "ingest", scrape)
	if code != 0 || !strings.Contains(so, "1 rows") || !strings.Contains(so, "2 samples dropped") {
		t.Errorf("scrape: exit %d: %s %s", code, so, se)
	}
	code, so, se = runFinops(t, "--db", db, "ingest", "--host", "gpu-b", smi)
	if code != 0 || !strings.Contains(so, "1 rows") || !strings.Contains(so, "2 samples dropped") {
		t.Errorf("nvidia-smi: exit %d: %s %s", code, so, se)
	}
	_, dq := weekJSON(t, db)
	got := map[string]int{}
	for _, d := range dq.SamplesDropped {
		got[d.Source] = d.Samples
	}
	// A scrape names its hosts in labels, so its source is "dcgm"; the log's is its --host.
	if len(got) != 2 || got["dcgm"] != 2 || got["nvidia-smi gpu-b"] != 2 {
		t.Errorf("samples_dropped %v, want dcgm 2 and nvidia-smi gpu-b 2", dq.SamplesDropped)
	}
	if !strings.Contains(strings.Join(dq.Warnings, "\n"), "2 utilization samples of dcgm dropped") {
		t.Errorf("warnings %q", dq.Warnings)
	}
}

// TestHostileMemoryAndUnits: memory.used above memory.total and task units
// of 0 or below are bad fields naming file, line and field.
func TestHostileMemoryAndUnits(t *testing.T) {
	db, before := hostileDB(t)
	dir := t.TempDir()
	smi := writeInput(t, dir, "gpu.csv", "timestamp, name, index, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n"+
		"2026/11/24 00:00:00.000, NVIDIA L4, 0, GPU-d, 30 %, 23035 MiB, 23034 MiB\n")
	refused(t, db, before, []string{"--host", "h", smi}, "gpu.csv:2", `"memory.used [MiB]"`, "above the memory total")
	for _, units := range []string{"0", "-2"} {
		tasks := writeInput(t, dir, "tasks.csv", "task,resource,start,end,units\nt1,r1,2026-11-24T00:00:00Z,2026-11-24T01:00:00Z,"+units+"\n")
		refused(t, db, before, []string{tasks}, "tasks.csv:2", `"units"`, "positive number")
	}
}

// TestHostileZeroLengthGPULine: ingest's GPU-line count and the report's GPU
// cost agree on one definition: a zero-length line and a line of zero usage
// on a GPU instance are non-GPU cost in both.
func TestHostileZeroLengthGPULine(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	bill := writeInput(t, dir, "bill.csv", focusWeekHead+
		"2026-11-24T00:00:00Z,2026-11-24T01:00:00Z,32,USD,Usage,Usage-Based,1,i-1,p4d.24xlarge\n"+
		"2026-11-24T01:00:00Z,2026-11-24T01:00:00Z,5,USD,Usage,Usage-Based,1,i-1,p4d.24xlarge\n"+
		"2026-11-24T02:00:00Z,2026-11-24T03:00:00Z,7,USD,Usage,Usage-Based,0,i-1,p4d.24xlarge\n")
	code, so, se := runFinops(t, "--db", db, "ingest", bill)
	if code != 0 || !strings.Contains(so, "3 rows") || !strings.Contains(so, "1 GPU lines") {
		t.Fatalf("ingest: exit %d: %s %s", code, so, se)
	}
	totals, _ := weekJSON(t, db)
	// By hand: GPU cost is the one GPU line's 32; the other two, 5 + 7 = 12, are non-GPU.
	if totals["gpu_cost"] != 32 || totals["non_gpu_cost"] != 12 || totals["cost"] != 44 {
		t.Errorf("totals %v, want gpu_cost 32, non_gpu_cost 12, cost 44", totals)
	}
}
