package main

import (
	"context"
	"errors"
	"time"

	"github.com/finops-oss/finops/store"
	"github.com/finops-oss/finops/watch/pass"
)

// defaultWatchLockWait is how long a weekly run waits for a watch pass that
// holds the run lock. A pass holds it for seconds (its database work and
// commands; it lets go before sending its messages), at most its unit's
// four-minute limit (deploy/finops-watch.service); without the wait, a run
// whose start meets a pass (both are on the clock: Monday 08:00 and every
// five minutes) would give up until next week.
const defaultWatchLockWait = 10 * time.Minute

// acquireRunLock takes the database's run lock for what. When a watch pass
// holds it, it tries again every second until the pass is done or the wait
// is over; another run or a restore is refused at once, as two weekly jobs
// at once are a mistake worth exit 5, and a pass is routine.
func (m *Main) acquireRunLock(ctx context.Context, db, what string) (*store.RunLock, error) {
	wait := m.watchLockWait
	if wait == 0 {
		wait = defaultWatchLockWait
	}
	deadline := time.Now().Add(wait)
	for {
		lock, err := store.AcquireRunLock(db, what, m.Now())
		var le *store.LockedError
		if err == nil || !errors.As(err, &le) || le.Job() != watchLockJob || !time.Now().Before(deadline) {
			return lock, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(time.Second, time.Until(deadline))):
		}
	}
}

// watchLockJob is how a watch pass names itself in the lock file.
const watchLockJob = pass.LockJob
