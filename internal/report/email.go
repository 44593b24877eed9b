package report

import (
	"bytes"
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/templates"
	"github.com/finops-oss/finops/internal/termcol"
)

// EmailOptions says what the email body links to and whom it is for.
type EmailOptions struct {
	// Team is the team whose slice (analysis.Result.ForTeam) the Result is;
	// "" for the all-teams email.
	Team string
	// ReportURL is the published HTML page (when S3 publishing is
	// configured); "" leaves the link out. Only http and https URLs are
	// accepted.
	ReportURL string
	// Attachment is the file name of the attached workbook; "" says nothing
	// about an attachment.
	Attachment string
	// OrgTotals, when set (configured per team), adds the organisation's
	// totals to a team's email for context.
	OrgTotals *analysis.Totals
	// Chargeback, when set, is the whole report's chargeback: a team's email,
	// whose slice has none, shows the team's row of it. Only read when View
	// is nil.
	Chargeback *analysis.Chargeback
	// View is the audience's chargeback and movers, the same the page, the
	// workbook and the digest of the audience show (audience.go); nil builds
	// it from the result and Chargeback.
	View *Audience
	// MaxFindings and MaxTeams bound the lists (defaults 5 and 8).
	MaxFindings, MaxTeams int
}

// EmailBody renders the weekly email: a subject line, a plain-text body and
// an HTML body (inline CSS, table layout, no scripts, no images, no external
// resources) with the KPIs, the top findings with their money, a short
// per-team table, and where to find the rest (the published page, the
// attached workbook). Sending it is publish's job.
//
// The subject reads like "[finops] 2026-W47 · ¥12,345 · idle ¥2,100 (17%)"
// ("[finops] nlp · 2026-W47 · …" for a team). Text from data in it is reduced
// to one line of printable UTF-8, so nothing from a bill can add a header.
func EmailBody(r *analysis.Result, opts EmailOptions) (subject, text, html string, err error) {
	if r == nil {
		return "", "", "", fmt.Errorf("report: nil result")
	}
	loc, err := reportZone(r)
	if err != nil {
		return "", "", "", err
	}
	if opts.ReportURL != "" {
		u, err := url.Parse(opts.ReportURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return "", "", "", fmt.Errorf("report: email: report URL %q is not an http(s) URL", oneLine(opts.ReportURL, 200))
		}
	}
	if opts.MaxFindings <= 0 {
		opts.MaxFindings = 5
	}
	if opts.MaxTeams <= 0 {
		opts.MaxTeams = 8
	}
	v := newEmailView(r, opts, loc.String(), periodText(r.Period, loc))
	subject = v.Subject

	text = emailText(v)

	var buf bytes.Buffer
	if err := templates.Email().Execute(&buf, v); err != nil {
		return "", "", "", fmt.Errorf("report: render email: %w", err)
	}
	return subject, text, buf.String(), nil
}

// emailView is the email templates' data: every value already formatted.
type emailView struct {
	Subject, Label, PeriodText, Zone, Currency, Team string
	Headline                                         string // the page's first sentence (headline)
	KPIs                                             []emailKPI
	Org                                              string
	Watch                                            string // watchLine: "" when the watch did nothing
	Energy                                           string // energyLine: "" without energy
	ChargedBack                                      bool   // the Teams table has a charged-back column
	Advice                                           []string
	Findings                                         []emailFinding
	FindingsTitle                                    string
	MoreFindings                                     int
	Teams                                            []emailTeam
	MoreTeams                                        int
	Trend                                            *emailTrend // trend_email.go
	URL, Attachment                                  string
	Warnings                                         []string
}

type emailKPI struct{ Label, Value, Note, Tone string }

type emailFinding struct{ Severity, Tone, Title, Money, Text string }

type emailTeam struct {
	Team, Cost, Idle, IdleShare, Change, Forecast, Budget, ChargedBack string
	OverBudget                                                         bool
}

