package store

import (
	"context"
	"errors"
	"testing"

	"github.com/finops-oss/finops"
)

// TestReadAhead: readAhead hands over every line of the source in the
// source's order, even from a source that reuses one line for all (values
// copied); the first error comes back, the source's or the consumer's; and a
// consumer that stops stops the source (it sees no more than the lines in
// flight: two batches queued and the one being filled, far below n).
func TestReadAhead(t *testing.T) {
	const n = 10*aheadBatch + 17 // whole batches and a partial one
	boom := errors.New("boom")
	reuse := func(failAt int, sent *int) func(context.Context, func(*finops.BillingLine) error) error {
		return func(_ context.Context, yield func(*finops.BillingLine) error) error {
			var l finops.BillingLine // one line, rewritten for every call
			for i := 1; i <= n; i++ {
				if i == failAt {
					return boom
				}
				l.Line, l.ResourceID = i, "r"
				*sent = i
				if err := yield(&l); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for _, tc := range []struct {
		name             string
		srcFail, useFail int // 0: never
		wantErr          error
		wantGot          int // lines the consumer saw
	}{
		{"all lines", 0, 0, nil, n},
		{"source fails", 3*aheadBatch + 5, 0, boom, 3 * aheadBatch}, // the partial batch is not sent
		{"consumer fails", 0, 100, boom, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sent, got := 0, 0
			err := readAhead(context.Background(), reuse(tc.srcFail, &sent), func(l *finops.BillingLine) error {
				got++
				if l.Line != got {
					t.Fatalf("line %d came as number %d: order or copy lost", l.Line, got)
				}
				if got == tc.useFail {
					return boom
				}
				return nil
			})
			if !errors.Is(err, tc.wantErr) || got != tc.wantGot {
				t.Errorf("err %v after %d lines, want %v after %d", err, got, tc.wantErr, tc.wantGot)
			}
			if tc.useFail > 0 && sent > tc.useFail+4*aheadBatch {
				t.Errorf("source went on to line %d after the consumer stopped at %d", sent, tc.useFail)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		sent, got := 0, 0
		err := readAhead(ctx, reuse(0, &sent), func(*finops.BillingLine) error {
			if got++; got == 10 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
		if sent == n {
			t.Errorf("the source read all %d lines after the cancellation", n)
		}
	})
}
