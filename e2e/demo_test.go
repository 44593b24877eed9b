package e2e

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/testnum"
)

// readSummary decodes the JSON summary into the report model it was written from.
func readSummary(t *testing.T, path string) analysis.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s analysis.Result
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDemoStories runs `finops demo` and checks the stories its fleet is built
// to tell, with every expectation derived from the fleet's definition (demo
// package), not from finops' own output.
func TestDemoStories(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runFinops(t, "demo", "--out", out)
	if code != 0 {
		t.Fatalf("demo exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, ext := range []string{"xlsx", "html", "json"} {
		if fi, err := os.Stat(filepath.Join(out, "finops-2026-W48."+ext)); err != nil || fi.Size() == 0 {
			t.Errorf("finops-2026-W48.%s missing or empty: %v", ext, err)
		}
	}
	s := readSummary(t, filepath.Join(out, "finops-2026-W48.json"))
	res := map[string]int{}
	for i, r := range s.ByResource {
		res[r.ResourceID] = i
		// Every billed GPU-hour is active, idle or unmonitored.
		testnum.Near(t, r.ResourceID+" active+idle+unmonitored", r.GPUHoursActive+r.GPUHoursIdle+r.GPUHoursUnmonitored, r.GPUHoursBilled, 0.005)
	}

	checkDemoA100(t, s, s.ByResource[res["autodl-a100x2"]])

	// The hourly 4090: on 09:00–19:00 at ¥2/h, busy 10:00–18:00: the idle tail is
	// 2 h a day, 14 h = ¥28 over the week; billed 70 h = ¥140.
	r4090 := s.ByResource[res["autodl-4090-01"]]
	testnum.Near(t, "4090 cost", r4090.Cost, 140, 0.005)
	testnum.Near(t, "4090 idle hours", r4090.GPUHoursIdle, 14, 0.005)
	testnum.Near(t, "4090 idle cost", r4090.IdleCost, 28, 0.005)
	checkDemoAdvice(t, s)
	// The HTML page a team lead opens shows both: the weekend finding and the
	// monthly → hourly advice with its saving.
	page, err := os.ReadFile(filepath.Join(out, "finops-2026-W48.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Fri 27 Nov 21:00 – Mon 30 Nov 00:00 (51 h × 2 GPU)", "Switch to hourly autodl-a100x2", "monthly pays off above 424 h/month"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the HTML page does not show %q", want)
		}
	}

	// 2×168 (A100) + 168 (A10G, 24/7) + 7×12 (L40S) + 7×10 (4090) = 658 GPU-hours.
	testnum.Near(t, "total billed GPU-hours", s.Totals.GPUHoursBilled, 658, 0.005)

	// Ad hoc over the demo's database and config, into a folder that does not
	// exist yet: --since 14d at Nov 30 03:00 UTC (11:00 in Shanghai) is the 14
	// complete local days Nov 16 to Nov 29, and the file name says so.
	adhoc := filepath.Join(out, "adhoc", "sub")
	code, stdout, stderr = runFinops(t, "--config", filepath.Join(out, "demo-data", "finops.yaml"),
		"--db", filepath.Join(out, "demo-data", "finops.db"), "report", "--since", "14d", "--out", adhoc, "--format", "json")
	if code != 0 {
		t.Fatalf("report --since 14d: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(adhoc, "finops-2026-11-16_2026-11-29.json")); err != nil {
		t.Errorf("ad hoc report: %v", err)
	}
}

// checkDemoA100: the monthly A100 pair's cost, idle hours and cost, and its
// weekend idle span on each GPU, by hand from the demo fleet's definition.
func checkDemoA100(t *testing.T, s analysis.Result, a100 analysis.ResourceCost) {
	t.Helper()
	// The monthly A100 pair: ¥14,000 per 30 days for 2 GPUs is
	// 14000 / (30 × 1440 × 2) = ¥0.16204 a GPU-minute. In W48 it is busy only
	// Wed 09:00 → Fri 21:00 (60 h); idle Mon 00:00 → Wed 09:00 (57 h) and
	// Fri 21:00 → Mon 00:00 (51 h): 108 h × 2 GPUs = 216 GPU-hours idle =
	// 216 × 60 × 0.16204 = ¥2,100.00. Its week costs 14000 × 7/30 = ¥3,266.67.
	// The JSON rounds the resources' costs by largest remainder so that
	// they add up to totals.gpu_cost (report.partsAddUp): each is within a
	// fen of its cost, not half a fen.
	if d := math.Abs(a100.Cost - 14000.0*7/30); d >= 0.01 {
		t.Errorf("A100 cost = %.4f, want %.4f within a fen", a100.Cost, 14000.0*7/30)
	}
	testnum.Near(t, "A100 billed GPU-hours", a100.GPUHoursBilled, 2*168, 0.005)
	testnum.Near(t, "A100 idle GPU-hours", a100.GPUHoursIdle, 216, 0.005)
	testnum.Near(t, "A100 idle cost", a100.IdleCost, 216*60*14000.0/(30*1440*2), 0.005)
	weekend := 0
	for _, sp := range s.IdleSpans {
		// The weekend: Fri 21:00 Shanghai = 13:00 UTC on Nov 27, to the window end.
		if sp.ResourceID == "autodl-a100x2" && sp.Start.Equal(time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC)) &&
			sp.End.Equal(time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC)) {
			weekend++
			testnum.Near(t, "weekend span hours", sp.Hours, 51, 0.005)
		}
	}
	if weekend != 2 {
		t.Errorf("weekend idle spans of the A100 pair = %d, want one per GPU (2)", weekend)
	}
}

