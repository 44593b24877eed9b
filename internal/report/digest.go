package report

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
)

// DigestOptions says whom a chat digest is for and what it links to.
type DigestOptions struct {
	// Team is the team whose slice (analysis.Result.ForTeam) the Result is;
	// "" for the fleet digest.
	Team string
	// ReportURL is the page to read the rest on; "" leaves the link out.
	// Only http and https URLs are accepted.
	ReportURL string
	// MaxActions bounds the recommendations listed (default 5).
	MaxActions int
	// View is the audience's chargeback and movers, the same its email,
	// page and workbook show (audience.go); nil builds it from the result.
	View *Audience
}

// DigestMessage is a weekly digest as every chat channel starts from: one
// title line and plain-text lines, without markup. Bill text in it (team
// and resource names) is as written, reduced to one line each: the sender
// of each platform escapes and defuses it, as it does an alert's.
type DigestMessage struct {
	Title    string
	Text     string
	Team     string // the team's name as the result has it; "" for the fleet
	Currency string
}

// Bounds of the digest's bill text: with MaxActions lines of at most
// digestNameRunes each, a digest stays well inside the smallest chat limit
// (a Slack section's 3000 characters), so the platforms never cut it. An
// advice id is 12 characters (analysis.AdviceID); digestIDRunes bounds one
// read back from a JSON summary too.
const (
	digestNameRunes   = 80
	digestIDRunes     = 16
	digestReasonRunes = 160
	digestMaxReasons  = 3
	// A top mover's name is cut shorter, and at most digestMaxRows are
	// listed: they come on top of the actions, inside the same 3000
	// characters even when every character of a name is escaped ("&amp;").
	digestRowRunes = 16
	digestMaxRows  = 2
)

// Digest renders the weekly digest of r for chat: the period's cost, the
// idle cost and its share, the coverage and "data incomplete" when the
// data is, the actions that save the most with their savings and advice
// ids, and the link. Its numbers are formatted as the email's (money, idleMoney,
// idleNote), so the two say the same.
func Digest(r *analysis.Result, opts DigestOptions) (DigestMessage, error) {
	if r == nil {
		return DigestMessage{}, fmt.Errorf("report: digest: nil result")
	}
	loc, err := reportZone(r)
	if err != nil {
		return DigestMessage{}, err
	}
	if opts.ReportURL != "" {
		u, err := url.Parse(opts.ReportURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return DigestMessage{}, fmt.Errorf("report: digest: report URL %q is not an http(s) URL", oneLine(opts.ReportURL, 200))
		}
	}
	if opts.MaxActions <= 0 {
		opts.MaxActions = 5
	}
	cur, t := r.Currency, r.Totals
	label := oneLine(orDefault(r.Period.Label, periodText(r.Period, loc)), 40)
	title := "finops weekly digest " + label
	if opts.Team != "" {
		title += " · team " + oneLine(opts.Team, digestNameRunes)
	}
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	if p := periodText(r.Period, loc); p != "" {
		add("%s (%s)", p, loc.String())
	}
	cost := "Cost: " + money(cur, t.Cost)
	if c := changeText(t.Cost, t.PreviousCost); c != "" {
		cost += " (" + c + ")"
	}
	add("%s", cost)
	add("Idle cost: %s (%s)", idleMoney(cur, t), idleNote(t))
	// Incomplete as every output says it (metrics.md §Coverage): a coverage
	// short of 100 % but above min_coverage is no reason, and shows as the
	// idle cost's "≥" above.
	if incomplete(r.DataQuality) {
		add("Data incomplete: %s of GPU-hours monitored", percent(t.Coverage()))
		for i, why := range r.DataQuality.Incomplete {
			if i == digestMaxReasons {
				add("- and %d more reasons (see the report)", len(r.DataQuality.Incomplete)-i)
				break
			}
			add("- %s", oneLine(why, digestReasonRunes))
		}
	}
	if opts.ReportURL != "" {
		add("Report: %s", opts.ReportURL)
	}
	acts := topActions(r.Recommendations, 0)
	if len(acts) > 0 {
		add("Savings available: %s per month", money(cur, t.MonthlySavings))
		add("Top recommendations:")
		for i, a := range acts {
			if i == opts.MaxActions {
				add("… and %d more in the report", len(acts)-i)
				break
			}
			// The id is what `finops advice done ID` takes: a lead reading
			// the chat needs it there.
			id := ""
			if a.ID != "" {
				id = " · " + oneLine(a.ID, digestIDRunes)
			}
			add("%d. %s: %s, saves %s/month%s", i+1, actionText(a.Action),
				oneLine(analysis.ShortResourceID(a.ResourceID), digestNameRunes), money(cur, a.MonthlySavings), id)
		}
	}
	lines = append(lines, digestView(audienceOf(opts.View, r, opts.Team, nil), cur)...)
	team := ""
	if opts.Team != "" {
		team = oneLine(opts.Team, digestNameRunes)
	}
	return DigestMessage{Title: title, Text: strings.Join(lines, "\n"), Team: team, Currency: cur}, nil
}

// digestView is the digest's lines of the audience's chargeback and movers,
// worded as the email and the page word them: a team's charged-back line
// (the fleet's: the bill and the pools, as a line for every team's would
// not fit), the total's or the team's
// line against the weeks before, and the first top movers.
func digestView(v *Audience, cur string) []string {
	var lines []string
	if cb := v.Chargeback; cb != nil {
		if v.Team == "" {
			// A pool of 0, or one the config spreads to nobody, is no news:
			// a healthy week's digest names only what was spread.
			line := "Charged back: the bill " + money(cur, cb.Bill)
			for _, p := range []struct {
				name, rule string
				pool       float64
			}{{"unallocated", cb.UnallocatedRule, cb.UnallocatedPool}, {"idle", cb.IdleRule, cb.IdlePool}} {
				if p.pool != 0 && p.rule != "none" {
					line += fmt.Sprintf(", %s %s spread %s", p.name, money(cur, p.pool), oneLine(p.rule, 20))
				}
			}
			lines = append(lines, line+" (each team's share in the report)")
		} else if len(cb.Rows) == 1 {
			row := cb.Rows[0]
			lines = append(lines, "Charged back: "+money(cur, row.ChargedBack)+" (direct "+money(cur, row.Direct)+
				" + shared "+money(cur, row.Unallocated)+" + shared idle "+money(cur, row.Idle)+")")
		}
	}
	m := v.Movers
	if m == nil {
		return lines
	}
	if m.NoHistory != "" {
		return append(lines, m.NoHistory)
	}
	change := func(mr MoverRow) string {
		s := money(cur, mr.Cost) + ", " + mr.Text
		if mr.Flag != "" {
			s += " — " + mr.Flag
		}
		return s
	}
	// The digest's subject is the fleet's total or the team: its own line
	// needs no name.
	own := m.Total
	if own == nil && len(m.Teams) == 1 {
		own = &m.Teams[0]
	}
	if own != nil {
		lines = append(lines, "Trend "+oneLine(m.Week, 20)+": "+change(*own))
	}
	if len(m.Top) > 0 {
		lines = append(lines, "Top movers:")
		for i, mr := range m.Top {
			if i == digestMaxRows {
				lines = append(lines, fmt.Sprintf("… and %d more in the report", len(m.Top)-i))
				break
			}
			lines = append(lines, fmt.Sprintf("%d. %s: %s (%s)", i+1, oneLine(mr.Label, digestRowRunes), change(mr), mr.Kind))
		}
	}
	return lines
}
