package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/termcol"
)

// WriteSummary writes a compact plain-text summary for the terminal: headline
// totals, the five most expensive resources with their idle cost, the five
// top findings and the three actions that save the most, with their advice
// ids. color enables ANSI colour; the caller decides (e.g. isatty and
// NO_COLOR), this package never looks at the terminal.
//
// meta.Team names the team of a team's slice in the title; the other Meta
// fields are not used.
func WriteSummary(w io.Writer, r *analysis.Result, meta Meta, color bool) error {
	if r == nil {
		return fmt.Errorf("report: nil result")
	}
	loc, err := reportZone(r)
	if err != nil {
		return err
	}
	p := painter{on: color}
	cur, t := r.Currency, r.Totals
	var b strings.Builder

	title := "finops " + sanitize.Terminal(r.Period.Label, 40)
	if meta.Team != "" {
		title += " · team " + sanitize.Terminal(meta.Team, 40)
	}
	if pt := periodText(r.Period, loc); pt != "" {
		title += " · " + pt + " (" + loc.String() + ")"
	}
	b.WriteString(p.paint(styleBold, title) + "\n\n")
	if inc := r.DataQuality.Incomplete; len(inc) > 0 {
		b.WriteString(p.paint(styleRed, "Data incomplete: these figures may be wrong") + "\n")
		for _, x := range inc {
			b.WriteString("  - " + sanitize.Terminal(x, 300) + "\n")
		}
		b.WriteString("\n")
	}

	idleStyle := map[string]termStyle{"bad": styleRed, "warn": styleYellow}[idleTone(t)]
	savingsStyle := styleNone
	if t.MonthlySavings > 0 {
		savingsStyle = styleGreen
	}
	kpis := [][]cell{
		{{"Total cost", styleNone}, {money(cur, t.Cost), styleBold}, {changeText(t.Cost, r.Totals.PreviousCost), styleNone}},
		{{"GPU cost", styleNone}, {money(cur, t.GPUCost), styleNone}, {hours(t.GPUHoursBilled) + " billed", styleNone}},
		{{"Idle cost", styleNone}, {idleMoney(cur, t), idleStyle}, {idleTermNote(t), styleNone}},
		{{"Unmonitored cost", styleNone}, {money(cur, t.UnmonitoredCost), styleNone}, {percent(r.DataQuality.UnmonitoredShare) + " of GPU-hours", styleNone}},
		{{"Unallocated cost", styleNone}, {money(cur, t.UnallocatedCost), styleNone}, {"GPU time no task held", styleNone}},
		{{"Allocated but idle", styleNone}, {measuredMoney(cur, t.AllocatedIdleCost, analysis.AllocatedIdleReading(r.Tasks)), styleNone}, {"tasks held GPUs they did not use", styleNone}},
		{{"Unused commitments", styleNone}, {money(cur, t.UnusedCommitmentCost), styleNone}, {"", styleNone}},
		{{"Avg GPU utilization", styleNone}, {measuredUtil(t.AvgGPUUtilization, t.IdleReading()), styleNone}, {utilTermNote(t), styleNone}},
		{{"Savings available", styleNone}, {money(cur, t.MonthlySavings), savingsStyle}, {"per month", styleNone}},
	}
	writeTable(&b, p, nil, []bool{false, true, false}, kpis)
	writeShards(&b, p, r)
	if l := watchLine(r); l != "" {
		b.WriteString("\n" + p.paint(styleBold, "Watch") + ": " + l + "\n")
	}

	if top := topResources(r.ByResource, 5); len(top) > 0 {
		b.WriteString("\n" + p.paint(styleBold, "Top resources by cost") + "\n")
		rows := make([][]cell, 0, len(top))
		for _, rc := range top {
			rows = append(rows, []cell{
				{sanitize.Terminal(analysis.ShortResourceID(rc.ResourceID), 32), styleNone},
				{sanitize.Terminal(gpuText(rc.GPUModel, rc.GPUCount), 20), styleNone},
				{money(cur, rc.Cost), styleNone},
				{measuredMoney(cur, rc.IdleCost, rc.IdleReading()), toneStyle(rc.IdleCost > 0 || !rc.IdleReading().Known(), styleYellow)},
				{measuredUtil(rc.AvgUtilization, rc.IdleReading()), styleNone},
			})
		}
		writeTable(&b, p, []string{"RESOURCE", "GPU", "COST", "IDLE COST", "UTIL"}, []bool{false, false, true, true, true}, rows)
	}

	// Findings other than rent-mode changes: those are the actions below.
	var finds []analysis.Finding
	for _, f := range r.Findings {
		if f.Kind != analysis.FindingRecommendation {
			finds = append(finds, f)
		}
	}
	if len(finds) > 0 {
		n := min(len(finds), 5)
		b.WriteString("\n" + p.paint(styleBold, "Top findings") + "\n")
		rows := make([][]cell, 0, n)
		for _, f := range finds[:n] {
			rows = append(rows, []cell{
				{sanitize.Terminal(findingTitle(f, r.Recommendations), 22), sevStyle(f.Severity)},
				{sanitize.Terminal(orDefault(analysis.ShortResourceID(f.ResourceID), f.Team), 32), styleNone},
				{findingMoney(cur, f), styleNone},
				{sanitize.Terminal(f.Text, 64), styleNone},
			})
		}
		writeTable(&b, p, []string{"FINDING", "WHERE", "MONEY", "WHAT TO DO"}, []bool{false, false, true, false}, rows)
		if more := len(finds) - n; more > 0 {
			fmt.Fprintf(&b, "  … and %d more in the workbook's Findings sheet\n", more)
		}
	}

	if acts := topActions(r.Recommendations, 3); len(acts) > 0 {
		b.WriteString("\n" + p.paint(styleBold, "Top actions") + "\n")
		rows := make([][]cell, 0, len(acts))
		for _, a := range acts {
			rows = append(rows, []cell{
				{actionText(sanitize.Terminal(a.Action, 24)), styleNone},
				{sanitize.Terminal(analysis.ShortResourceID(a.ResourceID), 32), styleNone},
				// What `finops advice done ID` takes.
				{sanitize.Terminal(a.ID, 16), styleNone},
				{money(cur, a.MonthlySavings) + "/mo", styleGreen},
				{sanitize.Terminal(a.Reason, 70), styleNone},
			})
		}
		writeTable(&b, p, []string{"ACTION", "RESOURCE", "ADVICE ID", "SAVES", "WHY"}, []bool{false, false, false, true, false}, rows)
	} else {
		b.WriteString("\nNo action would save money at the current usage.\n")
	}
	for _, l := range adviceNotes(r) {
		b.WriteString(l + "\n")
	}

	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("report: write summary: %w", err)
	}
	return nil
}

