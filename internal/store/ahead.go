package store

import (
	"context"
	"errors"

	"github.com/finops-oss/finops"
)

// aheadBatch is how many lines travel between readAhead's goroutines at a
// time: one channel send per batch rather than per line, and a few batches of
// ~0.5 KB lines in flight, so memory stays flat.
const aheadBatch = 256

// errAheadStopped stops the source once the consumer has returned.
var errAheadStopped = errors.New("store: billing lines: consumer stopped")

// readAhead calls yield with src's lines, in src's order, while src runs on
// its own goroutine: reading the lines (a SQLite scan and decode) overlaps
// with what yield does with them (an analysis' walk, a workbook's cells), so
// on two cores it takes about the longer of the two instead of their sum.
// Lines are copied into the batches, so src may reuse its line; yield's line
// is reused once yield returns. The first error — src's, yield's or ctx's —
// is returned, after src has stopped.
func readAhead(ctx context.Context, src func(ctx context.Context, yield func(*finops.BillingLine) error) error, yield func(*finops.BillingLine) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []finops.BillingLine, 2)
	free := make(chan []finops.BillingLine, 4)
	srcErr := make(chan error, 1)
	go func() {
		defer close(batches)
		batch := make([]finops.BillingLine, 0, aheadBatch)
		send := func() error {
			select {
			case batches <- batch:
			case <-ctx.Done():
				return errAheadStopped
			}
			select {
			case batch = <-free:
				batch = batch[:0]
			default:
				batch = make([]finops.BillingLine, 0, aheadBatch)
			}
			return nil
		}
		err := src(ctx, func(l *finops.BillingLine) error {
			if err := ctx.Err(); err != nil {
				return errAheadStopped
			}
			batch = append(batch, *l)
			if len(batch) < aheadBatch {
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
	if err := <-srcErr; err != nil && !errors.Is(err, errAheadStopped) {
		return err
	}
	return ctx.Err()
}
