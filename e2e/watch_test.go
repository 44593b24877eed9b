package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
	"github.com/finops-oss/finops/internal/publish/publishtest"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/watch/pass"
)

// The watch's test fleet, in UTC on 2026-11-30. Two hourly AutoDL machines,
// each with two A100s, billed ¥38.40 for 2026-11-29 16:00 – 11-30 00:00 UTC
// (the bill is in China time, 00:00–08:00): 8 h × 2 GPUs × ¥2.40, so each
// costs ¥4.80 an hour. Every minute at :00 each GPU reports to Prometheus:
//
//	gpu-a (team nlp, the forgotten one): 95 % until 01:00, then 2 %, and
//	nothing from 03:00 (released).
//	gpu-b (team cv): 95 % from 00:00 to 05:00.
var watchDay = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

func watchAt(h, m int) time.Time {
	return watchDay.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
}

// watchUtil is GPU host/g's utilization at minute m after 00:00; ok false when silent.
func watchUtil(host string, m int) (float64, bool) {
	switch {
	case host == "gpu-a" && m >= 180:
		return 0, false
	case host == "gpu-a" && m >= 60:
		return 2, true
	}
	return 95, true
}

// watchOpenMetrics is the fleet's history from 00:00 for 5 hours, at
// util(host, minute) (watchUtil, or a variant of a test).
func watchOpenMetrics(util func(string, int) (float64, bool)) []byte {
	var om promtest.OpenMetrics
	om.Family(dcgm.GPUUtil)
	for _, host := range []string{"gpu-a", "gpu-b"} {
		for g := 0; g < 2; g++ {
			l := []string{"gpu", strconv.Itoa(g), "UUID", fmt.Sprintf("GPU-%s-%d", host, g), "modelName", "NVIDIA A100-SXM4-80GB",
				"Hostname", host, "job", "dcgm"}
			for m := 0; m < 300; m++ {
				if u, ok := util(host, m); ok {
					om.Sample(l, watchAt(0, m), strconv.FormatFloat(u, 'f', -1, 64))
				}
			}
		}
	}
	return om.Bytes()
}

func writeWatchBill(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "autodl.csv")
	body := "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n" +
		"gpu-a,训练机,A100-SXM4-80GB * 2,按量计费,2026-11-30 00:00:00,2026-11-30 08:00:00,¥38.40,¥38.40\n" +
		"gpu-b,推理机,A100-SXM4-80GB * 2,按量计费,2026-11-30 00:00:00,2026-11-30 08:00:00,¥38.40,¥38.40\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// recorder is a watch channel that keeps what it is sent.
type recorder struct {
	mu   sync.Mutex
	sent []pass.Alert
	fail error
}

func (r *recorder) Send(_ context.Context, a pass.Alert) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.sent = append(r.sent, a)
	return nil
}

func (r *recorder) take() []pass.Alert {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

// watchEnv is a fleet on disk: its config, database and channel.
type watchEnv struct {
	dir, cfg, db string
	rec          *recorder
	env          map[string]string
}

// newWatchEnv writes the bill and a config whose watch section is extra,
// ingests the bill, and points the config at the Prometheus at url.
func newWatchEnv(t *testing.T, url, extra string) *watchEnv {
	t.Helper()
	dir := t.TempDir()
	bill := writeWatchBill(t, dir)
	return watchEnvWith(t, dir, bill, fmt.Sprintf(`database: %s
timezone: Asia/Shanghai
billing:
  - path: %s
    mapping: autodl
utilization:
  prometheus:
    - url: %s
      name: lab
      timeout: 5s
      retries: 0
resources:
  - id: gpu-a
    team: nlp
  - id: gpu-b
    team: cv
teams:
  - name: nlp
    leads: [lead@example.com]
  - name: cv
    leads: [cv@example.com]
%s`, filepath.Join(dir, "f.db"), bill, url, extra))
}

// watchEnvWith is the watch env in dir whose config (database dir/f.db) is
// yaml, with the bill at bill ingested.
func watchEnvWith(t *testing.T, dir, bill, yaml string) *watchEnv {
	t.Helper()
	e := &watchEnv{dir: dir, db: filepath.Join(dir, "f.db"), cfg: filepath.Join(dir, "finops.yaml"), rec: &recorder{},
		env: map[string]string{"SLACK_URL": "https://hooks.slack.invalid/services/T0/B0/secret"}}
	if err := os.WriteFile(e.cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := e.run(t, now, "ingest", bill); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, errs)
	}
	return e
}

