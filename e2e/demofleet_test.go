package e2e

import (
	"path/filepath"
	"testing"
)

// demoFleet writes the demo (its week 2026-W48 reported, TestDemoStories)
// into a fresh directory and returns that directory and a runner of finops
// with the demo's config, so the advice tests start from the same fleet.
func demoFleet(t *testing.T) (dir string, run func(args ...string) (int, string, string)) {
	t.Helper()
	dir = t.TempDir()
	if code, out, errs := runFinops(t, "demo", "--out", dir); code != 0 {
		t.Fatalf("demo: exit %d\n%s%s", code, out, errs)
	}
	cfg := filepath.Join(dir, "demo-data", "finops.yaml")
	return dir, func(args ...string) (int, string, string) {
		t.Helper()
		return runFinops(t, append([]string{"--config", cfg}, args...)...)
	}
}
