package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/finops-oss/finops/ingest/prom/promtest"
	"github.com/finops-oss/finops/store"
)

// stopScript writes an executable shell script (placeholders are refused
// in sh -c, so the tests' commands are files).
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
