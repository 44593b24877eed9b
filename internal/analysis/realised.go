package analysis

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/finops-oss/finops"
)

// What advice marked done saved (metrics.md §Advice): the resource's cost per
// day before the decision against its cost per day after it, from the same
// per-resource cost the report shows (ByResource: each line spread over its
// charge period, a monthly card's charge included), times 30.4375 days.
const (
	daysPerMonth     = 30.4375             // 365.25 / 12
	realisedMinDays  = 7                   // fewer full days after the decision: too early to say
	RealisedBefore   = 28 * 24 * time.Hour // the window before a decision its saving is measured against
	baselineDays     = 30                  // current_monthly_cost is the lookback's cost × 30 / D
	RealisedMeasured = "measured"
	RealisedTooEarly = "too_early"
)

// RealisedAdvice is what one piece of advice marked done saved.
type RealisedAdvice struct {
	ID         string    `json:"id"`
	ResourceID string    `json:"resource_id"`
	Team       string    `json:"team"`
	Action     string    `json:"action"`
	DecidedAt  time.Time `json:"decided_at"`
	// Status is measured, or too_early: fewer than 7 full days after the
	// decision, and no numbers.
	Status    string `json:"status"`
	DaysAfter int    `json:"days_after"`
	// BeforePerDay is the resource's cost per day over the 4 weeks before
	// the decision (from its first line when later), or its baseline ÷ 30
	// when no line of it is left there (BeforeFromBaseline); AfterPerDay its
	// cost per day over the full days after the decision to the window's end.
	BeforePerDay           float64 `json:"before_per_day"`
	BeforeFromBaseline     bool    `json:"before_from_baseline"`
	AfterPerDay            float64 `json:"after_per_day"`
	RealisedMonthlySavings float64 `json:"realised_monthly_savings"`
	ExpectedMonthlySavings float64 `json:"expected_monthly_savings"`
}