// run runs finops with the env's config at the clock at.
func (e *watchEnv) run(t *testing.T, at time.Time, args ...string) (int, string, string) {
	t.Helper()
	return e.runContext(context.Background(), at, args...)
}

func (e *watchEnv) runContext(ctx context.Context, at time.Time, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	m := cli.NewMain(nil, &out, &errb)
	m.Now = func() time.Time { return at }
	m.Getenv = func(k string) string { return e.env[k] }
	m.WatchChannels = func(ch config.Channel) pass.Sender {
		if ch.Type != "slack" {
			return nil // the real one: mailpit, or a local receiver
		}
		return e.rec
	}
	code := m.Run(ctx, append([]string{"--config", e.cfg}, args...))
	return code, out.String(), errb.String()
}

// pass runs one watch pass at at and returns the messages it sent.
func (e *watchEnv) pass(t *testing.T, at time.Time, wantCode int, args ...string) ([]pass.Alert, string) {
	t.Helper()
	code, out, errs := e.run(t, at, append([]string{"watch"}, args...)...)
	if code != wantCode {
		t.Fatalf("watch at %s: exit %d, want %d\n%s%s", at.Format("15:04"), code, wantCode, out, errs)
	}
	return e.rec.take(), out
}

func burntOf(t *testing.T, a pass.Alert) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(a.Burnt, 64)
	if err != nil {
		t.Fatalf("%s: burnt %q: %v", a.Title, a.Burnt, err)
	}
	return v
}

