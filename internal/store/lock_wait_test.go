package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestAcquireRunLockWaiting: a holder that is not the job waited for is
// refused at once, however long the wait; the job's lock is refused once the
// wait is over, and taken once the job lets go; a cancelled context ends
// the wait.
func TestAcquireRunLockWaiting(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name    string
		holder  string // the job holding the lock
		wait    time.Duration
		letGo   bool // the holder releases the lock after the first try
		cancel  bool
		wantErr error // nil: the lock is taken
	}{
		{"another run", "run 2026-W47", time.Hour, false, false, ErrLocked},
		{"the watch, no wait left", "watch", 0, false, false, ErrLocked},
		{"the watch lets go", "watch", time.Hour, true, false, nil},
		{"cancelled", "watch", time.Hour, false, true, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "finops.db")
			held, err := AcquireRunLock(db, tc.holder, now())
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			// Each try reads the clock first: the holder lets go as the
			// second try begins, so the first is refused for certain and
			// the lock is taken only by waiting.
			tries := 0
			clock := func() time.Time {
				if tries++; tries == 2 && tc.letGo {
					held.Release()
				}
				return now()
			}
			if !tc.letGo {
				defer held.Release()
			}
			lock, err := AcquireRunLockWaiting(ctx, db, "run 2026-W48", clock, "watch", tc.wait)
			defer lock.Release()
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("AcquireRunLockWaiting: %v, want %v", err, tc.wantErr)
			}
			if tc.letGo && tries != 2 {
				t.Errorf("%d tries, want 2: refused while held, taken once let go", tries)
			}
		})
	}
}
