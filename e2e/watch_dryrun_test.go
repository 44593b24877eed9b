package e2e

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
)

// TestWatchDryRunSendsNothing: a dry run makes no request to anything
// outside the process (issue 33, point 8). Two real HTTP receivers on
// 127.0.0.1 (a generic JSON hook and a Feishu bot) count what reaches them:
// `watch --dry-run` reaches neither, prints each message with the channel
// it would go to, and records no decision (the next dry run decides the
// same alert afresh); `--dry-run --send-alerts` sends them, as a dry run
// did before; a message an earlier pass left pending is listed by a dry
// run, not sent. gpu-a is idle from 01:00 (watchUtil), so at 01:31 it is
// idle for 31 minutes: one idle alert, one message per channel.
func TestWatchDryRunSendsNothing(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(watchUtil))
	hook := newChatReceiver(t, "")
	feishu := newChatReceiver(t, `{"code":0,"msg":"success","data":{}}`)
	e := newWatchEnv(t, srv.URL, "watch:\n  channels:\n    - type: json\n      url_env: HOOK_URL\n"+
		"    - type: feishu\n      url_env: FEISHU_URL\n")
	e.env["HOOK_URL"], e.env["FEISHU_URL"] = hook.srv.URL+"/alerts?token=s3cret", feishu.srv.URL+"/bot"
	requests := func() (int, int) {
		hook.mu.Lock()
		defer hook.mu.Unlock()
		feishu.mu.Lock()
		defer feishu.mu.Unlock()
		return len(hook.ok) + hook.refused, len(feishu.ok) + feishu.refused
	}
	dry := func(when time.Time, wantHook, wantFeishu int, want ...string) {
		t.Helper()
		at := when.Format("15:04")
		code, out, errs := e.run(t, when, "watch", "--dry-run")
		if code != cli.ExitOK {
			t.Fatalf("dry run at %s: exit %d\n%s%s", at, code, out, errs)
		}
		if gh, gf := requests(); gh != wantHook || gf != wantFeishu {
			t.Errorf("after the dry run at %s the receivers had %d and %d requests, want %d and %d (none of its own)",
				at, gh, gf, wantHook, wantFeishu)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("the dry run at %s does not say %q:\n%s", at, w, out)
			}
		}
		if strings.Contains(out+errs, "s3cret") {
			t.Errorf("the dry run at %s prints the hook's token:\n%s%s", at, out, errs)
		}
	}
	dry(watchAt(1, 31), 0, 0,
		`dry run: would send to json#0: "GPU resource gpu-a idle for 31m"`,
		`dry run: would send to feishu#1: "GPU resource gpu-a idle for 31m"`,
		"dry run:   Resource gpu-a (team nlp, 2 GPUs",
		"dry run: 2 message(s) not sent, no command run")
	// Nothing was recorded: four minutes on, the same alert is decided again.
	dry(watchAt(1, 35), 0, 0,
		`dry run: would send to json#0: "GPU resource gpu-a idle for 35m"`,
		`dry run: would send to feishu#1: "GPU resource gpu-a idle for 35m"`)

	// --send-alerts: today's dry run, the alerts sent. The JSON hook refuses
	// (500), so its message stays pending (exit 4); Feishu takes its own.
	hook.setFailing(true)
	if code, out, errs := e.run(t, watchAt(1, 40), "watch", "--dry-run", "--send-alerts"); code != cli.ExitPublish {
		t.Fatalf("--dry-run --send-alerts: exit %d, want %d\n%s%s", code, cli.ExitPublish, out, errs)
	}
	if gh, gf := requests(); gh != 1 || gf != 1 || len(feishu.bodies()) != 1 ||
		!strings.Contains(string(feishu.bodies()[0]), "gpu-a idle for 40m") {
		t.Fatalf("--send-alerts: %d and %d requests (Feishu got %q), want the idle alert on each", gh, gf, feishu.bodies())
	}
	hook.setFailing(false)
	// A dry run lists the pending message and still sends nothing.
	dry(watchAt(1, 41), 1, 1, `dry run: would send to json#0 (left over from the pass at 2026-11-30T01:40:00Z): "GPU resource gpu-a idle for 40m"`,
		"dry run: 1 message(s) not sent")
	if code, out, errs := e.run(t, watchAt(1, 42), "watch", "--dry-run", "--send-alerts"); code != cli.ExitOK {
		t.Fatalf("--dry-run --send-alerts at 01:42: exit %d\n%s%s", code, out, errs)
	}
	if bs := hook.bodies(); len(bs) != 1 || !strings.Contains(string(bs[0]), `"resource":"gpu-a"`) {
		t.Errorf("the pending message did not reach the hook: %q", bs)
	}

	if code, out, errs := e.run(t, watchAt(1, 43), "watch", "--send-alerts"); code != cli.ExitUsage ||
		!strings.Contains(out+errs, "--send-alerts goes with --dry-run") {
		t.Errorf("--send-alerts alone: exit %d, want %d with a word on --dry-run\n%s%s", code, cli.ExitUsage, out, errs)
	}
}

