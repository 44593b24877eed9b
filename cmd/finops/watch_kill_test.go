package main

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

	"github.com/finops-oss/finops/ingest/dcgm"
	"github.com/finops-oss/finops/ingest/prom/promtest"
	"github.com/finops-oss/finops/store"
)

// TestWatchKilledWhileActing kills a pass with SIGKILL while its command
// runs. The next pass finds the action recorded as pending, marks it
// interrupted and neither runs it again nor alerts again. The killed pass
// is a separate process on the real clock, so the fleet is laid out around
// the real now: gpu-a idle (2 %) from three hours ago; the spell was opened
// and its grace alert given by passes 16 and 15 minutes ago.
func TestWatchKilledWhileActing(t *testing.T) {
	real := time.Now().UTC().Truncate(time.Minute)
	var om promtest.OpenMetrics
	om.Family(dcgm.GPUUtil)
	for g := 0; g < 2; g++ {
		l := []string{"gpu", strconv.Itoa(g), "UUID", fmt.Sprintf("GPU-kill-%d", g), "modelName", "NVIDIA A100-SXM4-80GB",
			"Hostname", "gpu-a", "job", "dcgm"}
		for at := real.Add(-3 * time.Hour); at.Before(real.Add(10 * time.Minute)); at = at.Add(time.Minute) {
			om.Sample(l, at, "2")
		}
	}
	srv := promtest.Start(t, om.Bytes())
	dir := t.TempDir()
	sh, _ := time.LoadLocation("Asia/Shanghai")
	bill := filepath.Join(dir, "autodl.csv")
	body := "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n" +
		fmt.Sprintf("gpu-a,训练机,A100-SXM4-80GB * 2,按量计费,%s,%s,¥38.40,¥38.40\n",
			real.Add(-8*time.Hour).In(sh).Format("2006-01-02 15:04:05"), real.In(sh).Format("2006-01-02 15:04:05"))
	if err := os.WriteFile(bill, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	log, started := filepath.Join(dir, "calls.log"), filepath.Join(dir, "started")
	script := filepath.Join(dir, "stop.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$@\" >> "+log+"\necho $$ > "+started+".tmp && mv "+started+".tmp "+started+"\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := &watchEnv{dir: dir, db: filepath.Join(dir, "f.db"), cfg: filepath.Join(dir, "finops.yaml"), rec: &recorder{}}
	yaml := fmt.Sprintf(`database: %s
timezone: Asia/Shanghai
utilization:
  prometheus:
    - url: %s
      name: lab
      timeout: 5s
      retries: 0
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

	cmd := exec.Command(os.Args[0], "--config", e.cfg, "watch")
	cmd.Env = append(os.Environ(), "FINOPS_TEST_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		select {
		case <-exited:
			t.Fatalf("the pass ended before its command started (exit %v)", cmd.ProcessState)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not start within 30 s")
		}
		if b, err := os.ReadFile(started); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	syscall.Kill(-pid, syscall.SIGKILL) // the orphaned command, in its own process group

	code, out, errs := e.run(t, time.Now().UTC(), "watch")
	if code != 0 || !strings.Contains(out, "1 command(s) of an earlier pass were interrupted") {
		t.Fatalf("the pass after the kill: exit %d\n%s%s", code, out, errs)
	}
	if l := readLog(t, log); l != "gpu-a\n" {
		t.Errorf("the command ran %q, want once with gpu-a", l)
	}
	st, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	acts, err := st.Actions(context.Background(), real.Add(-time.Hour), real.Add(time.Hour))
	if err != nil || len(acts) != 1 || acts[0].Outcome != store.ActionInterrupted {
		t.Errorf("actions %+v, %v: want one, interrupted", acts, err)
	}
	var opens int
	if err := st.DB().QueryRow(`SELECT count(*) FROM watch_events WHERE kind = 'open'`).Scan(&opens); err != nil || opens != 1 {
		t.Errorf("%d idle alerts, want 1 (%v)", opens, err)
	}
}
