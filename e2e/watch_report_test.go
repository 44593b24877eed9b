package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
)

// TestWatchReportSaving is issue #17's Done-when end to end, against a real
// Prometheus: the forgotten gpu-a (idle from 01:00) is alerted at 01:31,
// graced at 01:45 and stopped once at 02:00 by a recording script (act:
// true, gpu-a allowed); silent after, it is closed as released; someone
// starts it again at 04:30 (busy). The weekly report of that week then shows
// the alerts, the action and its saving: ¥4.80 an hour (the bill's ¥38.40
// for 8 h) × 2.5 h from 02:00 to the next busy minute 04:30 = ¥12.00.
func TestWatchReportSaving(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(func(host string, m int) (float64, bool) {
		switch {
		case host != "gpu-a" || m < 60 || m >= 270:
			return 95, true
		case m >= 120:
			return 0, false // stopped
		}
		return 2, true
	}))
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	e := newWatchEnv(t, srv.URL, actConfig(recordingScript(t, dir, log, "exit 0"), "1m"))
	watchStopsGPUA(t, e, log)

	out := filepath.Join(dir, "out")
	code, stdout, stderr := e.run(t, watchAt(4, 50).AddDate(0, 0, 7), "report", "--week", "2026-W49", "--out", out)
	// The watch's telemetry stopped early in the week: written, incomplete.
	if code != cli.ExitPartial {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, stderr)
	}
	const line = "Watch: 4 alerts sent, 1 action taken, saving an estimated ¥12.00"
	if !strings.Contains(stdout, line) {
		t.Errorf("the summary lacks %q:\n%s", line, stdout)
	}
	checkWatchReportJSON(t, filepath.Join(out, "finops-2026-W49.json"))
	page, err := os.ReadFile(filepath.Join(out, "finops-2026-W49.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `id="h-watch"`) || !strings.Contains(string(page), "¥12.00") {
		t.Error("the page has no Watch section with the saving")
	}
}

// watchStopsGPUA runs the night's watch passes: each sends the one message
// expected of it, and the stop command runs once.
func watchStopsGPUA(t *testing.T, e *watchEnv, log string) {
	t.Helper()
	for _, p := range []struct {
		at   time.Time
		want string // the event of the one message the pass sends; "" none
	}{
		{watchAt(1, 31), "idle"},
		{watchAt(1, 45), "grace"},
		{watchAt(2, 0), "action"},
		{watchAt(2, 30), "released"},
		{watchAt(4, 45), ""}, // fetches the minutes up to 04:45: busy again from 04:30
	} {
		got, out := e.pass(t, p.at, 0)
		if p.want == "" && len(got) != 0 || p.want != "" && (len(got) != 1 || got[0].Event != p.want) {
			t.Fatalf("%s: messages %+v, want %q\n%s", p.at.Format("15:04"), got, p.want, out)
		}
	}
	if l := readLog(t, log); strings.Count(l, "argv") != 1 {
		t.Fatalf("the command ran %d times, want once:\n%s", strings.Count(l, "argv"), l)
	}
}

