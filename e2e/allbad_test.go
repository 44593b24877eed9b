package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

// A file whose every row is bad is refused, exit 1, however many bad rows
// --max-bad-rows allows: it never reads "OK" or imports as 0 rows.
func TestIngestAllRowsBadRefused(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency,ChargeCategory\n"+
		"2026-11-01 00:00:00,2026-11-01 01:00:00,1;50,USD,Usage\n"+
		"2026-11-01 01:00:00,2026-11-01 02:00:00,two,USD,Usage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"ingest", "--check", "--max-bad-rows", "5", bad},
		{"ingest", "--max-bad-rows", "5", bad},
	} {
		code, stdout, stderr := runFinops(t, append([]string{"--db", db}, args...)...)
		out := stdout + stderr
		if code != cli.ExitFailed || !strings.Contains(out, "not one row could be read: all 2 rows are bad") ||
			!strings.Contains(out, `bad.csv:2: field "BilledCost"`) || strings.Contains(stdout, ": OK") {
			t.Errorf("%s: exit %d, want %d refusing the file:\n%s", strings.Join(args, " "), code, cli.ExitFailed, out)
		}
	}
}
