package report

import (
	"fmt"
	"strings"

	"github.com/finops-oss/finops/analysis"
)

// emailTrend is the email's trend section: the total's line (the team's, in
// a lead's email), one line per team, and the top movers.
type emailTrend struct {
	Title     string
	NoHistory string
	Total     *emailMover
	Teams     []emailMover
	MoreTeams int // team lines left out past EmailOptions.MaxTeams
	Top       []emailMover
}

type emailMover struct{ Name, Kind, Cost, Change, Flag string }

// newEmailTrend is the section for r (nil: r has no history), with at most
// maxTeams team lines, those that moved most. A lead's email (team set, r
// the team's slice) shows the team's line and its resources' movers.
func newEmailTrend(r *analysis.Result, team string, maxTeams int) *emailTrend {
	t := r.Trend
	if t == nil || len(t.Weeks) == 0 {
		return nil
	}
	cur := r.Currency
	last := t.Weeks[len(t.Weeks)-1]
	v := &emailTrend{Title: "Trend: " + last.Label + " against the weeks before"}
	if !t.EnoughHistory {
		v.NoHistory = notEnoughHistory(t)
		return v
	}
	flags := map[string]string{}
	for _, tt := range last.Teams {
		flags[tt.Team] = anomalyText(tt.Anomaly)
	}
	for _, rr := range last.Resources {
		flags["\x00"+rr.ResourceID] = anomalyText(rr.Anomaly)
	}
	line := func(m analysis.Mover) emailMover {
		flag := flags[m.Name]
		if m.Kind == analysis.MoverResource {
			flag = flags["\x00"+m.Name]
		}
		name := m.Name
		if m.Kind == analysis.MoverResource {
			name = analysis.ShortResourceID(m.Name)
		}
		return emailMover{Name: name, Kind: m.Kind, Cost: money(cur, m.Cost), Change: moverText(cur, m), Flag: flag}
	}
	if team == "" && t.TotalMover != nil {
		tm := line(*t.TotalMover)
		tm.Name, tm.Flag = "Total", anomalyText(last.Anomaly)
		v.Total = &tm
	}
	for i, m := range t.TeamMovers {
		if i == maxTeams {
			v.MoreTeams = len(t.TeamMovers) - i
			break
		}
		v.Teams = append(v.Teams, line(m))
	}
	for _, m := range t.TopMovers {
		v.Top = append(v.Top, line(m))
	}
	return v
}

// emailTrendText is the section in the plain-text body ("" without one).
func emailTrendText(v *emailTrend) string {
	if v == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n" + oneLine(v.Title, 76) + "\n")
	if v.NoHistory != "" {
		b.WriteString(wrap(v.NoHistory, 76, "  ", "  ") + "\n")
		return b.String()
	}
	write := func(head string, m emailMover) {
		s := oneLine(m.Name, 40) + ": " + m.Cost + ", " + m.Change
		if m.Flag != "" {
			s += " — " + m.Flag
		}
		b.WriteString(wrap(s, 76, head, strings.Repeat(" ", len(head))) + "\n")
	}
	if v.Total != nil {
		write("  ", *v.Total)
	}
	for _, m := range v.Teams {
		write("  ", m)
	}
	if v.MoreTeams > 0 {
		fmt.Fprintf(&b, "  … and %d more teams, which moved less.\n", v.MoreTeams)
	}
	if len(v.Top) > 0 {
		b.WriteString("\nTop movers\n")
		for _, m := range v.Top {
			write("  - ", emailMover{Name: m.Name + " (" + m.Kind + ")", Cost: m.Cost, Change: m.Change, Flag: m.Flag})
		}
	}
	return b.String()
}
