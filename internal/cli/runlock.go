package cli

import (
	"context"
	"time"

	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/watch/pass"
)

// defaultWatchLockWait is how long a weekly run waits for a watch pass that
// holds the run lock. A pass holds it for seconds (its database work and
// commands; it lets go before sending its messages), at most its unit's
// four-minute limit (deploy/finops-watch.service); without the wait, a run
// whose start meets a pass (both are on the clock: Monday 08:00 and every
// five minutes) would give up until next week.
const defaultWatchLockWait = 10 * time.Minute

// AcquireRunLock takes the database's run lock for what, waiting while a
// watch pass holds it (store.AcquireRunLockWaiting).
func (m *Main) AcquireRunLock(ctx context.Context, db, what string) (*store.RunLock, error) {
	wait := m.WatchLockWait
	if wait == 0 {
		wait = defaultWatchLockWait
	}
	return store.AcquireRunLockWaiting(ctx, db, what, m.Now, watchLockJob, wait)
}

// watchLockJob is how a watch pass names itself in the lock file.
const watchLockJob = pass.LockJob
