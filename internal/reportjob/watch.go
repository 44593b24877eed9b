package reportjob

import (
	"context"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/store"
)

// watchActivity loads what `finops watch` did in [start, end), for the report's
// Watch section: nil when it sent and decided nothing, so a fleet without
// the watch gets no section.
func watchActivity(ctx context.Context, st *store.Store, start, end time.Time) (*analysis.WatchInput, error) {
	act, err := st.WatchActivity(ctx, start, end)
	if err != nil {
		return nil, err
	}
	if len(act.Alerts) == 0 && len(act.Actions) == 0 {
		return nil, nil
	}
	in := &analysis.WatchInput{}
	for _, a := range act.Alerts {
		in.Alerts = append(in.Alerts, analysis.WatchAlert{At: a.SentAt, Resource: a.Resource, Team: a.Team, Event: a.Event,
			Channel: a.Channel, Title: a.Title})
	}
	for _, a := range act.Actions {
		in.Actions = append(in.Actions, analysis.WatchDecision{DecidedAt: a.DecidedAt, Finished: a.Finished,
			Resource: a.Resource, Team: a.Team, Action: a.Action, Outcome: a.Outcome, ExitCode: a.ExitCode,
			Rate: a.Rate, RateKnown: a.RateKnown, Currency: a.Currency})
	}
	return in, nil
}
