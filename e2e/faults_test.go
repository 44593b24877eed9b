package e2e

// Faults that `make test-faults` collects beside the Prometheus, S3, SMTP,
// kill -9 and two-runs tests of telemetry_test.go and publish_test.go.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/cli"
)

// TestFaultDiskFull: the report's folder fills up while the reports are being
// written. finops runs as a child process (this test binary as finops) under
// `ulimit -f` (RLIMIT_FSIZE: a write past the limit fails with EFBIG, as a full
// disk fails with ENOSPC). It exits 1 naming the file it could not write, and
// leaves no half-written report: every report is written to a temporary file
// and renamed, so what is in the folder is complete, and nothing else is there.
// The database is not touched.
func TestFaultDiskFull(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash for ulimit -f")
	}
	dir := t.TempDir()
	if code, stdout, stderr := runFinops(t, "demo", "--out", dir); code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, stdout, stderr)
	}
	cfg := filepath.Join(dir, "demo-data", "finops.yaml")
	db := filepath.Join(dir, "demo-data", "finops.db")
	before := counts(t, db)

	for _, tc := range []struct {
		limitKiB string
		want     []string // patterns the message matches
	}{
		// The workbook (≈ 70 KB) cannot be written; the page and the JSON
		// are written beside it, so whichever crosses the limit first is
		// the one named.
		{"64", []string{"file too large", `finops-2026-W48\.(xlsx|html|json)`}},
		// Too little even for SQLite's shared-memory file: the database
		// cannot be opened; nothing is written.
		{"16", []string{"disk I/O error", `finops\.db`}},
	} {
		limitKiB := tc.limitKiB
		t.Run(limitKiB+"KiB", func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", "-c", `ulimit -f "$1" && shift && exec "$@"`, "bash", limitKiB,
				os.Args[0], "--config", cfg, "--db", db, "report", "--week", "2026-W48", "--out", out)
			cmd.Env = append(os.Environ(), "FINOPS_TEST_MAIN=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := cmd.ProcessState.ExitCode()
			msg := stdout.String() + stderr.String()
			if err == nil || code != cli.ExitFailed {
				t.Fatalf("exit %d (%v), want %d\n%s", code, err, cli.ExitFailed, msg)
			}
			for _, w := range tc.want {
				if !regexp.MustCompile(w).MatchString(msg) {
					t.Errorf("message does not say %s: %s", w, msg)
				}
			}
			entries, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				path := filepath.Join(out, e.Name())
				switch filepath.Ext(e.Name()) {
				case ".xlsx":
					f, err := excelize.OpenFile(path)
					if err != nil {
						t.Errorf("%s is left half-written: %v", e.Name(), err)
						continue
					}
					f.Close()
				case ".json":
					b, _ := os.ReadFile(path)
					if !json.Valid(b) {
						t.Errorf("%s is left half-written", e.Name())
					}
				case ".html":
					b, _ := os.ReadFile(path)
					if !bytes.Contains(b, []byte("</html>")) {
						t.Errorf("%s is left half-written", e.Name())
					}
				default:
					t.Errorf("%s left in the report folder", e.Name())
				}
			}
			if after := counts(t, db); !equalCounts(before, after) {
				t.Errorf("database changed: %v → %v", before, after)
			}
		})
	}
}
