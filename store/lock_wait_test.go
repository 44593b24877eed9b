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
		letGo   bool // the holder releases the lock once the wait has begun
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
			if tc.letGo {
				released := make(chan struct{})
				go func() { held.Release(); close(released) }()
				defer func() { <-released }()
			} else {
				defer held.Release()
			}
			lock, err := AcquireRunLockWaiting(ctx, db, "run 2026-W48", now, "watch", tc.wait)
			defer lock.Release()
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("AcquireRunLockWaiting: %v, want %v", err, tc.wantErr)
			}
		})
	}
}
