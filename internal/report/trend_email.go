package report

import (
	"fmt"
	"strings"
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

// newEmailTrend is the section of the audience's movers (nil: no
// history), with at most maxTeams team lines, those that moved most. A
// lead's email shows the team's line and its resources' movers.
func newEmailTrend(m *AudienceMovers, cur string, maxTeams int) *emailTrend {
	if m == nil {
		return nil
	}
	v := &emailTrend{Title: "Trend: " + m.Week + " against the weeks before"}
	if m.NoHistory != "" {
		v.NoHistory = m.NoHistory
		return v
	}
	line := func(mr MoverRow) emailMover {
		return emailMover{Name: mr.Label, Kind: mr.Kind, Cost: money(cur, mr.Cost), Change: mr.Text, Flag: mr.Flag}
	}
	if m.Total != nil {
		tm := line(*m.Total)
		v.Total = &tm
	}
	for i, mr := range m.Teams {
		if i == maxTeams {
			v.MoreTeams = len(m.Teams) - i
			break
		}
		v.Teams = append(v.Teams, line(mr))
	}
	for _, mr := range m.Top {
		v.Top = append(v.Top, line(mr))
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