type termStyle int

const (
	styleNone termStyle = iota
	styleBold
	styleGreen
	styleYellow
	styleRed
)

// SGR sequences take no column in termcol's widths.
var sgr = [...]string{
	styleNone:   "\x1b[39m",
	styleBold:   "\x1b[01m",
	styleGreen:  "\x1b[32m",
	styleYellow: "\x1b[33m",
	styleRed:    "\x1b[31m",
}

const sgrReset = "\x1b[0m"

type painter struct{ on bool }

func (p painter) paint(s termStyle, text string) string {
	if !p.on {
		return text
	}
	return sgr[s] + text + sgrReset
}

type cell struct {
	text  string
	style termStyle
}

func sevStyle(s string) termStyle {
	switch s {
	case "high":
		return styleRed
	case "medium":
		return styleYellow
	}
	return styleNone
}

func toneStyle(ok bool, s termStyle) termStyle {
	if ok {
		return s
	}
	return styleNone
}

// writeTable aligns rows by display width (termcol: a Chinese name takes two
// columns a character). Right-aligned columns are padded here, because the
// writer aligns all cells the same way.
func writeTable(b *strings.Builder, p painter, header []string, right []bool, rows [][]cell) {
	all := rows
	if header != nil {
		h := make([]cell, len(header))
		for i, s := range header {
			h[i] = cell{s, styleBold}
		}
		all = append([][]cell{h}, rows...)
	}
	widths := map[int]int{}
	for _, row := range all {
		for i, c := range row {
			widths[i] = max(widths[i], termcol.Width(c.text))
		}
	}
	tw := termcol.NewWriter(b)
	for _, row := range all {
		parts := make([]string, len(row))
		for i, c := range row {
			text := c.text
			if i < len(right) && right[i] {
				text = strings.Repeat(" ", widths[i]-termcol.Width(text)) + text
			}
			parts[i] = p.paint(c.style, text)
		}
		// Trailing empty cells would only add trailing blanks.
		for len(parts) > 0 && row[len(parts)-1].text == "" {
			parts = parts[:len(parts)-1]
		}
		fmt.Fprintln(tw, "  "+strings.Join(parts, "\t"))
	}
	tw.Flush()
}

// idleTermNote is the idle KPI's note in the terminal: its share of the
// total and its idle hours, "—" and no hours where nobody measured it.
func idleTermNote(t analysis.Totals) string {
	m := t.IdleReading()
	if !m.Known() {
		return unknownShare + " of total: " + noneMonitored
	}
	return measuredShare(t.IdleCost, t.Cost, m) + " of total, " + hours(t.GPUHoursIdle)
}

// utilTermNote says over what the utilization is a mean where not all of
// the billed GPU-hours were monitored.
func utilTermNote(t analysis.Totals) string {
	if m := t.IdleReading(); m.LowerBound() {
		return "over the " + percent(t.Coverage()) + " of GPU-hours monitored"
	}
	return ""
}