func newEmailView(r *analysis.Result, opts EmailOptions, zone, period string) *emailView {
	cur, t := r.Currency, r.Totals
	v := &emailView{
		Label: r.Period.Label, PeriodText: period, Zone: zone, Currency: cur, Team: opts.Team, Headline: headline(r),
		URL: opts.ReportURL, Attachment: opts.Attachment,
	}

	v.Subject = emailSubject(r, opts.Team, period)

	util := emailKPI{Label: "Avg GPU utilization", Value: utilPct(t.AvgGPUUtilization), Note: hours(t.GPUHoursBilled) + " billed"}
	if !anyMonitored(t) {
		util.Value, util.Note = unknownText, noneMonitored
	}
	v.KPIs = []emailKPI{
		{Label: "Total cost", Value: money(cur, t.Cost), Note: changeText(t.Cost, r.Totals.PreviousCost)},
		{Label: "Idle cost", Value: idleMoney(cur, t), Note: idleNote(t), Tone: idleTone(t)},
		util,
		{Label: "Savings available", Value: money(cur, t.MonthlySavings), Note: "per month", Tone: toneIf(t.MonthlySavings > 0, "good")},
	}
	if t.UnmonitoredCost != 0 {
		v.KPIs = append(v.KPIs, emailKPI{Label: "Unmonitored cost", Value: money(cur, t.UnmonitoredCost),
			Note: percent(r.DataQuality.UnmonitoredShare) + " of GPU-hours without telemetry", Tone: "warn"})
	}
	view := audienceOf(opts.View, r, opts.Team, opts.Chargeback)
	if row := view.chargebackRow(opts.Team); opts.Team != "" && row != nil {
		v.KPIs = append(v.KPIs, chargebackKPI(cur, row))
	}
	if opts.OrgTotals != nil {
		o := *opts.OrgTotals
		v.Org = "Whole organisation: " + money(cur, o.Cost) + ", idle " + measuredMoney(cur, o.IdleCost, o.IdleReading()) +
			" (" + measuredShare(o.IdleCost, o.Cost, o.IdleReading()) + ")"
	}

	if l := watchLine(r); l != "" {
		v.Watch = "Watch: " + l + "."
	}
	v.Energy = energyLine(r)
	v.Advice = adviceNotes(r)

	v.setFindings(r, opts.MaxFindings)
	v.setTeams(r, view, opts.MaxTeams)
	v.Trend = newEmailTrend(view.Movers, cur, opts.MaxTeams)
	// Why the numbers may be wrong comes first: the sources not ok are
	// among the reasons (a result not made by analysis may lack them).
	v.Warnings = append(v.Warnings, r.DataQuality.Incomplete...)
	for _, s := range r.DataQuality.Sources {
		if w := "Source " + s.Name + " is " + s.Status + dashDetail(s.Detail); s.Status != "" && s.Status != "ok" && !slices.Contains(v.Warnings, w) {
			v.Warnings = append(v.Warnings, w)
		}
	}
	return v
}

// emailSubject is the subject line: one line, from printable text only.
func emailSubject(r *analysis.Result, team, period string) string {
	cur, t := r.Currency, r.Totals
	parts := []string{"[finops]"}
	if team != "" {
		parts = append(parts, oneLine(team, 40)+" ·")
	}
	parts = append(parts, oneLine(orDefault(r.Period.Label, period), 40),
		"· "+amount.Format(cur, t.Cost, 0),
		"· idle "+idleSubject(cur, t))
	if incomplete(r.DataQuality) {
		parts = append(parts, "· data incomplete")
	}
	return strings.Join(parts, " ")
}

// setFindings lists the top findings (the first maxFindings), or, when
// there are none, the actions that save the most.
func (v *emailView) setFindings(r *analysis.Result, maxFindings int) {
	cur := r.Currency
	v.FindingsTitle = "Top findings"
	views := findingViews(r)
	for i, f := range views {
		if i == maxFindings {
			v.MoreFindings = len(views) - i
			break
		}
		title := f.Title
		if who := cmp.Or(f.resource(), f.Team); who != "" {
			title += ": " + who
		}
		if id := adviceIDOf(r.Recommendations, f.ResourceID); id != "" && f.Kind == analysis.FindingRecommendation {
			title += " · " + id
		}
		v.Findings = append(v.Findings, emailFinding{Severity: f.Severity, Tone: sevTone(f.Severity), Title: title,
			Money: findingMoney(cur, f.Finding), Text: withOverlap(f.Text, f.Overlap)})
	}
	if len(r.Findings) == 0 {
		// Without findings, the actions that save the most are what to read.
		v.FindingsTitle = "Top actions"
		for _, a := range topActions(r.Recommendations, maxFindings) {
			title := actionText(a.Action) + ": " + analysis.ShortResourceID(a.ResourceID)
			if a.ID != "" {
				title += " · " + a.ID
			}
			v.Findings = append(v.Findings, emailFinding{Title: title,
				Money: money(cur, a.MonthlySavings) + "/mo", Text: a.Reason, Tone: "info"})
		}
	}

}

