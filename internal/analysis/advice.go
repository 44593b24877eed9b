package analysis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/finops-oss/finops"
)

// Advice has a life (issue #27): each recommendation other than keep has a
// stable id, someone marks it done, dismisses it or snoozes it (finops
// advice), and the reports show only what is still open, with what the done
// advice really saved (realised.go).

// Advice decisions.
const (
	AdviceDone      = "done"
	AdviceDismissed = "dismissed"
	AdviceSnoozed   = "snoozed"
)

// AdviceDecision is the latest decision about one piece of advice.
type AdviceDecision struct {
	ID         string
	Decision   string    // AdviceDone, AdviceDismissed or AdviceSnoozed
	Until      time.Time // snoozed: the advice is open again from this instant
	Why        string    // free text someone typed: untrusted
	DecidedAt  time.Time
	ResourceID string
	Action     string
	// Baseline is the advice's current monthly cost when it was decided,
	// Expected its monthly saving then, both in Currency (0 when unknown).
	Baseline, Expected float64
	Currency           string
}

// AdviceInput is what the analysis needs to give advice a life: the current
// decision per advice id, and the billing lines of the resources of the
// advice marked done, from 28 days before the earliest such decision to the
// window's end (realised.go).
type AdviceInput struct {
	Decisions []AdviceDecision
	Lines     []finops.BillingLine
}

// AdviceSummary is what the decisions did to this report's advice.
type AdviceSummary struct {
	// Hidden counts the advice of this report dismissed, or snoozed until
	// after the window's end; Done the advice of this report marked done.
	// Neither is in Recommendations nor in totals.monthly_savings.
	Hidden int `json:"hidden"`
	Done   int `json:"done"`
	// Realised is what each piece of advice marked done saved, measured
	// on the bills after the decision (metrics.md §Advice).
	Realised []RealisedAdvice `json:"realised"`
	// RealisedMonthlySavings and ExpectedMonthlySavings add up the realised
	// entries that are measured (not too early).
	RealisedMonthlySavings float64 `json:"realised_monthly_savings"`
	ExpectedMonthlySavings float64 `json:"expected_monthly_savings"`
	TooEarly               int     `json:"too_early"`

	hiddenRes, doneRes []string // the resources of the Hidden and Done advice, for ForTeam
}

// AdviceID is the stable id of the advice to take action on a resource:
// "adv-" and 8 hex digits of a hash of the resource id and the action (the
// action names the target mode: switch_to_monthly, release, …). Amounts are
// not part of it, so the same advice keeps its id week after week while its
// numbers move. keep is no advice to act on and has no id ("").
func AdviceID(resourceID, action string) string {
	if action == ActionKeep || action == "" {
		return ""
	}
	// Azure ids change case from one month's export to the next (groupKey).
	if isResourcePath(resourceID) && resourceID[0] == '/' && resourceID[1] != '/' {
		resourceID = strings.ToLower(resourceID)
	}
	sum := sha256.Sum256([]byte(resourceID + "\x1f" + action))
	return "adv-" + hex.EncodeToString(sum[:4])
}

// AssignAdviceIDs sets the id of every recommendation (keep: none).
func AssignAdviceIDs(recs []Recommendation) {
	for i := range recs {
		recs[i].ID = AdviceID(recs[i].ResourceID, recs[i].Action)
	}
}

// AdviceOpen reports whether advice with decision d (nil: none) is still
// open at t: never decided, or snoozed until t or earlier.
func AdviceOpen(d *AdviceDecision, t time.Time) bool {
	return d == nil || d.Decision == AdviceSnoozed && !d.Until.After(t)
}

// applyAdvice gives res's recommendations their ids, takes out those decided
// (done, dismissed, snoozed past the window's end) and sums the savings of
// the open ones, before the findings are made from them; then it measures the
// advice marked done (realised.go).
func applyAdvice(ctx context.Context, res *Result, in *Input) error {
	AssignAdviceIDs(res.Recommendations)
	if len(in.Advice.Decisions) == 0 {
		return nil
	}
	byID := map[string]*AdviceDecision{}
	for i := range in.Advice.Decisions {
		byID[in.Advice.Decisions[i].ID] = &in.Advice.Decisions[i]
	}
	sum := &AdviceSummary{Realised: []RealisedAdvice{}}
	open := res.Recommendations[:0:0]
	res.Totals.MonthlySavings = 0
	for _, rec := range res.Recommendations {
		d := byID[rec.ID]
		if rec.ID == "" || AdviceOpen(d, res.Period.End) {
			open = append(open, rec)
			res.Totals.MonthlySavings += rec.MonthlySavings
			continue
		}
		if d.Decision == AdviceDone {
			sum.Done++
			sum.doneRes = append(sum.doneRes, rec.ResourceID)
		} else {
			sum.Hidden++
			sum.hiddenRes = append(sum.hiddenRes, rec.ResourceID)
		}
	}
	res.Recommendations = open
	if err := realise(ctx, in, res, sum); err != nil {
		return err
	}
	res.Advice = sum
	return nil
}

// forTeam is the part of s about one team: its resources' advice (own:
// their ids), and the done advice whose resource was the team's before the
// decision; nil when none of it is the team's, so that a team's report has
// no advice section for decisions about other teams' resources.
func (s *AdviceSummary) forTeam(team string, own map[string]bool) *AdviceSummary {
	if s == nil {
		return nil
	}
	out := &AdviceSummary{Realised: []RealisedAdvice{}}
	for _, id := range s.hiddenRes {
		if own[id] {
			out.Hidden++
			out.hiddenRes = append(out.hiddenRes, id)
		}
	}
	for _, id := range s.doneRes {
		if own[id] {
			out.Done++
			out.doneRes = append(out.doneRes, id)
		}
	}
	for _, r := range s.Realised {
		if r.Team == team || own[r.ResourceID] {
			out.Realised = append(out.Realised, r)
		}
	}
	if out.Hidden == 0 && out.Done == 0 && len(out.Realised) == 0 {
		return nil // nothing decided about this team's advice: no section
	}
	out.sumRealised()
	return out
}

// NormalizeAdviceID is an id as someone typed it, as AdviceID writes it:
// lower-case, with its "adv-" prefix.
func NormalizeAdviceID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	if !strings.HasPrefix(id, "adv-") {
		id = "adv-" + id
	}
	return id
}
