package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
	"github.com/finops-oss/finops/internal/store"
)

// stopScript writes an executable shell script, which takes the
// allowlisted id as "$1".
func stopScript(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "stop.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// waitPid reads a pid a script wrote (renamed into place whole) within 30 s.
func waitPid(t *testing.T, p string, exited <-chan struct{}) int {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(p); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		select {
		case <-exited:
			t.Fatal("the pass ended before its command wrote its pid")
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s within 30 s", p)
		}
	}
}

// alive reports whether pid is a live process: a zombie (dead, not yet
// reaped by whoever adopted it) is not.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false // no such process
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// goneWithin waits until pid is no longer alive, at most d.
func goneWithin(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if !alive(pid) {
			return true
		}
	}
	return !alive(pid)
}

// actionsOf lists the ledger's actions of the watch day.
func actionsOf(t *testing.T, db string) []store.WatchAction {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	acts, err := st.Actions(context.Background(), watchDay.Add(-24*time.Hour), time.Now().Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return acts
}

// TestWatchCommandLeavesChild: the stop command starts a background child
// that keeps the output pipe open ("sleep 300 &") and exits 0. It used to
// be recorded as timeout after watch.command_timeout (the pass waited for
// the pipe's EOF), the pass exited 1, and the child was alive 74 s later.
// Now its outcome is its own exit (done, code 0), the pass ends well before
// the timeout with exit 0, and the child is gone within a few seconds.
func TestWatchCommandLeavesChild(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(watchUtil))
	dir := t.TempDir()
	childPid := filepath.Join(dir, "child.pid")
	script := stopScript(t, dir, "echo stopping \"$1\"\nsleep 300 &\necho $! > "+childPid+".tmp && mv "+childPid+".tmp "+childPid+"\nexit 0\n")
	e := newWatchEnv(t, srv.URL, fmt.Sprintf(`watch:
  act: true
  command_timeout: 20s
  allow:
    resources: [gpu-a]
  on_idle:
    after: 1h
    action: stop
    command: [%s, "{resource_id}"]
  channels:
    - {type: slack, url_env: SLACK_URL}
`, script))
	e.pass(t, watchAt(1, 31), 0)
	e.pass(t, watchAt(1, 45), 0)
	start := time.Now()
	_, out := e.pass(t, watchAt(2, 0), 0)
	took := time.Since(start)
	pid := waitPid(t, childPid, nil)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if !strings.Contains(out, "watch: stop gpu-a: done") {
		t.Errorf("the pass does not say the command was done:\n%s", out)
	}
	if took > 10*time.Second {
		t.Errorf("the pass took %s: it waited for the child", took)
	}
	if !goneWithin(pid, 5*time.Second) {
		t.Errorf("the command's background child %d is alive 5 s after the pass", pid)
	}
	acts := actionsOf(t, e.db)
	if len(acts) != 1 || acts[0].Outcome != store.ActionDone || acts[0].ExitCode == nil || *acts[0].ExitCode != 0 ||
		!strings.Contains(acts[0].Output, "stopping gpu-a") {
		t.Errorf("actions %+v: want one, done with exit code 0 and its output", acts)
	}
}

