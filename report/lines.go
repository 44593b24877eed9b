package report

import (
	"context"
	"errors"

	"github.com/finops-oss/finops"
)

// LineSource streams raw billing lines: it calls yield once per line, in
// order, and returns the first error yield returns (or its own). The workbook
// writes each line as it comes, so a month of 200,000 lines never sits in
// memory. The caller wires it to the store (store.EachLine); report itself
// never runs a query. A source may reuse the line it passes: yield copies
// what it keeps.
type LineSource func(yield func(*finops.BillingLine) error) error

// prefetchBatch is how many lines travel between prefetch's goroutines at a
// time: one channel send per batch rather than per line, and a few batches of
// ~0.5 KB lines in flight, so memory stays flat.
const prefetchBatch = 256

// errPrefetchStopped stops the source once the consumer has returned.
var errPrefetchStopped = errors.New("report: billing lines: consumer stopped")

// prefetch calls yield with src's lines, in src's order, while src runs on
// its own goroutine: reading the lines (a SQLite scan and decode, about a
// third of the Billing lines sheet's CPU at fleet scale) overlaps with
// writing them (excelize's cells), so on two cores the sheet takes about the
// longer of the two instead of their sum. Lines are copied into the batches,
// so a source may reuse its line. The first error — src's, yield's or ctx's —
// is returned, after src has stopped.
func (src LineSource) prefetch(ctx context.Context, yield func(*finops.BillingLine) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []finops.BillingLine, 2)
	free := make(chan []finops.BillingLine, 4)
	srcErr := make(chan error, 1)
	go func() {
		defer close(batches)
		batch := make([]finops.BillingLine, 0, prefetchBatch)
		send := func() error {
			select {
			case batches <- batch:
			case <-ctx.Done():
				return errPrefetchStopped
			}
			select {
			case batch = <-free:
				batch = batch[:0]
			default:
				batch = make([]finops.BillingLine, 0, prefetchBatch)
			}
			return nil
		}
		err := src(func(l *finops.BillingLine) error {
			if err := ctx.Err(); err != nil {
				return errPrefetchStopped
			}
			batch = append(batch, *l)
			if len(batch) < prefetchBatch {
				return nil
			}
			return send()
		})
		if err == nil && len(batch) > 0 {
			err = send()
		}
		srcErr <- err
	}()
	var err error
	for batch := range batches {
		for i := range batch {
			if err = yield(&batch[i]); err != nil {
				break
			}
		}
		if err != nil {
			break
		}
		clear(batch) // no strings or maps kept alive by a recycled batch
		select {
		case free <- batch:
		default:
		}
	}
	if err != nil {
		cancel()
		for range batches { // let the source see the cancellation and return
		}
		<-srcErr
		return err
	}
	if err := <-srcErr; err != nil && !errors.Is(err, errPrefetchStopped) {
		return err
	}
	return ctx.Err()
}