// TestWatchDryRunGenerated: over dry runs at random times of the test
// fleet's morning, with the auto-stop on (act: true, gpu-a allowed, after an
// hour idle), no request reaches either receiver and the command never
// runs, while the output names each channel for each message the pass
// decides. What each pass decides is worked out from watchUtil here: gpu-a
// is idle from 01:00. First with no spell open: from 30 minutes on
// (alert_after) the idle alert "idle for <T − 01:00>", nothing else (a dry
// run records no spell, so none is open to act on, and each pass decides
// the alert afresh). Then, after one pass with --send-alerts at 01:31 opened
// the spell (its two requests the only ones): no alert (open, no reminder
// within remind_every's 4 h) and, from an hour idle (on_idle.after), a
// "would stop (dry run)" message, decided afresh by every pass since none
// is recorded. Times within a minute of those thresholds are skipped (a
// minute's sample decides them).
func TestWatchDryRunGenerated(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(watchUtil))
	hook := newChatReceiver(t, "")
	feishu := newChatReceiver(t, `{"code":0,"msg":"success","data":{}}`)
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	script := recordingScript(t, dir, log, "exit 0")
	e := newWatchEnv(t, srv.URL, fmt.Sprintf(`watch:
  act: true
  grace: 15m
  allow:
    resources: [gpu-a]
  on_idle:
    after: 1h
    action: stop
    command: [%s, stop]
  channels:
    - type: json
      url_env: HOOK_URL
    - type: feishu
      url_env: FEISHU_URL
`, script))
	e.env["HOOK_URL"], e.env["FEISHU_URL"] = hook.srv.URL, feishu.srv.URL
	reached := func() int {
		hook.mu.Lock()
		defer hook.mu.Unlock()
		feishu.mu.Lock()
		defer feishu.mu.Unlock()
		return len(hook.ok) + hook.refused + len(feishu.ok) + feishu.refused
	}
	rng := rand.New(rand.NewSource(8))
	draw := func(lo, hi int) []int { // 8 sorted minutes after 00:00 in [lo, hi), off the thresholds
		var mins []int
		for len(mins) < 8 {
			m := lo + rng.Intn(hi-lo)
			if abs(m-90) <= 1 || abs(m-120) <= 1 {
				continue
			}
			mins = append(mins, m)
		}
		slices.Sort(mins)
		return mins
	}
	span := func(minutes int) string { // docs/WATCH.md's "45m", "1h", "1h5m"
		switch h, m := minutes/60, minutes%60; {
		case h > 0 && m > 0:
			return fmt.Sprintf("%dh%dm", h, m)
		case h > 0:
			return fmt.Sprintf("%dh", h)
		default:
			return fmt.Sprintf("%dm", m)
		}
	}
	check := func(m, before int, want []string) {
		t.Helper()
		at := watchAt(0, m)
		code, out, errs := e.run(t, at, "watch", "--dry-run")
		if code != cli.ExitOK {
			t.Fatalf("dry run at %s: exit %d\n%s%s", at.Format("15:04"), code, out, errs)
		}
		for _, title := range want {
			for _, ch := range []string{"json#0", "feishu#1"} {
				if line := fmt.Sprintf("dry run: would send to %s: %q", ch, title); !strings.Contains(out, line) {
					t.Errorf("dry run at %s does not say %q:\n%s", at.Format("15:04"), line, out)
				}
			}
		}
		if got, wantN := strings.Count(out, "dry run: would send to "), 2*len(want); got != wantN {
			t.Errorf("dry run at %s: %d messages listed, want %d:\n%s", at.Format("15:04"), got, wantN, out)
		}
		if n := reached(); n != before {
			t.Fatalf("dry run at %s: %d requests reached the receivers, want %d (none of its own)", at.Format("15:04"), n, before)
		}
		if l := readLog(t, log); l != "" {
			t.Fatalf("dry run at %s ran the command:\n%s", at.Format("15:04"), l)
		}
	}
	for _, m := range draw(30, 180) { // 00:30 – 02:59, no spell open
		var want []string
		if idle := m - 60; idle >= 30 {
			want = append(want, "GPU resource gpu-a idle for "+span(idle))
		}
		check(m, 0, want)
	}
	if code, out, errs := e.run(t, watchAt(1, 31), "watch", "--dry-run", "--send-alerts"); code != cli.ExitOK || reached() != 2 {
		t.Fatalf("--dry-run --send-alerts at 01:31: exit %d, %d requests, want 0 and the 2 alerts\n%s%s", code, reached(), out, errs)
	}
	for _, m := range draw(93, 180) { // 01:33 – 02:59, the spell open
		var want []string
		if m-60 >= 60 {
			want = append(want, "GPU resource gpu-a: would stop (dry run)")
		}
		check(m, 2, want)
	}
}

func abs(n int) int { return max(n, -n) }
