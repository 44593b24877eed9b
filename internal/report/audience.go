package report

import (
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
)

// Audience is what one audience is shown of its week beyond the figures
// every output takes from the result itself: its chargeback and its movers.
// Invariant (docs/ARCHITECTURE.md, report row): the email, the HTML page,
// the workbook and the chat digest of one audience are rendered from one
// Audience, so they show the same chargeback and movers. It is built once
// per audience (the fleet, or one team) by NewAudience and handed to each
// writer (Meta.View, EmailOptions.View, DigestOptions.View); a writer given
// none builds it from its result the same way.
type Audience struct {
	// Team is the team whose slice the result is; "" for the fleet.
	Team     string
	Currency string
	// Chargeback is nil without chargeback rules.
	Chargeback *AudienceChargeback
	// Movers is nil without a weekly history.
	Movers *AudienceMovers
}

// AudienceChargeback is the chargeback an audience is shown: every team's
// row for the fleet, the team's own row for a team. The pools and the bill
// are the fleet's: a team's shares are of them.
type AudienceChargeback struct {
	UnallocatedRule, IdleRule string
	UnallocatedPool, IdlePool float64
	Bill                      float64 // the fleet's bill, which every team's charged back adds up to
	Rows                      []analysis.TeamChargeback
}

// AudienceMovers are the last week's movers an audience is shown: the
// fleet's total line (none for a team: its own line is its total), a line
// per team (a team: its own), and the top movers among teams and
// resources (a team: itself and its resources).
type AudienceMovers struct {
	Week      string // the last week of the history, "2026-W47"
	NoHistory string // why there are no movers (notEnoughHistory); "" when there are
	Total     *MoverRow
	Teams     []MoverRow
	Top       []MoverRow
}

// MoverRow is one mover as every output shows it.
type MoverRow struct {
	analysis.Mover
	// Label is the name shown: a team's name, a resource's short id,
	// "Total".
	Label string
	// Text is the change in words (moverText): "+¥200.00 · +20 % vs the
	// 4-week mean (¥1,000.00)".
	Text string
	// Flag is the last week's anomaly in words ("above its recent range");
	// "" when in range.
	Flag string
}

// NewAudience is the view of r for team ("" for the fleet). r is the
// fleet's result or the team's slice (analysis.Result.ForTeam); a slice has
// no chargeback of its own, so fleet, when set, is the fleet's, whose team
// row the team is shown.
func NewAudience(r *analysis.Result, team string, fleet *analysis.Chargeback) *Audience {
	a := &Audience{Team: team, Currency: r.Currency}
	cb := r.Chargeback
	if cb == nil {
		cb = fleet
	}
	if cb != nil {
		ac := &AudienceChargeback{UnallocatedRule: cb.UnallocatedRule, IdleRule: cb.IdleRule,
			UnallocatedPool: cb.UnallocatedPool, IdlePool: cb.IdlePool, Bill: cb.Total}
		if team == "" {
			ac.Rows = append(ac.Rows, cb.Teams...)
		} else if row := teamChargeback(cb, team); row != nil {
			ac.Rows = []analysis.TeamChargeback{*row}
		}
		if team == "" || len(ac.Rows) > 0 {
			a.Chargeback = ac
		}
	}
	a.Movers = newAudienceMovers(r, team)
	return a
}

// newAudienceMovers takes the movers of r's history, nil without one.
func newAudienceMovers(r *analysis.Result, team string) *AudienceMovers {
	t := r.Trend
	if t == nil || len(t.Weeks) == 0 {
		return nil
	}
	last := t.Weeks[len(t.Weeks)-1]
	m := &AudienceMovers{Week: last.Label}
	if !t.EnoughHistory {
		m.NoHistory = notEnoughHistory(t)
		return m
	}
	flags := map[string]string{}
	for _, tt := range last.Teams {
		flags[analysis.MoverTeam+"\x00"+tt.Team] = anomalyText(tt.Anomaly)
	}
	for _, rr := range last.Resources {
		flags[analysis.MoverResource+"\x00"+rr.ResourceID] = anomalyText(rr.Anomaly)
	}
	row := func(mv analysis.Mover) MoverRow {
		label := mv.Name
		if mv.Kind == analysis.MoverResource {
			label = analysis.ShortResourceID(mv.Name)
		}
		return MoverRow{Mover: mv, Label: label, Text: moverText(r.Currency, mv), Flag: flags[mv.Kind+"\x00"+mv.Name]}
	}
	if team == "" && t.TotalMover != nil {
		tm := row(*t.TotalMover)
		tm.Label, tm.Flag = "Total", anomalyText(last.Anomaly)
		m.Total = &tm
	}
	for _, mv := range t.TeamMovers {
		if team == "" || strings.EqualFold(mv.Name, team) {
			m.Teams = append(m.Teams, row(mv))
		}
	}
	for _, mv := range t.TopMovers {
		m.Top = append(m.Top, row(mv))
	}
	return m
}

// audienceOf is the view a writer renders: the one it was given, else r's
// own (NewAudience of r alone).
func audienceOf(view *Audience, r *analysis.Result, team string, fleet *analysis.Chargeback) *Audience {
	if view != nil {
		return view
	}
	return NewAudience(r, team, fleet)
}

// chargebackRow is team's row of the chargeback the audience is shown, or
// nil.
func (a *Audience) chargebackRow(team string) *analysis.TeamChargeback {
	if a.Chargeback == nil {
		return nil
	}
	for i := range a.Chargeback.Rows {
		if strings.EqualFold(a.Chargeback.Rows[i].Team, team) {
			return &a.Chargeback.Rows[i]
		}
	}
	return nil
}
