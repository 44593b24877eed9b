package e2e

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/store"
)

// TestWatchKilledWhileActing kills a pass with SIGKILL while its command
// runs. The next pass finds the action recorded as pending, marks it
// interrupted and neither runs it again nor alerts again. The killed pass
// is a separate process on the real clock, so the fleet is laid out around
// the real now: gpu-a idle (2 %) from three hours ago; the spell was opened
// and its grace alert given by passes 16 and 15 minutes ago.
func TestWatchKilledWhileActing(t *testing.T) {
	real := time.Now().UTC()
	e, started, log := realClockFleet(t, "sleep 30\n")

	cmd := exec.Command(os.Args[0], "--config", e.cfg, "watch")
	cmd.Env = append(os.Environ(), "FINOPS_TEST_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	pid := waitPid(t, started, exited)
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
