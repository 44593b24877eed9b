package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/testnum"
)

// TestIngestBillStartsAhead: the week's AutoDL bill with a second line
// dated a year on (a wrong year in the export, or this host's clock a year
// behind). The line is kept, not refused, and the ingest warns once, naming
// it; the week's report repeats the warning in its data-quality box.
//
// The bill is China time: the 2027 line starts 2027-11-23 08:00 +08:00,
// 2027-11-23T00:00:00Z, a year after the tests' clock (2026-11-30 03:00 UTC)
// and so more than a day. It is line 3 of the file (the header is line 1).
// The file's period, Nov 23 2026 to Nov 30 2027, overlaps 2026-W48, so the
// week's report lists the file's warnings. Billed in W48: gpu-a's two
// A100s for the week, 2 × 168 h = 336 h; the 2027 line adds nothing to it.
func TestIngestBillStartsAhead(t *testing.T) {
	dir := t.TempDir()
	bill := filepath.Join(dir, "autodl.csv")
	if err := os.WriteFile(bill, []byte("实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n"+
		"gpu-a,训练机,A100-SXM4-80GB * 2,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥806.40,¥806.40\n"+
		"gpu-b,推理机,A100-SXM4-80GB * 1,包周,2027-11-23 08:00:00,2027-11-30 08:00:00,¥403.20,¥403.20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "f.db")
	const want = "1 line's charge period starts more than a day after this host's clock (2026-11-30T03:00:00Z), " +
		"the earliest at 2027-11-23T00:00:00Z: check the export's dates (a wrong year?) and this host's clock (NTP, chrony)"
	code, out, errs := runFinops(t, "--db", db, "ingest", bill)
	if code != 0 || !strings.Contains(out, "warning: "+bill+":3: "+want) {
		t.Errorf("ingest: exit %d, want 0 and the warning %q:\n%s%s", code, want, out, errs)
	}
	if c := counts(t, db); c["billing_lines"] != 2 {
		t.Errorf("stored %d billing lines, want both", c["billing_lines"])
	}

	rep := filepath.Join(dir, "out")
	// No telemetry: the report is partial (exit 3), but written.
	if code, out, errs := runFinops(t, "--db", db, "report", "--week", "2026-W48", "--format", "json", "--out", rep); code != 0 && code != cli.ExitPartial {
		t.Fatalf("report: exit %d\n%s%s", code, out, errs)
	}
	r := readSummary(t, filepath.Join(rep, "finops-2026-W48.json"))
	if w := strings.Join(r.DataQuality.Warnings, "\n"); !strings.Contains(w, bill+":3: "+want) {
		t.Errorf("the report's data-quality warnings do not name the line that starts ahead:\n%s", w)
	}
	testnum.Near(t, "gpu_hours_billed", r.Totals.GPUHoursBilled, 336, 0.005)
}
