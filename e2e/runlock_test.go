package e2e

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/watch/pass"
)

// TestRunWaitsForWatchPass: a weekly run that meets a watch pass waits for
// it (the pass below lets go after 300 ms); one that meets another run, or a
// pass that outlasts the wait, is refused with the lock's error.
func TestRunWaitsForWatchPass(t *testing.T) {
	for _, tc := range []struct {
		name    string
		holder  string
		release time.Duration // 0: never
		wait    time.Duration
		wantErr bool
		atMost  time.Duration // the refusal or the lock comes within this
	}{
		{name: "watch pass ends", holder: pass.LockJob, release: 300 * time.Millisecond, wait: 10 * time.Second, atMost: 5 * time.Second},
		{name: "watch pass outlasts the wait", holder: pass.LockJob, wait: 1500 * time.Millisecond, wantErr: true, atMost: 5 * time.Second},
		{name: "another run", holder: "run 2026-W48", wait: time.Minute, wantErr: true, atMost: 5 * time.Second},
		{name: "restore", holder: "restore 2026-W48", wait: time.Minute, wantErr: true, atMost: 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "finops.db")
			held, err := store.AcquireRunLock(db, tc.holder, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			defer held.Release()
			if tc.release > 0 {
				time.AfterFunc(tc.release, func() { held.Release() })
			}
			m := &cli.Main{Now: time.Now, WatchLockWait: tc.wait}
			start := time.Now()
			lock, err := m.AcquireRunLock(context.Background(), db, "run 2026-W49")
			took := time.Since(start)
			if tc.wantErr {
				if !errors.Is(err, store.ErrLocked) {
					t.Fatalf("err = %v, want the lock refused", err)
				}
				if tc.holder == pass.LockJob && took < tc.wait {
					t.Errorf("refused after %v, before the %v wait was over", took, tc.wait)
				}
			} else {
				if err != nil {
					t.Fatalf("err = %v, want the lock once the pass let go", err)
				}
				lock.Release()
				if took < tc.release {
					t.Errorf("locked after %v, before the pass let go at %v", took, tc.release)
				}
			}
			if took > tc.atMost {
				t.Errorf("took %v, want at most %v", took, tc.atMost)
			}
		})
	}
	t.Run("cancelled while waiting", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "finops.db")
		held, err := store.AcquireRunLock(db, pass.LockJob, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		defer held.Release()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		m := &cli.Main{Now: time.Now, WatchLockWait: time.Minute}
		if _, err := m.AcquireRunLock(ctx, db, "run 2026-W49"); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}