// TestWatchStoppedWhileActing sends SIGTERM to a real finops watch while
// its stop command sleeps. The command used to be left pending, and the
// next pass called it interrupted. Now the pass gives it a moment, ends
// its process group and records what happened (failed: killed) before
// finops exits, within main's signal grace; the command and its sleep are
// gone, and the next pass finds nothing interrupted. The pass is a
// separate process on the real clock, so the fleet is laid out around the
// real now, as in TestWatchKilledWhileActing.
func TestWatchStoppedWhileActing(t *testing.T) {
	e, started, log := realClockFleet(t, "sleep 30 &\necho $! > SLEEP.tmp && mv SLEEP.tmp SLEEP\nwait\n")
	sleepPid := filepath.Join(e.dir, "SLEEP")
	cmd := exec.Command(os.Args[0], "--config", e.cfg, "watch")
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(), "FINOPS_TEST_MAIN=1")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	pid := waitPid(t, started, exited)
	spid := waitPid(t, sleepPid, exited)
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("finops watch did not exit within 10 s of SIGTERM")
	}
	if !strings.Contains(out.String(), "watch: stop gpu-a: failed (killed: finops watch was told to stop while it ran") {
		t.Errorf("the pass does not say the command was killed:\n%s", out.String())
	}
	for _, p := range []int{pid, spid} {
		if !goneWithin(p, 3*time.Second) {
			t.Errorf("process %d of the command is alive after the pass", p)
		}
	}
	acts := actionsOf(t, e.db)
	if len(acts) != 1 || acts[0].Outcome != store.ActionFailed || !strings.HasPrefix(acts[0].Reason, "killed:") {
		t.Errorf("actions %+v: want one, failed (killed)", acts)
	}
	code, next, errs := e.run(t, time.Now().UTC(), "watch")
	if code != 0 || strings.Contains(next, "interrupted") {
		t.Errorf("the pass after: exit %d\n%s%s", code, next, errs)
	}
	if l := readLog(t, log); l != "gpu-a\n" {
		t.Errorf("the command ran %q, want once with gpu-a", l)
	}
}

// realClockFleet is TestWatchKilledWhileActing's fleet: gpu-a idle (2 %)
// for three hours around the real now, allowed, its spell opened and its
// grace alert given 16 and 15 minutes ago, so the next pass runs its stop
// command: a script that logs its argument, writes its pid to the file
// started, then runs body.
func realClockFleet(t *testing.T, body string) (e *watchEnv, started, log string) {
	t.Helper()
	real := time.Now().UTC().Truncate(time.Minute)
	var om promtest.OpenMetrics
	om.Family(dcgm.GPUUtil)
	for g := 0; g < 2; g++ {
		l := []string{"gpu", strconv.Itoa(g), "UUID", fmt.Sprintf("GPU-stop-%d", g), "modelName", "NVIDIA A100-SXM4-80GB",
			"Hostname", "gpu-a", "job", "dcgm"}
		for at := real.Add(-3 * time.Hour); at.Before(real.Add(10 * time.Minute)); at = at.Add(time.Minute) {
			om.Sample(l, at, "2")
		}
	}
	srv := promtest.Start(t, om.Bytes())
	dir := t.TempDir()
	sh, _ := time.LoadLocation("Asia/Shanghai")
	bill := filepath.Join(dir, "autodl.csv")
	csv := "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n" +
		fmt.Sprintf("gpu-a,训练机,A100-SXM4-80GB * 2,按量计费,%s,%s,¥38.40,¥38.40\n",
			real.Add(-8*time.Hour).In(sh).Format("2006-01-02 15:04:05"), real.In(sh).Format("2006-01-02 15:04:05"))
	if err := os.WriteFile(bill, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	log, started = filepath.Join(dir, "calls.log"), filepath.Join(dir, "started")
	script := stopScript(t, dir, "cd "+dir+" || exit 9\necho \"$@\" >> "+log+"\necho $$ > "+started+".tmp && mv "+started+".tmp "+started+"\n"+body)
	e = &watchEnv{dir: dir, db: filepath.Join(dir, "f.db"), cfg: filepath.Join(dir, "finops.yaml"), rec: &recorder{}}
	yaml := fmt.Sprintf(`database: %s
timezone: Asia/Shanghai
utilization:
  prometheus:
    - {url: %s, name: lab, timeout: 5s, retries: 0}
resources:
  - id: gpu-a
    team: nlp
teams:
  - name: nlp
watch:
  act: true
  allow:
    resources: [gpu-a]
  on_idle:
    after: 1h
    action: stop
    command: [%s, "{resource_id}"]
`, e.db, srv.URL, script)
	if err := os.WriteFile(e.cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := e.run(t, real, "ingest", bill); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, errs)
	}
	e.pass(t, real.Add(-16*time.Minute), 0)
	if _, out := e.pass(t, real.Add(-15*time.Minute), 0); !strings.Contains(out, "stop in 15m unless it gets busy") {
		t.Fatalf("no grace alert 15 minutes ago:\n%s", out)
	}
	return e, started, log
}
