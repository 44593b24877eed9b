// Package canceltest checks that long work stops soon after its context is
// cancelled: the promise behind finops' signal handling, that every stage
// ends within a second of SIGINT or SIGTERM. Only tests import it.
package canceltest

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Within is how soon after the cancel run must have returned.
const Within = time.Second

// Stops runs run, cancels its context after the given time (0: before run
// starts) and fails tb unless run returns context.Canceled within Within of
// the cancel. A run that never stops is left running, so that a regression
// fails instead of hanging the test.
func Stops(tb testing.TB, after time.Duration, run func(ctx context.Context) error) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if after == 0 {
		cancel()
	}
	errc := make(chan error, 1)
	go func() { errc <- run(ctx) }()
	time.Sleep(after)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			tb.Errorf("err %v, want context.Canceled", err)
		}
	case <-time.After(Within):
		tb.Fatalf("still running %v after the cancel", Within)
	}
}
