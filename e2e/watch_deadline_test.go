package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/watch/pass"
)

// fleetSize is the number of idle resources of the deadline tests: the
// 22 of issue #26, each one alert per channel in the first pass.
const fleetSize = 22

// receiver is a real HTTP receiver on 127.0.0.1 that records the resource
// of each JSON alert it is sent. hang: it reads the request and then
// never answers (until the client gives up or release is closed); delay:
// it answers 200 after that long.
type receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	got     []string // resources, in the order received
	hang    atomic.Bool
	delay   time.Duration
	release chan struct{}
	first   chan struct{} // closed at the first request
	once    sync.Once
	open    atomic.Int32 // requests not yet answered
}

func newReceiver(t *testing.T, hang bool, delay time.Duration) *receiver {
	r := &receiver{delay: delay, release: make(chan struct{}), first: make(chan struct{})}
	r.hang.Store(hang)
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.open.Add(1)
		defer r.open.Add(-1)
		b, _ := io.ReadAll(req.Body)
		var a struct{ Resource string }
		json.Unmarshal(b, &a)
		r.mu.Lock()
		r.got = append(r.got, a.Resource)
		r.mu.Unlock()
		r.once.Do(func() { close(r.first) })
		if r.hang.Load() {
			select {
			case <-req.Context().Done(): // the client gave up: nothing to answer
				return
			case <-r.release:
			}
		}
		time.Sleep(r.delay)
	}))
	t.Cleanup(func() {
		select {
		case <-r.release:
		default:
			close(r.release)
		}
		r.srv.Close()
	})
	return r
}

func (r *receiver) received() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

// newFleetEnv is a fleet of fleetSize single-GPU machines gpu-00 … gpu-21,
// billed ¥2.40 an hour each and idle (2 %) from 01:00 in a real
// Prometheus, with the watch section extra (the channels) and a report
// out directory.
func newFleetEnv(t *testing.T, extra string) *watchEnv {
	t.Helper()
	var om promtest.OpenMetrics
	om.Family(dcgm.GPUUtil)
	dir := t.TempDir()
	body := "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n"
	for i := range fleetSize {
		host := fmt.Sprintf("gpu-%02d", i)
		l := []string{"gpu", "0", "UUID", "GPU-" + host, "modelName", "NVIDIA A100-SXM4-80GB", "Hostname", host, "job", "dcgm"}
		for m := 0; m < 300; m++ {
			u := "95"
			if m >= 60 {
				u = "2"
			}
			om.Sample(l, watchAt(0, m), u)
		}
		body += host + ",训练机,A100-SXM4-80GB * 1,按量计费,2026-11-30 00:00:00,2026-11-30 08:00:00,¥19.20,¥19.20\n"
	}
	srv := promtest.Start(t, om.Bytes())
	bill := filepath.Join(dir, "autodl.csv")
	if err := os.WriteFile(bill, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &watchEnv{dir: dir, db: filepath.Join(dir, "f.db"), cfg: filepath.Join(dir, "finops.yaml"), rec: &recorder{},
		env: map[string]string{}}
	yaml := fmt.Sprintf(`database: %s
timezone: Asia/Shanghai
out: %s
formats: [json]
billing:
  - path: %s
    mapping: autodl
utilization:
  prometheus:
    - {url: %s, name: lab, timeout: 5s, retries: 0}
%s`, e.db, filepath.Join(dir, "out"), bill, srv.URL, extra)
	if err := os.WriteFile(e.cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := e.run(t, now, "ingest", bill); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, errs)
	}
	return e
}

// pendingByChannel counts the ledger's unsent messages per channel, and
// the delivery attempts made on each.
func pendingByChannel(t *testing.T, db string) (pending, attempts map[string]int) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.DB().Query(`SELECT channel, sum(sent_at IS NULL), sum(attempts) FROM watch_messages GROUP BY channel`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	pending, attempts = map[string]int{}, map[string]int{}
	for rows.Next() {
		var ch string
		var p, a int
		if err := rows.Scan(&ch, &p, &a); err != nil {
			t.Fatal(err)
		}
		pending[ch], attempts[ch] = p, a
	}
	return pending, attempts
}

