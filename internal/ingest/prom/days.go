package prom

import (
	"context"
	"sync"
	"time"
)

// DefaultConcurrentDays is how many days FetchDays asks for at once when the
// source sets no number: a week of a large fleet is mostly waiting on the
// server, and four requests keep a Prometheus busy without crowding out its
// dashboards.
const DefaultConcurrentDays = 4

// FetchDays fetches days (each as FetchDay does) with up to
// Source.ConcurrentDays of them in flight, and passes each to keep in the
// order given, on the caller's goroutine, so the caller stores one day per
// transaction in a deterministic order. A day is started only once the day
// ConcurrentDays before it has been kept, so at most ConcurrentDays days are
// held in memory, the one being kept included: memory follows the setting,
// not the length of the period. The first day the server did not answer ends
// the fetch with its *FetchError: the days after it are not kept (they are
// missing too, as when fetched one by one), and those in flight are
// cancelled. An error from keep ends it the same way, as does ctx.
func (c *Client) FetchDays(ctx context.Context, days []time.Time, now time.Time, keep func(*Day) error) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// Cancel before waiting: the fetches in flight stop at their next read.
	defer func() { cancel(); wg.Wait() }()
	type result struct {
		d   *Day
		err error
	}
	// One buffered channel per day: a fetch that finishes early never waits
	// for the days before it to be kept.
	results := make([]chan result, len(days))
	start := func(i int) {
		if i >= len(days) {
			return
		}
		results[i] = make(chan result, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := c.FetchDay(ctx, days[i], now)
			results[i] <- result{d, err}
		}()
	}
	for i := range min(c.src.ConcurrentDays, len(days)) {
		start(i)
	}
	for i := range days {
		var r result
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		results[i] = nil
		if r.err != nil {
			return r.err
		}
		if err := keep(r.d); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		start(i + c.src.ConcurrentDays)
	}
	return nil
}
