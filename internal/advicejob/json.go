package advicejob

import (
	"time"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/store"
)

// Entry is one piece of advice in the JSON results of finops advice
// (--log-format json); Why is what someone typed, as typed.
type Entry struct {
	ID             string     `json:"id"`
	ResourceID     string     `json:"resource_id"`
	Team           string     `json:"team,omitempty"` // the resource's team in the window (State.teams)
	Action         string     `json:"action"`
	MonthlySavings float64    `json:"monthly_savings"`
	Open           bool       `json:"open"`
	Decision       string     `json:"decision,omitempty"`
	DecidedAt      *time.Time `json:"decided_at,omitempty"`
	Until          *time.Time `json:"until,omitempty"`
	Why            string     `json:"why,omitempty"`
}

// ListResult is the JSON result of `advice list`.
type ListResult struct {
	Command  string  `json:"command"`
	Period   string  `json:"period"`
	Currency string  `json:"currency"`
	Advice   []Entry `json:"advice"`
}

// ListResult is entries, the window's, as `advice list` reports them.
func (s *State) ListResult(entries []analysis.AdviceEntry) ListResult {
	list := make([]Entry, 0, len(entries))
	teamOf := s.teams()
	for _, e := range entries {
		r := Entry{ID: e.ID, ResourceID: e.ResourceID, Team: teamOf[e.ResourceID], Action: e.Action,
			MonthlySavings: amount.RoundMinor(s.Result.Currency, e.MonthlySavings), Open: e.Open}
		if d := e.Decision; d != nil {
			r.Decision, r.DecidedAt, r.Why = d.Decision, &d.DecidedAt, d.Why
			if !d.Until.IsZero() {
				r.Until = &d.Until
			}
		}
		list = append(list, r)
	}
	return ListResult{"advice list", s.Window.Label, s.Result.Currency, list}
}

// DecisionResult is the JSON result of `advice done`, `dismiss` or
// `snooze`: the command, and the advice with its decision.
type DecisionResult struct {
	Command string `json:"command"`
	Entry
}

// DecisionResult is the result of recording d about e.
func (s *State) DecisionResult(e *analysis.AdviceEntry, d store.AdviceDecision) DecisionResult {
	r := Entry{ID: e.ID, ResourceID: e.ResourceID, Action: e.Action,
		MonthlySavings: amount.RoundMinor(s.Result.Currency, e.MonthlySavings), Decision: d.Decision,
		DecidedAt: &d.DecidedAt, Why: d.Why}
	if !d.Until.IsZero() {
		r.Until = &d.Until
	}
	return DecisionResult{"advice " + Verb(d.Decision), r}
}