// checkDemoAdvice: the demo's advice, each with savings and a reason, and
// its weekend forgotten-instance finding with its money.
func checkDemoAdvice(t *testing.T, s analysis.Result) {
	t.Helper()
	actions := map[string]string{}
	for _, r := range s.Recommendations {
		actions[r.ResourceID] = r.Action
		if r.Action != "keep" && (r.MonthlySavings <= 0 || r.Reason == "") {
			t.Errorf("%s: %s without savings or reason: %+v", r.ResourceID, r.Action, r)
		}
	}
	for id, want := range map[string]string{
		"autodl-a100x2":     "switch_to_hourly", // busy ≈ 300 h/month, breakeven 7000/(15×1.1) = 424 h
		"autodl-4090-01":    "stop_when_idle",   // hourly, idle 2 h of every 10 h billed
		"autodl-l40s-batch": "switch_to_spot",   // interruptible, spot ¥1.80 vs ¥4.50
	} {
		if actions[id] != want {
			t.Errorf("%s recommendation = %q, want %q", id, actions[id], want)
		}
	}

	// The weekend-idle finding names the A100 pair's Friday-evening-to-Monday run;
	// its money is every idle run of 12 h or more: both runs above, ¥2,100.
	weekendFinding := false
	for _, f := range s.Findings {
		if f.Kind == analysis.FindingForgotten && f.ResourceID == "autodl-a100x2" &&
			strings.Contains(f.Text, "Fri 27 Nov 21:00 – Mon 30 Nov 00:00 (51 h × 2 GPU)") {
			weekendFinding = true
			testnum.Near(t, "forgotten money", f.Money, 216*60*14000.0/(30*1440*2), 0.005)
		}
	}
	if !weekendFinding {
		t.Errorf("no weekend forgotten-instance finding for the A100 pair in %+v", s.Findings)
	}
}

// TestDemoDeterministic: the same seed gives the same JSON summary, also when
// the demo runs again over its own earlier output.
func TestDemoDeterministic(t *testing.T) {
	var docs [2][]byte
	out := t.TempDir()
	for i := range docs {
		if code, stdout, stderr := runFinops(t, "demo", "--out", out, "--seed", "7"); code != 0 {
			t.Fatalf("demo exit %d: %s %s", code, stdout, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "finops-2026-W48.json"))
		if err != nil {
			t.Fatal(err)
		}
		docs[i] = b
	}
	// Each run makes a new database, with an id of its own (store.DatabaseID).
	for i := range docs {
		if !databaseID.Match(docs[i]) {
			t.Fatalf("run %d: no source.database_id in the summary", i+1)
		}
		docs[i] = databaseID.ReplaceAllLiteral(docs[i], nil)
	}
	if string(docs[0]) != string(docs[1]) {
		t.Error("two demo runs with the same seed wrote different JSON summaries")
	}
}