// TestWatchForgottenInstance: against a real Prometheus, the forgotten
// machine is alerted in the first pass after 30 idle minutes, once;
// reminded after remind_every; closed as released when it goes silent. The
// busy machine is never mentioned. Money at ¥4.80 an hour (¥0.08 a minute).
func TestWatchForgottenInstance(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(watchUtil))
	e := newWatchEnv(t, srv.URL, `watch:
  remind_every: 1h
  channels:
    - type: slack
      url_env: SLACK_URL
`)
	// 01:29: idle since 01:00 for 29 minutes: under idle_min_span, not idle yet.
	if got, _ := e.pass(t, watchAt(1, 29), 0); len(got) != 0 {
		t.Fatalf("01:29: %d messages, want none: %+v", len(got), got)
	}
	// 01:31: 31 idle minutes (01:00–01:31): the alert, ¥0.08 × 31 = ¥2.48.
	got, _ := e.pass(t, watchAt(1, 31), 0)
	if len(got) != 1 || got[0].Event != "idle" || got[0].Resource != "gpu-a" || got[0].Team != "nlp" {
		t.Fatalf("01:31: want one idle alert for gpu-a, got %+v", got)
	}
	if b := burntOf(t, got[0]); math.Abs(b-2.48) > 0.005 || got[0].Currency != "CNY" || !got[0].Since.Equal(watchAt(1, 0)) {
		t.Errorf("01:31: burnt %s %s since %s, want 2.48 CNY since 01:00", got[0].Burnt, got[0].Currency, got[0].Since)
	}
	// 01:36 and 02:30: still idle, no second alert; the reminder is due at 02:31.
	for _, at := range []time.Time{watchAt(1, 36), watchAt(2, 30)} {
		if got, _ := e.pass(t, at, 0); len(got) != 0 {
			t.Fatalf("%s: %d messages, want none: %+v", at.Format("15:04"), len(got), got)
		}
	}
	// 02:31: the reminder, 91 idle minutes: ¥7.28.
	got, _ = e.pass(t, watchAt(2, 31), 0)
	if len(got) != 1 || got[0].Event != "reminder" || math.Abs(burntOf(t, got[0])-7.28) > 0.005 {
		t.Fatalf("02:31: want one reminder of ¥7.28, got %+v", got)
	}
	// 03:30: gpu-a has been silent since its 02:59 sample, while gpu-b still
	// reports: released. Its 02:59 sample covers 02:59 and the minute after
	// (metrics.md §Utilization and idle); the minutes Prometheus' lookback
	// would repeat after it are not samples (§Stale series). The spell
	// burnt from 01:00 to 03:01: 121 minutes, ¥9.68.
	got, _ = e.pass(t, watchAt(3, 30), 0)
	if len(got) != 1 || got[0].Event != "released" {
		t.Fatalf("03:30: want one released message, got %+v", got)
	}
	if b := burntOf(t, got[0]); math.Abs(b-9.68) > 0.005 {
		t.Errorf("03:30: released after burning %s, want ¥9.68", got[0].Burnt)
	}
	// 03:40: nothing more.
	if got, _ := e.pass(t, watchAt(3, 40), 0); len(got) != 0 {
		t.Fatalf("03:40: %d messages, want none: %+v", len(got), got)
	}
	code, out, errs := e.run(t, watchAt(3, 41), "watch", "--history")
	if code != 0 {
		t.Fatalf("history: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"open idle", "remind reminder", "close released", "gpu-a", "nlp"} {
		if !strings.Contains(out, want) {
			t.Errorf("history lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "gpu-b") {
		t.Errorf("history names the busy gpu-b:\n%s", out)
	}
	st, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if open, err := st.OpenSpells(context.Background()); err != nil || len(open) != 0 {
		t.Errorf("open spells after release: %+v, %v", open, err)
	}
}

// recordingScript writes a command that appends its arguments and some of
// its environment to log, prints a line and then runs tail (shell text:
// "exit 7", "sleep 60").
func recordingScript(t *testing.T, dir, log, tail string) string {
	t.Helper()
	p := filepath.Join(dir, "recycle.sh")
	body := "#!/bin/sh\n" +
		"{ printf 'argv'; for a in \"$@\"; do printf ' [%s]' \"$a\"; done; printf '\\n'\n" +
		"  echo \"FINOPS_RESOURCE_ID=$FINOPS_RESOURCE_ID FINOPS_TEAM=$FINOPS_TEAM FINOPS_ACTION=$FINOPS_ACTION\"\n" +
		"  echo \"SLACK_URL=${SLACK_URL-unset}\"; } >> " + log + "\n" +
		"echo \"stopping $2\"\n" + tail + "\n"
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// actConfig is the watch section that stops gpu-a after an hour idle.
func actConfig(script, timeout string) string {
	return fmt.Sprintf(`watch:
  act: true
  grace: 15m
  command_timeout: %s
  allow:
    resources: [gpu-a]
  on_idle:
    after: 1h
    action: stop
    command: [%s, stop, "{resource_id}"]
  channels:
    - type: slack
      url_env: SLACK_URL
`, timeout, script)
}

func readLog(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// TestWatchActs: with act: true and gpu-a allowed, idle since 01:00 and
// on_idle after 1h with a 15-minute grace: the grace alert at 01:45 (45
// minutes idle), the command at 02:00, once, with the allowlisted id as its
// own argument, the fields in its environment (FINOPS_TEAM, not --team=
// spliced into an argument) and none of the config's secrets there.
// A command that fails or hangs is recorded with its exit code or timeout.
// A resource that gets busy during the grace period is never acted on.
func TestWatchActs(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(watchUtil))
	t.Setenv("SLACK_URL", "https://hooks.slack.invalid/services/T0/B0/secret") // must not reach the command
	for _, tc := range []struct {
		name, tail, timeout string
		wantOutcome         string
		wantExit            string // in --history
		wantCode            int    // of the 02:00 pass
	}{
		{"done", "exit 0", "1m", store.ActionDone, "exit 0", 0},
		{"fails", "echo 'instance not found' >&2; exit 7", "1m", store.ActionFailed, "exit 7", cli.ExitFailed},
		{"hangs", "sleep 60", "1s", store.ActionTimeout, "timeout", cli.ExitFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "calls.log")
			e := newWatchEnv(t, srv.URL, actConfig(recordingScript(t, dir, log, tc.tail), tc.timeout))
			if got, _ := e.pass(t, watchAt(1, 31), 0); len(got) != 1 || got[0].Event != "idle" {
				t.Fatalf("01:31: want the idle alert, got %+v", got)
			}
			got, _ := e.pass(t, watchAt(1, 45), 0)
			if len(got) != 1 || got[0].Event != "grace" || !strings.Contains(got[0].Title, "stop in 15m unless it gets busy") {
				t.Fatalf("01:45: want the grace alert, got %+v", got)
			}
			if got, _ := e.pass(t, watchAt(1, 55), 0); len(got) != 0 || readLog(t, log) != "" {
				t.Fatalf("01:55: acted or alerted before the hour: %+v, log %q", got, readLog(t, log))
			}
			start := time.Now()
			got, out := e.pass(t, watchAt(2, 0), tc.wantCode)
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("the pass took %s: the timeout did not end the command", d)
			}
			if len(got) != 1 || got[0].Event != "action" {
				t.Fatalf("02:00: want the action message, got %+v\n%s", got, out)
			}
			want := "argv [stop] [gpu-a]\nFINOPS_RESOURCE_ID=gpu-a FINOPS_TEAM=nlp FINOPS_ACTION=stop\nSLACK_URL=unset\n"
			if l := readLog(t, log); l != want {
				t.Errorf("the command's log:\n%s\nwant:\n%s", l, want)
			}
			for _, at := range []time.Time{watchAt(2, 5), watchAt(2, 30)} {
				if got, _ := e.pass(t, at, 0); len(got) != 0 {
					t.Errorf("%s: %+v", at.Format("15:04"), got)
				}
			}
			if l := readLog(t, log); strings.Count(l, "argv") != 1 {
				t.Errorf("the command ran %d times, want once:\n%s", strings.Count(l, "argv"), l)
			}
			code, hist, _ := e.run(t, watchAt(2, 31), "watch", "--history", "-v")
			if code != 0 || !strings.Contains(hist, `stop ["`) || !strings.Contains(hist, ": "+tc.wantOutcome) ||
				!strings.Contains(hist, tc.wantExit) {
				t.Errorf("history (exit %d) lacks the %s action with %q:\n%s", code, tc.wantOutcome, tc.wantExit, hist)
			}
			if tc.name == "fails" && !strings.Contains(hist, "| instance not found") {
				t.Errorf("history -v lacks the command's output:\n%s", hist)
			}
		})
	}
}

