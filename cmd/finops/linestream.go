package main

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/store"
)

// lineStream is the lines of st overlapping [from, to) as the analysis reads
// them when it does not hold them (loadOptions.streamLines): sum, the same
// range's summary, gives their currencies and extent before the first walk.
func lineStream(st *store.Store, sum store.LineSummary, from, to time.Time) *analysis.LineStream {
	return &analysis.LineStream{
		Each: func(ctx context.Context, fn func(*finops.BillingLine) error) error {
			return st.EachLine(ctx, from, to, fn)
		},
		Currencies: slices.Sorted(maps.Keys(sum.Currencies)),
		First:      sum.First, Last: sum.Last, HasLines: sum.Count > 0,
	}
}
