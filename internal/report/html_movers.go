package report

// moversView is the page's movers section: the last week against the
// weeks before, from the audience's movers, as the email words them.
type moversView struct {
	Title     string
	NoHistory string
	// Lines are the total's line (the fleet's) and a line per team; Top the
	// teams and resources that moved most.
	Lines, Top []moverLine
}

type moverLine struct{ Name, Kind, Team, Cost, Change, Flag string }

// newMoversView formats m; nil without a history.
func newMoversView(m *AudienceMovers, cur string) *moversView {
	if m == nil {
		return nil
	}
	v := &moversView{Title: "Movers: " + m.Week + " against the weeks before", NoHistory: m.NoHistory}
	line := func(mr MoverRow) moverLine {
		return moverLine{Name: mr.Label, Kind: mr.Kind, Team: mr.Team, Cost: money(cur, mr.Cost), Change: mr.Text, Flag: mr.Flag}
	}
	if m.Total != nil {
		v.Lines = append(v.Lines, line(*m.Total))
	}
	for _, mr := range m.Teams {
		v.Lines = append(v.Lines, line(mr))
	}
	for _, mr := range m.Top {
		v.Top = append(v.Top, line(mr))
	}
	return v
}