// TestWatchBusyDuringGrace: gpu-a gets busy at 01:50, inside its grace
// period (01:45–02:00): the 02:00 pass closes the spell as busy and runs
// nothing.
func TestWatchBusyDuringGrace(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(func(host string, m int) (float64, bool) {
		if host == "gpu-a" && m >= 110 {
			return 95, true
		}
		return watchUtil(host, m)
	}))
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	e := newWatchEnv(t, srv.URL, actConfig(recordingScript(t, dir, log, "exit 0"), "1m"))
	e.pass(t, watchAt(1, 31), 0)
	if got, _ := e.pass(t, watchAt(1, 45), 0); len(got) != 1 || got[0].Event != "grace" {
		t.Fatalf("01:45: want the grace alert, got %+v", got)
	}
	got, _ := e.pass(t, watchAt(2, 0), 0)
	if len(got) != 1 || got[0].Event != "busy" {
		t.Fatalf("02:00: want the back-to-work message, got %+v", got)
	}
	if l := readLog(t, log); l != "" {
		t.Errorf("the command ran on a busy resource:\n%s", l)
	}
}

// TestWatchEmailQuietHours: the idle alert goes by email to the team's lead
// through a real SMTP server (mailpit), but team nlp's quiet hours
// (09:00–10:00 in Shanghai, 01:00–02:00 UTC) hold it: the 01:31 pass
// records it and sends nothing; the 02:01 pass sends it, with the money of
// 01:31 (31 minutes at ¥0.08: ¥2.48).
func TestWatchEmailQuietHours(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(watchUtil))
	mp := publishtest.StartMailpit(t)
	e := newWatchEnv(t, srv.URL, fmt.Sprintf(`publish:
  smtp:
    host: 127.0.0.1
    port: %d
    tls: none
    from: finops@example.com
    timeout: 10s
watch:
  channels:
    - type: email
`, mp.SMTPPort))
	b, err := os.ReadFile(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), "    leads: [lead@example.com]\n", "    leads: [lead@example.com]\n    quiet_hours: \"09:00-10:00\"\n", 1))
	if err := os.WriteFile(e.cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, out := e.pass(t, watchAt(1, 31), 0); !strings.Contains(out, "1 message(s) held for quiet hours") {
		t.Errorf("01:31: the alert was not held:\n%s", out)
	}
	if msgs := mp.Messages(t); len(msgs) != 0 {
		t.Fatalf("01:31: %d emails sent in quiet hours", len(msgs))
	}
	e.pass(t, watchAt(2, 1), 0)
	msgs := mp.Messages(t)
	if len(msgs) != 1 || len(msgs[0].To) != 1 || msgs[0].To[0].Address != "lead@example.com" ||
		!strings.Contains(msgs[0].Subject, "gpu-a idle for 31m") {
		t.Fatalf("02:01: emails %+v", msgs)
	}
	if m := mp.Message(t, msgs[0].ID); !strings.Contains(m.Text, "¥2.48 burnt so far") {
		t.Errorf("the email's text:\n%s", m.Text)
	}
	e.pass(t, watchAt(2, 6), 0)
	if n := len(mp.Messages(t)); n != 1 {
		t.Errorf("%d emails after another pass, want still 1", n)
	}
}

