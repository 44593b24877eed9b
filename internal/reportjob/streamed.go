package reportjob

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/store"
)

// What the analysis reads from the store as it goes — a GPU's minutes
// (analysis.Input.LoadSeries), the lines (analysis.Input.LineStream) — fails
// as the store fails, not as the configuration does: Analyze leaves a
// StoreReadError as it is (exit 1) where it makes the analysis' own refusals
// ConfigErrors (exit 2).
type StoreReadError struct{ Err error }

func (e StoreReadError) Error() string { return e.Err.Error() }
func (e StoreReadError) Unwrap() error { return e.Err }

// readErr wraps a non-nil err as a StoreReadError.
func readErr(err error) error {
	if err == nil {
		return nil
	}
	return StoreReadError{err}
}

// HoldLines is the most billing lines the weekly report holds in memory
// (Options.HoldLines); above it they are streamed. Held, a line is a
// finops.BillingLine of 424 bytes, and the collector lets the heap grow to
// twice what is live: 200,000 lines are ≈ 95 MB live, ≈ 200 MB of heap
// through the analysis, most of a report's peak. Streamed, the analysis
// reads them in one walk for the window and its trends and its heap stays
// under 30 MB; on the 1,000-GPU week (200,000 lines, docs/BENCHMARKS.md
// §Report vs pandas) that took the report's peak RSS from ≈ 259 to 240 MB
// (issue #35; one run each on a loaded machine, CPU within the noise). Below it — the demo, a small fleet's week —
// holding them is as cheap as anything.
const HoldLines = 100_000

// LineStream is the lines of st overlapping [from, to) as the analysis reads
// them when it does not hold them (past Options.HoldLines): sum, the same
// range's summary, gives their currencies and extent before the first walk.
func LineStream(st *store.Store, sum store.LineSummary, from, to time.Time) *analysis.LineStream {
	return &analysis.LineStream{
		Each: func(ctx context.Context, fn func(*finops.BillingLine) error) error {
			return readErr(st.EachLineAhead(ctx, from, to, fn))
		},
		Currencies: slices.Sorted(maps.Keys(sum.Currencies)),
		First:      sum.First, Last: sum.Last, HasLines: sum.Count > 0,
	}
}

// LoadSeries is the minutes of a GPU of st's outlines over [from, to) as the
// analysis reads them (Options.Outlines).
func LoadSeries(st *store.Store, from, to time.Time) func(context.Context, *finops.GPUSeries) (finops.GPUSeries, error) {
	return func(ctx context.Context, g *finops.GPUSeries) (finops.GPUSeries, error) {
		s, err := st.LoadSeries(ctx, g, from, to)
		return s, readErr(err)
	}
}