// setTeams lists the teams (the first maxTeams) with their change, budget
// and what was charged back to them.
func (v *emailView) setTeams(r *analysis.Result, view *Audience, maxTeams int) {
	cur := r.Currency
	for i, tc := range r.ByTeam {
		if i == maxTeams {
			v.MoreTeams = len(r.ByTeam) - i
			break
		}
		row := emailTeam{Team: tc.Team, Cost: money(cur, tc.Cost), Idle: measuredMoney(cur, tc.IdleCost, tc.IdleReading()),
			IdleShare: measuredShare(tc.IdleCost, tc.Cost, tc.IdleReading())}
		if tc.PreviousCost != 0 {
			row.Change = strings.TrimSuffix(changeText(tc.Cost, tc.PreviousCost), " vs previous period")
		}
		if tc.MonthForecast != 0 {
			row.Forecast = amount.Format(cur, tc.MonthForecast, 0)
		}
		if tc.Budget != nil {
			row.Budget = amount.Format(cur, *tc.Budget, 0)
			row.OverBudget = tc.MonthForecast > *tc.Budget
		}
		if c := view.chargebackRow(tc.Team); c != nil {
			row.ChargedBack, v.ChargedBack = money(cur, c.ChargedBack), true
		}
		v.Teams = append(v.Teams, row)
	}
}

func dashDetail(d string) string {
	if d == "" {
		return ""
	}
	return ": " + d
}

// writeFindingsText writes the numbered findings (or actions), each
// wrapped under its number.
func writeFindingsText(b *strings.Builder, v *emailView) {
	if len(v.Findings) == 0 {
		return
	}
	b.WriteString("\n" + v.FindingsTitle + "\n")
	for i, f := range v.Findings {
		head := fmt.Sprintf("  %d. ", i+1)
		pad := strings.Repeat(" ", len(head))
		line := ""
		if f.Severity != "" {
			line += "[" + oneLine(f.Severity, 10) + "] "
		}
		line += oneLine(f.Title, 60) + " — " + f.Money
		b.WriteString(wrap(line, 76, head, pad) + "\n")
		if f.Text != "" {
			b.WriteString(wrap(oneLine(f.Text, 600), 76, pad, pad) + "\n")
		}
	}
	if v.MoreFindings > 0 {
		fmt.Fprintf(b, "  … and %d more in the report.\n", v.MoreFindings)
	}
}

// writeTeamsText writes the teams' table, with a charged-back column when
// any team was charged back.
func writeTeamsText(b *strings.Builder, p painter, v *emailView) {
	if len(v.Teams) == 0 {
		return
	}
	b.WriteString("\nTeams\n")
	rows := make([][]cell, 0, len(v.Teams))
	for _, t := range v.Teams {
		budget := ""
		if t.Forecast != "" || t.Budget != "" {
			budget = orDefault(t.Forecast, "–") + " / " + orDefault(t.Budget, "–")
			if t.OverBudget {
				budget += " over"
			}
		}
		row := []cell{{termcol.Truncate(oneLine(t.Team, 0), 24), styleNone}, {t.Cost, styleNone}, {t.Idle, styleNone},
			{t.IdleShare, styleNone}, {t.Change, styleNone}, {budget, styleNone}}
		if v.ChargedBack {
			row = slices.Insert(row, 2, cell{orDefault(t.ChargedBack, "–"), styleNone})
		}
		rows = append(rows, row)
	}
	head, right := []string{"TEAM", "COST", "IDLE", "IDLE %", "CHANGE", "FORECAST / BUDGET"}, []bool{false, true, true, true, true, false}
	if v.ChargedBack {
		head, right = slices.Insert(head, 2, "CHARGED BACK"), slices.Insert(right, 2, true)
	}
	writeTable(b, p, head, right, rows)
	if v.MoreTeams > 0 {
		fmt.Fprintf(b, "  … and %d more teams.\n", v.MoreTeams)
	}
}