// TestWatchClockAhead: gpu-a's only source is an nvidia-smi log (read by
// the pass, no Prometheus) whose host clock runs ahead: besides its samples
// of 00:00–01:35 at 2 %, it holds three stamped 02:00–02:02, after the
// pass's now (01:35). They are ignored with a warning naming the GPU; the
// alert still goes out, idle since 00:00 for 95 minutes (¥7.60 at ¥0.08).
func TestWatchClockAhead(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "gpu-a.csv")
	var b strings.Builder
	b.WriteString("timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n")
	for _, m := range append(seq(0, 95), 120, 121, 122) {
		for g := range 2 {
			fmt.Fprintf(&b, "%s, NVIDIA A100-SXM4-80GB, 00000000:%02X:00.0, %d, GPU-a000000%d-0000-0000-0000-000000000000, 2 %%, 0 %%, 81920 MiB, 10 MiB, 60.00 W\n",
				watchAt(0, m).Format("2006/01/02 15:04:05.000"), g+1, g, g)
		}
	}
	if err := os.WriteFile(logPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newWatchEnv(t, "http://127.0.0.1:1", "")
	cfg, err := os.ReadFile(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	// No Prometheus: the log, in UTC, is gpu-a's only telemetry.
	text := strings.Replace(string(cfg), `  prometheus:
    - url: http://127.0.0.1:1
      name: lab
      timeout: 5s
      retries: 0
`, "  nvidia_smi:\n    - path: "+logPath+"\n      host: gpu-a\n      timezone: UTC\n", 1)
	text += "watch:\n  channels:\n    - type: slack\n      url_env: SLACK_URL\n"
	if err := os.WriteFile(e.cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, out := e.pass(t, watchAt(1, 35), 0)
	if !strings.Contains(out, "has samples up to 2026-11-30T02:02:00Z, after now (2026-11-30T01:35:00Z): its clock runs ahead") {
		t.Errorf("no warning about the clock ahead:\n%s", out)
	}
	if len(got) != 1 || got[0].Event != "idle" || !got[0].Since.Equal(watchAt(0, 0)) || math.Abs(burntOf(t, got[0])-7.60) > 0.005 {
		t.Fatalf("want one idle alert since 00:00 of ¥7.60, got %+v\n%s", got, out)
	}
}

func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// TestWatchWebhookJSON: a json channel through publish's sender to a local
// receiver, its URL read from the variable url_env names. The first post
// is refused with 400 (not retried; the message stays pending, exit 4), the
// next pass delivers it.
func TestWatchWebhookJSON(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(watchUtil))
	var mu sync.Mutex
	var bodies []map[string]any
	refuse := true
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if refuse {
			refuse = false
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Errorf("not JSON: %s", b)
		}
		bodies = append(bodies, v)
	}))
	defer hook.Close()
	e := newWatchEnv(t, srv.URL, "watch:\n  channels:\n    - type: json\n      url_env: HOOK_URL\n")
	e.env["HOOK_URL"] = hook.URL + "/alerts?token=s3cret"
	_, out := e.pass(t, watchAt(1, 31), cli.ExitPublish)
	if strings.Contains(out, "s3cret") {
		t.Errorf("the token is in the output:\n%s", out)
	}
	e.pass(t, watchAt(1, 36), 0)
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 || bodies[0]["event"] != "idle" || bodies[0]["resource"] != "gpu-a" || bodies[0]["burnt"] != "2.48" {
		t.Fatalf("received %+v", bodies)
	}
}

