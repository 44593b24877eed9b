package store

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestRunLockExcludes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "finops.db")
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	l1, err := AcquireRunLock(db, "run 2026-W48", now)
	if err != nil {
		t.Fatal(err)
	}
	// A second open file description is refused, even in the same process.
	_, err = AcquireRunLock(db, "run 2026-W48", now)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: %v, want a LockedError", err)
	}
	if want := fmt.Sprintf("pid %d on host", os.Getpid()); !strings.Contains(le.Holder, want) ||
		!strings.Contains(le.Holder, "2026-11-30T00:00:00Z (run 2026-W48)") {
		t.Errorf("holder = %q", le.Holder)
	}
	if le.Job() != "run 2026-W48" {
		t.Errorf("job = %q, want the holder's own words, run 2026-W48", le.Job())
	}
	if !strings.Contains(err.Error(), "another finops run is in progress") || !strings.Contains(err.Error(), LockPath(db)) {
		t.Errorf("message = %q", err)
	}
	if err := l1.Release(); err != nil {
		t.Fatal(err)
	}
	l1.Release() // twice is fine
	l2, err := AcquireRunLock(db, "restore", now)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l2.Release()
}

// TestRunLockHelper holds the lock in a child process until killed.
func TestRunLockHelper(t *testing.T) {
	db := os.Getenv("FINOPS_LOCK_HELPER_DB")
	if db == "" {
		t.Skip("helper process for TestRunLockSurvivesKill")
	}
	if _, err := AcquireRunLock(db, "helper", time.Now()); err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	fmt.Println("locked")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// TestRunLockSurvivesKill: a process killed with SIGKILL while holding the
// lock leaves no stale lock behind.
func TestRunLockSurvivesKill(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("flock")
	}
	db := filepath.Join(t.TempDir(), "finops.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunLockHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FINOPS_LOCK_HELPER_DB="+db)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "locked" {
		t.Fatalf("helper said %q, %v", line, err)
	}
	_, err = AcquireRunLock(db, "run", time.Now())
	var le *LockedError
	if !errors.As(err, &le) || !strings.Contains(le.Holder, fmt.Sprintf("pid %d ", cmd.Process.Pid)) {
		t.Fatalf("while the helper holds it: %v", err)
	}
	cmd.Process.Signal(os.Kill)
	cmd.Wait()
	l, err := AcquireRunLock(db, "run", time.Now())
	if err != nil {
		t.Fatalf("after kill -9 of the holder: %v", err)
	}
	l.Release()
}
