package reportjob

import (
	"context"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/store"
)

// Decisions are the store's current advice decisions as the analysis takes
// them.
func Decisions(ctx context.Context, st *store.Store) ([]analysis.AdviceDecision, error) {
	rows, err := st.AdviceDecisions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]analysis.AdviceDecision, len(rows))
	for i, d := range rows {
		out[i] = analysis.AdviceDecision{ID: d.ID, Decision: d.Decision, Until: d.Until, Why: d.Why,
			DecidedAt: d.DecidedAt, ResourceID: d.ResourceID, Action: d.Action, Baseline: d.Baseline,
			Expected: d.Expected, Currency: d.Currency}
	}
	return out, nil
}

// AdviceInput is what a report of win needs of the decisions: all of them,
// and the lines of the resources of done advice from 4 weeks before the
// earliest decision to win's end, to measure what it saved.
func AdviceInput(ctx context.Context, st *store.Store, win analysis.Window) (analysis.AdviceInput, error) {
	decs, err := Decisions(ctx, st)
	if err != nil {
		return analysis.AdviceInput{}, err
	}
	in := analysis.AdviceInput{Decisions: decs}
	from := win.End
	var ids []string
	for _, d := range decs {
		if d.Decision == analysis.AdviceDone && d.DecidedAt.Before(win.End) {
			ids = append(ids, d.ResourceID)
			if t := d.DecidedAt.Add(-analysis.RealisedBefore); t.Before(from) {
				from = t
			}
		}
	}
	if in.Lines, err = st.ResourceLines(ctx, from, win.End, ids); err != nil {
		return analysis.AdviceInput{}, err
	}
	return in, nil
}
