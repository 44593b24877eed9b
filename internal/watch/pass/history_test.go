package pass

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/store"
)

// TestWriteHistory: a decision's line names its action, argv, outcome and
// exit code; a command's output shows only when asked; bill text with an
// escape sequence reaches the terminal without it.
func TestWriteHistory(t *testing.T) {
	one := 1
	recs := []store.WatchRecord{
		{At: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC), Kind: "idle", Event: "alert", Resource: "gpu-a\x1b[31m", Team: "ml",
			Title: "idle 2h", Burnt: 12.5, BurntKnown: true, Currency: "USD"},
		{At: time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC), Kind: "idle", Event: "action", Resource: "gpu-b", Team: "ml",
			Action: &store.WatchAction{Action: "stop", Argv: []string{"stop.sh", "gpu-b"}, Outcome: "failed", ExitCode: &one,
				Reason: "still busy", Output: "line one\nline two\n"}},
	}
	for _, tc := range []struct {
		output      bool
		want, wantN []string
	}{
		{false, []string{"2026-11-30 03:00", "idle alert", "idle 2h", "12.50", `stop ["stop.sh","gpu-b"]: failed, exit 1 (still busy)`, "?"},
			[]string{"\x1b", "| line one"}},
		{true, []string{"| line one", "| line two"}, []string{"\x1b"}},
	} {
		var b strings.Builder
		if err := WriteHistory(&b, recs, tc.output); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("output %v: no %q in\n%s", tc.output, w, b.String())
			}
		}
		for _, w := range tc.wantN {
			if strings.Contains(b.String(), w) {
				t.Errorf("output %v: %q in\n%s", tc.output, w, b.String())
			}
		}
	}
}
