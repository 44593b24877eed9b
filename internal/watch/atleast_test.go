package watch

import (
	"strings"
	"testing"
)

// TestIdleSinceAtLeast: a resource idle since the start of the telemetry
// the pass read (the lookback's start, 10:00 here, two hours before t0) may
// have idled from earlier, so its alert says "at least" (issue 33, point
// 10); one whose idle run began after a busy minute gives the exact time.
func TestIdleSinceAtLeast(t *testing.T) {
	for _, tc := range []struct {
		name      string
		idleMin   int
		atLeast   bool
		title     string
		textSince string
	}{
		{"idle since the lookback's start", -120, true, "GPU resource a idle for at least 2h",
			"has been idle since at least 2026-11-30 10:00 UTC"},
		{"idle since 11:00, busy before", -60, false, "GPU resource a idle for 1h", "has been idle since 2026-11-30 11:00 UTC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := res("a", new(tc.idleMin))
			tg.IdleSinceAtLeast = tc.atLeast
			got := Decide(t0, params(), []Target{tg}, nil)
			if len(got) != 1 || got[0].Event != "idle" {
				t.Fatalf("decisions %+v, want the idle alert", got)
			}
			m := got[0].Message
			if m.Title != tc.title || !strings.Contains(m.Text, tc.textSince) {
				t.Errorf("title %q, text %q; want %q and %q", m.Title, m.Text, tc.title, tc.textSince)
			}
			if !tc.atLeast && strings.Contains(m.Title+m.Text, "at least") {
				t.Errorf("an exact start says \"at least\": %q %q", m.Title, m.Text)
			}
		})
	}
}
