package e2e

import (
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"report", "--week", "nope"},
		{"--config", "/nonexistent/finops.yaml", "report"},
		{"ingest"},
		{"--log-format", "xml", "version"},
		{"report", "--bogus-flag"},
	} {
		if code, _, _ := runFinops(t, args...); code != cli.ExitUsage {
			t.Errorf("finops %v: exit %d, want %d", args, code, cli.ExitUsage)
		}
	}
}
