package store

import (
	"context"
	"errors"
	"time"
)

// AcquireRunLockWaiting is AcquireRunLock (at now()), except that while the
// holder is job — the watch's pass, which holds the lock for seconds — it
// tries again every second until the holder is done or wait is over. Any
// other holder is refused at once: two weekly jobs at once are a mistake
// worth saying, a pass is routine. ctx ends the wait.
func AcquireRunLockWaiting(ctx context.Context, dbPath, what string, now func() time.Time, job string, wait time.Duration) (*RunLock, error) {
	deadline := time.Now().Add(wait)
	for {
		lock, err := AcquireRunLock(dbPath, what, now())
		var le *LockedError
		if err == nil || !errors.As(err, &le) || le.Job() != job || !time.Now().Before(deadline) {
			return lock, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(time.Second, time.Until(deadline))):
		}
	}
}