func twoChannels(passTimeout string) string {
	return "watch:\n  pass_timeout: " + passTimeout + "\n  channels:\n" +
		"    - {type: json, url_env: HANG_URL}\n    - {type: json, url_env: GOOD_URL}\n"
}

// TestWatchHungWebhook: of two channels, the first accepts the request and
// never answers. With 22 idle resources (44 messages) and pass_timeout 6s
// (a send gets half: 3 s), the pass ends in about 3 s, not 22 × 30 s: the
// hung channel is tried once, its other 21 messages are not tried, all 22
// stay pending (exit 4), and the other channel gets all 22. The next pass,
// with the receiver answering again, delivers the 22.
func TestWatchHungWebhook(t *testing.T) {
	hang, good := newReceiver(t, true, 0), newReceiver(t, false, 0)
	e := newFleetEnv(t, twoChannels("6s"))
	e.env["HANG_URL"], e.env["GOOD_URL"] = hang.srv.URL+"/hook", good.srv.URL+"/hook"
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second) // the old code: 30 s a message
	defer cancel()
	start := time.Now()
	code, out, errs := e.runContext(ctx, watchAt(1, 31), "watch")
	took := time.Since(start)
	if code != cli.ExitPublish {
		t.Errorf("exit %d, want %d (undelivered)\n%s%s", code, cli.ExitPublish, out, errs)
	}
	if took < 2500*time.Millisecond || took > 15*time.Second {
		t.Errorf("the pass took %s; want about 3 s (one send of half of pass_timeout 6s), well under 15 s", took)
	}
	if got := hang.received(); len(got) != 1 {
		t.Errorf("the hung channel was tried %d times (%q), want once", len(got), got)
	}
	if got := good.received(); len(got) != fleetSize {
		t.Errorf("the other channel got %d messages, want %d", len(got), fleetSize)
	}
	if !strings.Contains(out+errs, fmt.Sprintf("channel json#0 ran out of time: its %d other message(s) were not tried this pass and stay pending", fleetSize-1)) {
		t.Errorf("the pass does not say the hung channel was skipped:\n%s%s", out, errs)
	}
	pending, attempts := pendingByChannel(t, e.db)
	if pending["json#0"] != fleetSize || attempts["json#0"] != 1 || pending["json#1"] != 0 || attempts["json#1"] != fleetSize {
		t.Errorf("pending %v, attempts %v: want json#0 all %d pending after 1 attempt, json#1 all sent", pending, attempts, fleetSize)
	}
	hang.hang.Store(false)
	if code, out, errs := e.run(t, watchAt(1, 36), "watch"); code != 0 {
		t.Errorf("the next pass: exit %d\n%s%s", code, out, errs)
	}
	if pending, _ := pendingByChannel(t, e.db); pending["json#0"] != 0 {
		t.Errorf("after the next pass: pending %v", pending)
	}
	if got := hang.received(); len(got) != 1+fleetSize {
		t.Errorf("the channel got %d requests in all, want %d", len(got), 1+fleetSize)
	}
}

// TestWatchPassDeadline: one channel that answers each message after
// 400 ms. With pass_timeout 2s the sending stops at 2 s: a few messages
// are delivered, the one in flight and the rest stay pending (exit 4),
// and the pass says the deadline ran out.
func TestWatchPassDeadline(t *testing.T) {
	slow := newReceiver(t, false, 400*time.Millisecond)
	e := newFleetEnv(t, "watch:\n  pass_timeout: 2s\n  channels:\n    - {type: json, url_env: HOOK_URL}\n")
	e.env["HOOK_URL"] = slow.srv.URL + "/hook"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	code, out, errs := e.runContext(ctx, watchAt(1, 31), "watch")
	took := time.Since(start)
	if code != cli.ExitPublish {
		t.Errorf("exit %d, want %d\n%s%s", code, cli.ExitPublish, out, errs)
	}
	if took > 10*time.Second {
		t.Errorf("the pass took %s; its sending is bounded by pass_timeout 2s", took)
	}
	pending, _ := pendingByChannel(t, e.db)
	sent := fleetSize - pending["json#0"]
	if sent < 1 || sent > 6 {
		t.Errorf("%d of %d delivered in 2 s at 400 ms each, want 1–6", sent, fleetSize)
	}
	if n := len(slow.received()); n > sent+1 {
		t.Errorf("%d requests for %d delivered: messages were tried after the deadline", n, sent)
	}
	if !strings.Contains(out+errs, "took watch.pass_timeout (2s); they stay pending for the next pass") {
		t.Errorf("the pass does not name the deadline:\n%s%s", out, errs)
	}
}

