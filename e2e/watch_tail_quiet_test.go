package e2e

import (
	"strings"
	"testing"
)

// TestWatchTailsQuiet: a pass with file lines and a decision to print (gpu-a
// idle in its nvidia-smi log since 00:00, alerted after watch.alert_after's
// 30 minutes; the env has no channel, so the decision is only recorded and
// printed) prints them without --quiet; with it only the one-line
// summary remains (the pass has no problem to print). Each run has an env
// of its own: the decision is made once per spell.
func TestWatchTailsQuiet(t *testing.T) {
	const summary = "watch: 2 resources, 1 decisions, 41 new log lines"
	for _, quiet := range []bool{false, true} {
		e, log, _ := newTailEnv(t)
		appendFile(t, log, smiHeader+smiRows(0, 40, 0))
		var args []string
		if quiet {
			args = []string{"--quiet"}
		}
		_, out := e.pass(t, watchAt(0, 40), 0, args...)
		// The decision's title: idle from the log's first row (00:00) to
		// the pass (00:40). The file lines: 40 rows of gpu-a's log, the
		// spool's one row.
		dropped := []string{"watch: GPU resource gpu-a idle for 40m\n", "gpu-a.log: 40 new lines",
			"nvml-gpu-b-20261130T00Z.csv.part: 1 new lines"}
		for _, s := range dropped {
			if got := strings.Contains(out, s); got == quiet {
				t.Errorf("quiet %v: printed %q: %v, want %v\n%s", quiet, s, got, !quiet, out)
			}
		}
		if quiet && out != summary+"\n" {
			t.Errorf("--quiet printed %q, want only the summary %q", out, summary)
		}
		if !strings.Contains(out, summary) {
			t.Errorf("quiet %v: no summary %q\n%s", quiet, summary, out)
		}
	}
}