// checkWatchReportJSON: the report's JSON holds the four alerts and the one
// action, with its rate, hours and saving.
func checkWatchReportJSON(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Watch *struct {
			Alerts []struct {
				Resource, Event, Channel string
			}
			Actions []struct {
				At, Until               time.Time
				Resource, Team, Outcome string
				ExitCode                *int `json:"exit_code"`
				DryRun                  bool `json:"dry_run"`
				NextBusy                bool `json:"next_busy"`
				Rate, Saved             *float64
				Hours                   float64
			}
			Saved float64
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	w := doc.Watch
	if w == nil || len(w.Alerts) != 4 || len(w.Actions) != 1 {
		t.Fatalf("watch in the JSON: %s", raw)
	}
	for i, ev := range []string{"idle", "grace", "action", "released"} {
		if a := w.Alerts[i]; a.Event != ev || a.Resource != "gpu-a" || a.Channel != "slack#0" {
			t.Errorf("alert %d: %+v, want %s for gpu-a on slack#0", i, a, ev)
		}
	}
	a := w.Actions[0]
	if a.Resource != "gpu-a" || a.Team != "nlp" || a.Outcome != "done" || a.ExitCode == nil || *a.ExitCode != 0 || a.DryRun ||
		!a.At.Equal(watchAt(2, 0)) || !a.Until.Equal(watchAt(4, 30)) || !a.NextBusy {
		t.Errorf("action %+v: want gpu-a stopped at 02:00, next busy 04:30", a)
	}
	if a.Rate == nil || *a.Rate != 4.8 || a.Saved == nil || *a.Saved != 12 || math.Abs(a.Hours-2.5) > 1e-9 || w.Saved != 12 {
		t.Errorf("action rate %v × %g h = %v (total %g), want 4.80 × 2.5 = 12", a.Rate, a.Hours, a.Saved, w.Saved)
	}
}

// TestWatchReportSavingRunningWeek: the report of the running week, made
// minutes after the watch stopped gpu-a, credits the stop with at most the
// time since it, and none past the data (issue 33, point 7). The pass at
// 02:00 stopped gpu-a (¥4.80 an hour) and fetched gpu-b's samples up to
// 01:59; the bill ends at 00:00. So the last minute with data is 02:00 (the
// 01:59 sample covers it), ending at 02:01. Made at 02:07, the report
// credits 02:00 → 02:01 = 1/60 h × ¥4.80 = ¥0.08; made at 02:00:30,
// 02:00 → now = 0.5/60 h × ¥4.80 = ¥0.04. Before the bound it credited
// 02:00 → the week's end (2026-12-06 16:00 UTC, Asia/Shanghai's Monday)
// = 158 h × ¥4.80 = ¥758.40.
func TestWatchReportSavingRunningWeek(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(func(host string, m int) (float64, bool) {
		switch {
		case host != "gpu-a" || m < 60:
			return 95, true
		case m >= 120:
			return 0, false // stopped
		}
		return 2, true
	}))
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	e := newWatchEnv(t, srv.URL, actConfig(recordingScript(t, dir, log, "exit 0"), "1m"))
	for _, at := range []time.Time{watchAt(1, 31), watchAt(1, 45), watchAt(2, 0)} {
		e.pass(t, at, 0)
	}
	if l := readLog(t, log); strings.Count(l, "argv") != 1 {
		t.Fatalf("the command ran %d times, want once:\n%s", strings.Count(l, "argv"), l)
	}
	for i, tc := range []struct {
		now   time.Time
		until time.Time
		by    string
		hours float64
		saved float64
	}{
		{watchAt(2, 7), watchAt(2, 1), "data", 1.0 / 60, 0.08},
		{watchAt(2, 0).Add(30 * time.Second), watchAt(2, 0).Add(30 * time.Second), "now", 0.5 / 60, 0.04},
	} {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		code, stdout, stderr := e.run(t, tc.now, "report", "--week", "2026-W49", "--format", "json", "--out", out)
		if code != cli.ExitOK && code != cli.ExitPartial {
			t.Fatalf("report at %s: exit %d\n%s%s", tc.now, code, stdout, stderr)
		}
		raw, err := os.ReadFile(filepath.Join(out, "finops-2026-W49.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Watch *struct {
				Actions []struct {
					At, Until time.Time
					UntilBy   string `json:"until_by"`
					Hours     float64
					Saved     *float64
				}
				Saved float64
			}
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Watch == nil || len(doc.Watch.Actions) != 1 {
			t.Fatalf("watch in the JSON: %s", raw)
		}
		a := doc.Watch.Actions[0]
		if !a.At.Equal(watchAt(2, 0)) || !a.Until.Equal(tc.until) || a.UntilBy != tc.by || math.Abs(a.Hours-tc.hours) > 1e-9 ||
			a.Saved == nil || *a.Saved != tc.saved || doc.Watch.Saved != tc.saved {
			t.Errorf("report at %s: action %+v (total %g): want 02:00 → %s by %s, %g h × ¥4.80 = ¥%.2f",
				tc.now.Format(time.TimeOnly), a, doc.Watch.Saved, tc.until.Format(time.TimeOnly), tc.by, tc.hours, tc.saved)
		}
		if want := fmt.Sprintf("saving an estimated ¥%.2f", tc.saved); !strings.Contains(stdout, want) {
			t.Errorf("report at %s: the summary does not say %q:\n%s", tc.now.Format(time.TimeOnly), want, stdout)
		}
	}
}
