package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

// TestQuietCommands runs each command that prints more than its problems
// with and without --quiet, as cron does (stdout and stderr are buffers, no
// terminal): with --quiet only the problems and the result asked for
// remain; without it the lines --quiet drops are there (else the check
// would pass for a command that never prints them); neither run has a
// progress bar's bytes. The demo's fleet gives every command real work.
func TestQuietCommands(t *testing.T) {
	dir := t.TempDir()
	if code, stdout, stderr := runFinops(t, "demo", "--out", dir); code != cli.ExitOK {
		t.Fatalf("demo: exit %d\n%s\n%s", code, stdout, stderr)
	}
	data := filepath.Join(dir, "demo-data")
	cfg := filepath.Join(data, "finops.yaml")
	bill := filepath.Join(data, "billing", "aws-focus.csv")
	bad := filepath.Join(repoRoot(t), "testdata", "ingest", "bad", "bad_number.csv")
	// A config whose one source is missing: doctor's FAIL line.
	broken := filepath.Join(dir, "broken.yaml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(broken, []byte(strings.Replace(string(b), bill, filepath.Join(dir, "gone.csv"), 1)), 0o644)
	scen := filepath.Join(repoRoot(t), "scenarios.example.yaml")

	for _, tc := range []struct {
		name string
		args []string
		code int
		// dropped: printed without --quiet, not with it; kept: printed by both.
		dropped, kept []string
	}{
		{"ingest --check of a good file", []string{"--config", cfg, "ingest", "--check", bill}, cli.ExitOK,
			[]string{"aws-focus.csv: OK", "total cost:"}, nil},
		{"ingest --check of a good and a bad file", []string{"--config", cfg, "ingest", "--check", bill, bad}, cli.ExitFailed,
			[]string{"aws-focus.csv: OK"}, []string{"bad_number.csv: INVALID", "1 of 2 files would not import"}},
		{"doctor", []string{"--config", cfg, "doctor"}, cli.ExitOK,
			[]string{"OK    config", "OK    database", "SKIP"}, nil},
		{"doctor with a missing source", []string{"--config", broken, "doctor"}, cli.ExitFailed,
			[]string{"OK    config"}, []string{"FAIL  billing", "gone.csv", "doctor: 1 of"}},
		{"review", []string{"--config", cfg, "review", "--quarter", "2026Q4", "--out", filepath.Join(dir, "review")}, cli.ExitOK,
			[]string{"Rent-or-buy review 2026Q4", "wrote "}, nil},
		{"plan", []string{"plan", scen, "--format", "table,json", "--out", filepath.Join(dir, "plan")}, cli.ExitOK,
			[]string{"wrote "}, []string{"SCENARIO"}},
		{"report", []string{"--config", cfg, "report", "--week", "2026-W48", "--format", "json", "--out", filepath.Join(dir, "report")}, cli.ExitOK,
			[]string{"wrote ", "Top findings"}, nil},
		// The demo's telemetry is older than watch.lookback at the real now:
		// the one-line summary is all a pass prints, quiet or not.
		{"watch", []string{"--config", cfg, "watch", "--dry-run"}, cli.ExitOK,
			nil, []string{"4 resources, 0 decisions, 0 new log lines"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, quiet := range []bool{false, true} {
				args := tc.args
				if quiet {
					args = append([]string{"--quiet"}, args...)
				}
				code, stdout, stderr := runFinops(t, args...)
				both := stdout + stderr
				if code != tc.code {
					t.Fatalf("%v: exit %d, want %d\n%s", args, code, tc.code, both)
				}
				for _, s := range tc.dropped {
					if got := strings.Contains(both, s); got == quiet {
						t.Errorf("%v: printed %q: %v, want %v\n%s", args, s, got, !quiet, both)
					}
				}
				for _, s := range tc.kept {
					if !strings.Contains(both, s) {
						t.Errorf("%v lacks %q:\n%s", args, s, both)
					}
				}
				for _, s := range barBytes {
					if strings.Contains(both, s) {
						t.Errorf("%v: progress bytes %q without a terminal:\n%q", args, s, both)
					}
				}
			}
		})
	}
}