// TestWatchRunDuringSending: a weekly run started while a watch pass waits
// on a hung webhook does not wait for it. The real `finops run` (report
// written, not exit 5) completes while the hung request is still open;
// a second watch pass meanwhile is refused (exit 5: passes have their own
// lock, so none sends the same messages twice); then a run's lock taken as
// the run takes it comes within 2 s and is held until the pass ends: the
// pass still records what it delivered.
// Before, the pass held the run lock while sending, and the run waited
// for it.
func TestWatchRunDuringSending(t *testing.T) {
	hang, good := newReceiver(t, true, 0), newReceiver(t, false, 0)
	e := newFleetEnv(t, twoChannels("40s"))
	e.env["HANG_URL"], e.env["GOOD_URL"] = hang.srv.URL+"/hook", good.srv.URL+"/hook"
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := e.runContext(context.Background(), watchAt(1, 31), "watch")
		done <- result{code, out, errs}
	}()
	select {
	case <-hang.first:
	case r := <-done:
		t.Fatalf("the pass ended before sending to the hung channel: exit %d\n%s%s", r.code, r.out, r.err)
	case <-time.After(60 * time.Second):
		t.Fatal("no request reached the hung channel within 60 s")
	}
	// A weekly run as scheduled: it waits up to 15 s for a watch pass.
	var out, errb bytes.Buffer
	m := cli.NewMain(nil, &out, &errb)
	m.Now = func() time.Time { return now }
	m.Getenv = func(k string) string { return e.env[k] }
	m.WatchLockWait = 15 * time.Second
	m.WatchChannels = func(config.Channel) pass.Sender { return nil }
	start := time.Now()
	code := m.Run(context.Background(), []string{"--config", e.cfg, "run", "--week", "2026-W49", "--no-upload", "--no-email"})
	took := time.Since(start)
	if code == cli.ExitBusy || code == cli.ExitFailed {
		t.Fatalf("the weekly run during the pass's sending: exit %d after %s\n%s%s", code, took, out.String(), errb.String())
	}
	t.Logf("the weekly run: exit %d in %s", code, took)
	if _, err := os.Stat(filepath.Join(e.dir, "out", "finops-2026-W49.json")); err != nil {
		t.Errorf("no report: %v", err)
	}
	if hang.open.Load() != 1 {
		t.Errorf("the hung request ended (the run took %s): the run did not finish while the pass was sending", took)
	}
	// Another pass meanwhile (cron, while this one still sends): refused at
	// once by the passes' own lock, so the pending messages are not sent twice.
	if code, out, errs := e.run(t, watchAt(1, 36), "watch"); code != cli.ExitBusy || !strings.Contains(out+errs, "another watch pass is still running") {
		t.Errorf("a second pass during the sending: exit %d, want %d\n%s%s", code, cli.ExitBusy, out, errs)
	}
	// The lock as the run takes it, again while the pass sends: promptly.
	lm := &cli.Main{Now: time.Now, WatchLockWait: 15 * time.Second}
	start = time.Now()
	lock, err := lm.AcquireRunLock(context.Background(), e.db, "run 2026-W49")
	if err != nil {
		t.Fatalf("the run lock during the pass's sending: %v", err)
	}
	defer lock.Release()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the run lock came after %s, want within 2 s", d)
	}
	close(hang.release) // the hung channel answers: the pass finishes while "the run" holds the lock
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the pass did not end within 60 s of the channel answering")
	}
	if r.code != 0 {
		t.Errorf("the pass: exit %d\n%s%s", r.code, r.out, r.err)
	}
	lock.Release()
	if pending, _ := pendingByChannel(t, e.db); pending["json#0"] != 0 || pending["json#1"] != 0 {
		t.Errorf("pending after the pass %v: what it delivered while the run held the lock was not recorded", pending)
	}
}