// realise measures the advice marked done, up to res's window end.
func realise(ctx context.Context, in *Input, res *Result, sum *AdviceSummary) error {
	loc := withDefaults(in.Params).Location
	end := localMidnight(res.Period.End, loc)
	var done []AdviceDecision
	for _, d := range in.Advice.Decisions {
		// Marked done after the window too: too early to tell in it.
		if d.Decision == AdviceDone {
			done = append(done, d)
		}
	}
	slices.SortFunc(done, func(a, b AdviceDecision) int {
		if c := a.DecidedAt.Compare(b.DecidedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	for _, d := range done {
		ra := RealisedAdvice{ID: d.ID, ResourceID: d.ResourceID, Action: d.Action, DecidedAt: d.DecidedAt,
			Status: RealisedTooEarly}
		if d.Currency == "" || d.Currency == res.Currency {
			ra.ExpectedMonthlySavings = d.Expected
		}
		start := nextLocalMidnight(d.DecidedAt, loc)
		ra.DaysAfter = localDayCount(start, end, loc)
		bStart := d.DecidedAt.Add(-RealisedBefore)
		lines := resourceLines(in.Advice.Lines, d.ResourceID) // once for its three analyses
		team, err := adviceTeam(ctx, in, lines, d.ResourceID, Window{Start: bStart, End: end})
		if err != nil {
			return err
		}
		if team == "" {
			// Decided after the window: no lines are loaded past its end,
			// but the report's own row of the resource knows its team.
			team = resourceTeam(res, d.ResourceID)
		}
		ra.Team = team
		if ra.DaysAfter < realisedMinDays {
			sum.Realised = append(sum.Realised, ra)
			continue
		}
		// first is never before bStart (firstCharge clips it there).
		if first, ok := firstCharge(lines, bStart, d.DecidedAt); ok {
			before, err := resourceCost(ctx, in, lines, d.ResourceID, Window{Start: first, End: d.DecidedAt})
			if err != nil {
				return err
			}
			ra.BeforePerDay = before / d.DecidedAt.Sub(first).Hours() * 24
		} else if d.Baseline > 0 && (d.Currency == "" || d.Currency == res.Currency) {
			ra.BeforePerDay, ra.BeforeFromBaseline = d.Baseline/baselineDays, true
		} else {
			// Nothing to compare with: neither lines nor a baseline.
			sum.Realised = append(sum.Realised, ra)
			continue
		}
		after, err := resourceCost(ctx, in, lines, d.ResourceID, Window{Start: start, End: end})
		if err != nil {
			return err
		}
		ra.AfterPerDay = after / float64(ra.DaysAfter)
		ra.RealisedMonthlySavings = (ra.BeforePerDay - ra.AfterPerDay) * daysPerMonth
		ra.Status = RealisedMeasured
		sum.Realised = append(sum.Realised, ra)
	}
	sum.sumRealised()
	return nil
}

// sumRealised adds up the measured entries.
func (s *AdviceSummary) sumRealised() {
	s.RealisedMonthlySavings, s.ExpectedMonthlySavings, s.TooEarly = 0, 0, 0
	for _, r := range s.Realised {
		if r.Status == RealisedMeasured {
			s.RealisedMonthlySavings += r.RealisedMonthlySavings
			s.ExpectedMonthlySavings += r.ExpectedMonthlySavings
		} else {
			s.TooEarly++
		}
	}
}

// localDayCount is the number of local days from midnight start to midnight
// end (a DST day is one day); 0 when end is not after start.
func localDayCount(start, end time.Time, loc *time.Location) int {
	if !end.After(start) {
		return 0
	}
	return len(localDays(Window{Start: start, End: end}, loc)) - 1 // the bounds, less one
}

// sameResource reports whether line l is resource id's.
func sameResource(l *finops.BillingLine, id string) bool {
	return strings.EqualFold(groupKey(l), id) || strings.EqualFold(resourceKey(l), id)
}

// resourceLines are the lines of resource id.
func resourceLines(all []finops.BillingLine, id string) []finops.BillingLine {
	var out []finops.BillingLine
	for i := range all {
		if l := &all[i]; sameResource(l, id) {
			out = append(out, *l)
		}
	}
	return out
}

// firstCharge is the start of the earliest GPU usage line of one resource's
// lines overlapping [from, to), not before from.
func firstCharge(lines []finops.BillingLine, from, to time.Time) (time.Time, bool) {
	var first time.Time
	for i := range lines {
		l := &lines[i]
		if !l.IsGPUUsage() || !l.ChargeStart.Before(to) || !l.ChargeEnd.After(from) {
			continue
		}
		if s := maxTime(l.ChargeStart, from); first.IsZero() || s.Before(first) {
			first = s
		}
	}
	return first, !first.IsZero()
}

// resourceCost is resource id's cost in w, as the report's ByResource counts
// it: an analysis of costs only over w and its lines (resourceLines).
func resourceCost(ctx context.Context, in *Input, lines []finops.BillingLine, id string, w Window) (float64, error) {
	rc, err := adviceResource(ctx, in, lines, id, w)
	if rc == nil {
		return 0, err
	}
	return rc.Cost, err
}

// resourceTeam is the team of resource id in res ("" when it has no row).
func resourceTeam(res *Result, id string) string {
	for i := range res.ByResource {
		if strings.EqualFold(res.ByResource[i].ResourceID, id) {
			return res.ByResource[i].Team
		}
	}
	return ""
}

// adviceTeam is the team of resource id over w ("" when it has no line there).
func adviceTeam(ctx context.Context, in *Input, lines []finops.BillingLine, id string, w Window) (string, error) {
	rc, err := adviceResource(ctx, in, lines, id, w)
	if rc == nil {
		return "", err
	}
	return rc.Team, err
}

// adviceResource is resource id's row in an analysis of costs only over w
// and its lines (resourceLines); nil when it has none.
func adviceResource(ctx context.Context, in *Input, lines []finops.BillingLine, id string, w Window) (*ResourceCost, error) {
	if !w.End.After(w.Start) {
		return nil, nil
	}
	sub := &Input{Window: w, Lookback: w, Lines: lines, Resources: in.Resources, Teams: in.Teams,
		Params: withoutGroups(in.Params), SkipHourly: true, SkipTrends: true, costsOnly: true}
	wa, err := newWindowAnalysis(sub)
	if err != nil {
		return nil, err
	}
	grouped, err := walkLines(ctx, sub, wa.a.conv, wa)
	if err != nil {
		return nil, err
	}
	r, err := wa.finish(ctx, grouped)
	if err != nil {
		return nil, err
	}
	for i := range r.ByResource {
		if strings.EqualFold(r.ByResource[i].ResourceID, id) {
			return &r.ByResource[i], nil
		}
	}
	return nil, nil
}