// TestWatchEvery: --every runs a pass at once, then waits; stopped between
// passes (the container's SIGTERM cancels the context) it ends cleanly.
func TestWatchEvery(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(watchUtil))
	e := newWatchEnv(t, srv.URL, "watch:\n  channels:\n    - type: slack\n      url_env: SLACK_URL\n")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	code, out, errs := e.runContext(ctx, watchAt(1, 31), "watch", "--every", "1m")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if got := e.rec.take(); len(got) != 1 || got[0].Event != "idle" {
		t.Errorf("the first pass sent %+v, want the idle alert", got)
	}
	if code, _, errs := e.run(t, now, "watch", "--every", "10s"); code != cli.ExitUsage || !strings.Contains(errs, "at least 1m") {
		t.Errorf("--every 10s: exit %d %s", code, errs)
	}
}

// TestWatchThenIngestCountsOnce: the minutes the watch's passes stored are
// fetched again by the day's ingest; the store counts each sample once, so
// the report reads the same telemetry as a database that only had the
// ingest: per host, the same minutes and the same sum of utilization.
func TestWatchThenIngestCountsOnce(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(watchUtil))
	watched := newWatchEnv(t, srv.URL, "")
	for _, at := range []time.Time{watchAt(1, 0), watchAt(1, 31), watchAt(2, 31)} {
		watched.pass(t, at, 0)
	}
	plain := newWatchEnv(t, srv.URL, "")
	for _, e := range []*watchEnv{watched, plain} {
		if code, out, errs := e.run(t, now, "ingest", "prometheus", "--from", "2026-11-30", "--to", "2026-11-30"); code != 0 {
			t.Fatalf("ingest prometheus: exit %d\n%s%s", code, out, errs)
		}
	}
	for _, host := range []string{"gpu-a", "gpu-b"} {
		m1, s1 := telemetryOf(t, watched.db, host, watchDay, now)
		m2, s2 := telemetryOf(t, plain.db, host, watchDay, now)
		// By hand: gpu-a reports 00:00–02:59 (180 minutes × 2 GPUs), gpu-b
		// until now, 03:00 (the day is cut at now): 180 × 2 as well.
		if m1 != m2 || s1 != s2 || m1 != 360 {
			t.Errorf("%s: watched %d minutes (sum %d), ingest only %d (sum %d); want 360 both", host, m1, s1, m2, s2)
		}
	}
}