// emailText is the plain-text alternative: the same content, aligned for a
// fixed-width font, lines of at most about 76 characters except table rows.
func emailText(v *emailView) string {
	p := painter{}
	var b strings.Builder
	title := "finops GPU cost report " + oneLine(v.Label, 40)
	if v.Team != "" {
		title += " · team " + oneLine(v.Team, 40)
	}
	b.WriteString(title + "\n")
	if v.PeriodText != "" {
		b.WriteString(v.PeriodText + " (" + v.Zone + ")\n")
	}
	if v.Headline != "" {
		b.WriteString("\n" + wrap(v.Headline, 76, "", "") + "\n")
	}
	b.WriteString("\n")
	kpis := make([][]cell, 0, len(v.KPIs))
	for _, k := range v.KPIs {
		kpis = append(kpis, []cell{{k.Label, styleNone}, {k.Value, styleNone}, {k.Note, styleNone}})
	}
	writeTable(&b, p, nil, []bool{false, true, false}, kpis)
	if v.Org != "" {
		b.WriteString("\n" + wrap(v.Org, 76, "", "") + "\n")
	}
	for _, l := range v.Advice {
		b.WriteString("\n" + wrap(l, 76, "", "") + "\n")
	}
	if v.Watch != "" {
		b.WriteString("\n" + wrap(v.Watch, 76, "", "") + "\n")
	}
	if v.Energy != "" {
		b.WriteString("\n" + wrap(v.Energy, 76, "", "") + "\n")
	}

	writeFindingsText(&b, v)
	writeTeamsText(&b, p, v)

	b.WriteString(emailTrendText(v.Trend))

	if len(v.Warnings) > 0 {
		b.WriteString("\nData quality\n")
		for _, w := range v.Warnings {
			b.WriteString(wrap(oneLine(w, 300), 76, "  - ", "    ") + "\n")
		}
	}

	b.WriteString("\n")
	if v.URL != "" {
		b.WriteString("Full report: " + v.URL + "\n")
	}
	if v.Attachment != "" {
		b.WriteString("The workbook " + oneLine(v.Attachment, 120) + " is attached.\n")
	}
	b.WriteString("-- \nfinops · money in " + oneLine(v.Currency, 8) + ", rounded for display\n")
	return b.String()
}

// oneLine reduces untrusted text to one line of printable UTF-8 (control
// characters, including CR and LF, and the Unicode line and paragraph
// separators become spaces; runs of spaces collapse), at most max
// characters: safe in a mail header, and in the plain-text body, where a
// newline from data would break the layout (and could fake a line).
func oneLine(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) || r == '\u2028' || r == '\u2029' || !unicode.IsPrint(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return sanitize.Truncate(b.String(), max)
}

// wrap breaks s into lines of at most width terminal columns at spaces (a
// Chinese character takes two); the first line starts with first, the others
// with rest. A word longer than the width stays whole.
func wrap(s string, width int, first, rest string) string {
	var b strings.Builder
	b.WriteString(first)
	col := termcol.Width(first)
	for i, w := range strings.Fields(s) {
		n := termcol.Width(w)
		switch {
		case i == 0:
		case col+1+n > width:
			b.WriteString("\n" + rest)
			col = termcol.Width(rest)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += n
	}
	return b.String()
}

// withOverlap appends a finding's overlap note to its text as a sentence.
func withOverlap(text, overlap string) string {
	if overlap == "" {
		return text
	}
	if text == "" {
		return overlap
	}
	return strings.TrimSuffix(text, ".") + ". " + overlap
}

// incomplete reports whether the numbers may be wrong: a reason the
// analysis gave, or a source that is not ok (a result made elsewhere).
func incomplete(dq analysis.DataQuality) bool {
	if len(dq.Incomplete) > 0 {
		return true
	}
	for _, s := range dq.Sources {
		if s.Status != "" && s.Status != "ok" {
			return true
		}
	}
	return false
}
