package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

// TestReportRefusesMissingRate: a report over CNY (AutoDL) and USD (RunPod)
// lines with currency CNY and no USD rate is a usage error naming USD and
// the file that carries it; with the rate it is written.
func TestReportRefusesMissingRate(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	runpod := rentalFile(t, "runpod_billing_pods.json")
	autodl := filepath.Join(repoRoot(t), "testdata", "ingest", "autodl_sample.csv")
	if code, out, errOut := runFinops(t, "--db", db, "ingest", autodl, runpod); code != 0 {
		t.Fatalf("ingest: exit %d: %s %s", code, out, errOut)
	}
	write := func(name, yaml string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	report := func(cfg string) (int, string) {
		args := []string{"--db", db, "report", "--from", "2026-11-01", "--to", "2026-11-30", "--format", "json", "--out", filepath.Join(dir, "out")}
		if cfg != "" {
			args = append([]string{"--config", cfg}, args...)
		}
		code, stdout, stderr := runFinops(t, args...)
		return code, stdout + stderr
	}

	code, msg := report(write("cny.yaml", "currency: CNY\nfx: {EUR: \"7.7\"}\n"))
	if code != cli.ExitUsage {
		t.Errorf("no USD rate: exit %d, want %d: %s", code, cli.ExitUsage, msg)
	}
	for _, want := range []string{"no exchange rate from USD to CNY", runpod, "fx: {USD:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "autodl_sample.csv") {
		t.Errorf("message names the CNY file too: %q", msg)
	}

	// No reporting currency and two in the data: both named, with their files.
	code, msg = report("")
	if code != cli.ExitUsage || !strings.Contains(msg, "2 currencies (CNY, USD)") || !strings.Contains(msg, "CNY in "+autodl) ||
		!strings.Contains(msg, "USD in "+runpod) {
		t.Errorf("no currency configured: exit %d: %s", code, msg)
	}

	if code, msg = report(write("fx.yaml", "currency: cny\nfx: {usd: \"7.1\"}\n")); code != cli.ExitOK {
		t.Errorf("with the rate: exit %d: %s", code, msg)
	}
}
