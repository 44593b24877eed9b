package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/plan"
)

// TestPlanExample plans the shipped example: a table on stdout, the JSON and
// the workbook in --out, and the worked case of metrics.md at ¥39,000.
func TestPlanExample(t *testing.T) {
	out := t.TempDir()
	example := filepath.Join(repoRoot(t), "scenarios.example.yaml")
	code, stdout, stderr := runFinops(t, "plan", example, "--out", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"worked-case-20b-lora", "2 × A100-80GB monthly (ExampleCloud)", "¥39,000.00", "¥45,000.00",
		"TOTAL", "How we got this", "2 cards × ¥10,000.00/card-month × 45/30 months × risk 1.3 = ¥39,000.00",
		"wrote " + filepath.Join(out, "finops-plan-2027Q1.xlsx"), "wrote " + filepath.Join(out, "finops-plan-2027Q1.json")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "finops-plan-2027Q1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r plan.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Currency != "CNY" || len(r.Scenarios) != 6 || r.Scenarios[0].Plan == nil || r.Scenarios[0].Plan.CostLow != 39000 {
		t.Errorf("json: currency %q, %d scenarios, first plan %+v", r.Currency, len(r.Scenarios), r.Scenarios[0].Plan)
	}
	if fi, err := os.Stat(filepath.Join(out, "finops-plan-2027Q1.xlsx")); err != nil || fi.Size() == 0 {
		t.Errorf("workbook missing or empty: %v", err)
	}
	// Readable by others, like the reports (they were written 0600 once).
	for _, f := range []string{"finops-plan-2027Q1.xlsx", "finops-plan-2027Q1.json"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, %v; want 0644", f, fi.Mode().Perm(), err)
		}
	}
}

// TestPlanExplain prints the worked case's formulas and writes no files.
func TestPlanExplain(t *testing.T) {
	out := t.TempDir()
	example := filepath.Join(repoRoot(t), "scenarios.example.yaml")
	code, stdout, stderr := runFinops(t, "plan", example, "--explain", "--scenario", "worked-case-20b-lora", "--out", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{`Scenario "worked-case-20b-lora"`, "Step 1 · memory", "weights = N × bytes(fp16), frozen = 20,000,000,000 × 2",
		"RTX 4090      ruled out", "Step 4 · budget", "plan: 2 × A100-80GB monthly (ExampleCloud) — ¥39,000.00 to ¥45,000.00",
		"Total: ¥39,000.00"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("explanation lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "support-bot-lora") {
		t.Errorf("--scenario did not limit the plan")
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("--explain wrote files: %v", entries)
	}
}

// TestPlanConfigPrices: a scenario file without prices uses finops.yaml's.
func TestPlanConfigPrices(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "finops.yaml")
	scen := filepath.Join(dir, "q1.yaml")
	writePlanTestFile(t, cfg, `
currency: CNY
prices:
  - {provider: AutoDL, gpu_model: A100-80GB, hourly: 10, monthly: 7000, currency: CNY, as_of: "2026-11-01"}
`)
	writePlanTestFile(t, scen, `
scenarios:
  - {name: pair, kind: lora, model: llama-2-7b, gpus: 2, span_days: 30}
`)
	code, stdout, stderr := runFinops(t, "--config", cfg, "plan", scen, "--format", "table")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 2 cards × ¥7,000 × 30/30 × 1.3 = ¥18,200 beats 2 × 24 × 30 × ¥10 × 1.3 = ¥18,720.
	for _, want := range []string{"2 × A100-80GB monthly (AutoDL)", "¥18,200.00", "hourly ¥18,720.00"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

// TestPlanBadInput: bad scenario files and flags are usage errors (exit 2)
// that name the scenario and the field.
func TestPlanBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	writePlanTestFile(t, bad, `
scenarios:
  - name: chat-bot
    kind: inference
    model: llama-3-8b
    requests_per_day: 100k
    output_tokens: 200
    span_days: 90
    deadline_day: 3
`)
	code, _, stderr := runFinops(t, "plan", bad)
	if code != cli.ExitUsage {
		t.Errorf("bad file: exit %d, want %d", code, cli.ExitUsage)
	}
	for _, want := range []string{"finops: plan: ", `bad.yaml:9: scenario "chat-bot": field deadline_day: unknown field; did you mean deadline_days?`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, args := range [][]string{
		{"plan", filepath.Join(dir, "missing.yaml")},
		{"plan"},
		{"plan", bad, "extra"},
		{"plan", filepath.Join(repoRoot(t), "scenarios.example.yaml"), "--format", "pdf"},
		{"plan", filepath.Join(repoRoot(t), "scenarios.example.yaml"), "--scenario", "nope"},
	} {
		if code, _, stderr := runFinops(t, args...); code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, cli.ExitUsage, stderr)
		}
	}
}

func TestPlanHelp(t *testing.T) {
	code, stdout, _ := runFinops(t, "plan", "--help")
	if code != cli.ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"finops plan SCENARIOS.yaml", "--explain", "--format", "--out", "--scenario", "docs/PLANNER.md"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, stdout)
		}
	}
}

func writePlanTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
