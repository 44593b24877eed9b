package main

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/ingest/prom/promtest"
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
		if code != ExitOK {
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
	if code, out, errs := e.run(t, watchAt(1, 40), "watch", "--dry-run", "--send-alerts"); code != ExitPublish {
		t.Fatalf("--dry-run --send-alerts: exit %d, want %d\n%s%s", code, ExitPublish, out, errs)
	}
	if gh, gf := requests(); gh != 1 || gf != 1 || len(feishu.bodies()) != 1 ||
		!strings.Contains(string(feishu.bodies()[0]), "gpu-a idle for 40m") {
		t.Fatalf("--send-alerts: %d and %d requests (Feishu got %q), want the idle alert on each", gh, gf, feishu.bodies())
	}
	hook.setFailing(false)
	// A dry run lists the pending message and still sends nothing.
	dry(watchAt(1, 41), 1, 1, `dry run: would send to json#0 (left over from the pass at 2026-11-30T01:40:00Z): "GPU resource gpu-a idle for 40m"`,
		"dry run: 1 message(s) not sent")
	if code, out, errs := e.run(t, watchAt(1, 42), "watch", "--dry-run", "--send-alerts"); code != ExitOK {
		t.Fatalf("--dry-run --send-alerts at 01:42: exit %d\n%s%s", code, out, errs)
	}
	if bs := hook.bodies(); len(bs) != 1 || !strings.Contains(string(bs[0]), `"resource":"gpu-a"`) {
		t.Errorf("the pending message did not reach the hook: %q", bs)
	}

	if code, out, errs := e.run(t, watchAt(1, 43), "watch", "--send-alerts"); code != ExitUsage ||
		!strings.Contains(out+errs, "--send-alerts goes with --dry-run") {
		t.Errorf("--send-alerts alone: exit %d, want %d with a word on --dry-run\n%s%s", code, ExitUsage, out, errs)
	}
}
