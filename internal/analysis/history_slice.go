package analysis

import "slices"

// forTeam is the history of one team: each week's total is the team's row
// (cost, idle, lower bound, flag), its teams only that row and its resources
// the team's; the total mover is the team's, and the other movers those of
// the team and its resources. Weeks keep their place even where the team
// spent nothing (a week present in the data is a zero for the team, not a
// gap). nil stays nil.
func (tr *Trend) forTeam(team string) *Trend {
	if tr == nil {
		return nil
	}
	out := &Trend{WeeksAsked: tr.WeeksAsked, AbsentWeeks: slices.Clone(tr.AbsentWeeks), EnoughHistory: tr.EnoughHistory}
	for _, w := range tr.Weeks {
		tw := TrendWeek{Label: w.Label, Start: w.Start, End: w.End, Coverage: 1}
		for _, t := range w.Teams {
			if t.Team == team {
				t.UnitCosts = slices.Clone(t.UnitCosts)
				tw.Teams = []TrendTeam{t}
				tw.Cost, tw.IdleCost, tw.IdleLowerBound, tw.Anomaly = t.Cost, t.IdleCost, t.IdleLowerBound, t.Anomaly
				tw.Coverage = t.Coverage
			}
		}
		if tw.Teams == nil {
			// The team spent nothing that week nor the four before it
			// (flagTrend gives a team that stopped a row of 0).
			tw.Anomaly = w.Anomaly
			if tw.Anomaly != AnomalyNoHist {
				tw.Anomaly = AnomalyNone
			}
		}
		for _, r := range w.Resources {
			if r.Team == team {
				tw.Resources = append(tw.Resources, r)
			}
		}
		out.Weeks = append(out.Weeks, tw)
	}
	for _, m := range tr.TeamMovers {
		if m.Name == team {
			tm := m
			out.TotalMover = &tm
			out.TeamMovers = []Mover{m}
		}
	}
	if out.EnoughHistory && out.TotalMover == nil {
		// No cost in the last week nor the four before.
		out.TotalMover = &Mover{Kind: MoverTeam, Name: team}
	}
	for _, m := range tr.ResourceMovers {
		if m.Team == team {
			out.ResourceMovers = append(out.ResourceMovers, m)
		}
	}
	out.TopMovers = topMovers(slices.Concat(out.TeamMovers, out.ResourceMovers), TopMoverCount)
	return out
}
