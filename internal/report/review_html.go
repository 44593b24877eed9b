package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/sanitize"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/templates"
)

// WriteReviewHTML writes the rent-or-buy review as one self-contained HTML
// page: inline CSS, tables and an inline SVG bar chart, no scripts, nothing
// loaded from the network. html/template escapes every value for its context.
func WriteReviewHTML(w io.Writer, rv *analysis.Review, meta Meta) error {
	if rv == nil {
		return fmt.Errorf("report: nil review")
	}
	loc, err := reviewZone(rv)
	if err != nil {
		return err
	}
	p := newReviewPage(rv, meta, loc)
	var buf bytes.Buffer
	if err := templates.Review().Execute(&buf, p); err != nil {
		return fmt.Errorf("report: render review html: %w", err)
	}
	if _, err := io.WriteString(w, sanitize.Document(buf.String())); err != nil { // no invisible character from the data
		return fmt.Errorf("report: write review html: %w", err)
	}
	return nil
}

// reviewPage is the template's view: every value preformatted.
type reviewPage struct {
	Title, Label, PeriodText, Zone, Currency, PreviousLabel string
	GeneratedAt, Version, InProgress                        string
	KPIs                                                    []kpiCard
	Models                                                  []reviewModel
	Warnings                                                []string

	Bars                                  []reviewBar
	Ticks                                 []reviewTick
	ChartWidth, ChartHeight, AxisY, TickY int
}

type reviewModel struct {
	GPU, GPUs, Verdict, VerdictTone, Confidence, ConfTone, Reason          string
	Observed, Previous, Breakeven, Margin, Headroom                        string
	ObservedNote, PreviousNote, ObservedText, PreviousText, Telemetry      string
	Owned, Rent, RentOption, Spent, Savings, SavingsAll, Purchase, Payback string
	Coverage, CoveredDays, QuarterDays, Resources, Billed, Active          string
	Unmonitored, ActivePerMonth, RentCost                                  string
	HourlyPrice, HourlySource, MonthlyPrice, SpotPrice                     string
	HasOwned                                                               bool
	Capex, Residual, Years, Depreciation, Power, Hosting, Ops              string
	Sensitivity                                                            []reviewSens
}

type reviewSens struct{ Case, Years, Capex, Owned, Breakeven, Clears string }

// reviewBar is one GPU model's row of the SVG chart; x positions in user units.
type reviewBar struct {
	Title, Label                    string
	X0, Now, Prev, BE, Need         float64
	GapX, Gap                       float64 // the unmonitored hours that may have been busy: Now to the upper bound
	Y, PrevY, TextY, LineY0, LineY1 int
	HasPrev, HasBreakeven, HasGap   bool
}

type reviewTick struct {
	X     float64
	Label string
}

// Chart geometry: labels on the left, a 0–100% scale to the right.
const (
	barLabelW = 150.0
	barScaleW = 400.0
	barRowH   = 34
)

func newReviewPage(rv *analysis.Review, meta Meta, loc *time.Location) *reviewPage {
	cur := rv.Currency
	p := &reviewPage{
		Title: "finops rent-or-buy review " + rv.Quarter.Label, Label: rv.Quarter.Label,
		PeriodText: periodText(rv.Quarter, loc), Zone: loc.String(), Currency: cur,
		PreviousLabel: rv.PreviousQuarter.Label, Version: meta.Version,
	}
	for _, w := range rv.Warnings {
		p.Warnings = append(p.Warnings, sanitize.Control(w))
	}
	if !meta.GeneratedAt.IsZero() {
		p.GeneratedAt = meta.GeneratedAt.In(loc).Format("2006-01-02 15:04 -07:00")
	}
	if rv.InProgress && rv.AsOf != nil {
		p.InProgress = fmt.Sprintf("%s is still in progress: this review covers it up to %s, and no purchase is advised on less than two thirds of a quarter.",
			rv.Quarter.Label, rv.AsOf.In(loc).Format("2006-01-02 15:04"))
	}

	buys, waits := 0, 0
	var saving, purchase float64
	for _, m := range rv.Models {
		switch m.Verdict {
		case analysis.VerdictBuy:
			buys++
			saving += m.MonthlySavings
			purchase += m.PurchaseCost
		case analysis.VerdictInsufficientData, analysis.VerdictNoPrice, analysis.VerdictNoAssumptions:
			waits++
		}
	}
	p.KPIs = []kpiCard{
		{Label: "GPU models reviewed", Value: strconv.Itoa(len(rv.Models))},
		{Label: "Buy verdicts", Value: strconv.Itoa(buys), Tone: toneIf(buys > 0, "good")},
		{Label: "Monthly savings if bought", Value: money(cur, saving), Note: "buy verdicts only", Tone: toneIf(saving > 0, "good")},
		{Label: "Purchase cost", Value: money(cur, purchase), Note: "buy verdicts only"},
	}
	if waits > 0 {
		p.KPIs = append(p.KPIs, kpiCard{Label: "Without a verdict", Value: strconv.Itoa(waits), Note: "missing data, price or assumptions", Tone: "warn"})
	}

	y := 8
	for _, m := range rv.Models {
		p.Models = append(p.Models, reviewModelView(m, cur))
		b := reviewBar{
			Title: fmt.Sprintf("%s: %s observed", sanitize.Control(m.GPUModel), sanitize.Control(m.ObservedText)),
			Label: sanitize.Terminal(m.GPUModel, 20), X0: barLabelW, Now: barWidth(m.ObservedUtilization),
			Y: y, PrevY: y + 16, TextY: y + 12, LineY0: y - 4, LineY1: y + 26,
		}
		// A lower bound is drawn with its gap: the bar to what telemetry saw
		// busy, a pale extension to what the unmonitored hours could add.
		if m.ObservedLowerBound && m.ObservedUpperBound > m.ObservedUtilization {
			b.HasGap, b.GapX = true, barLabelW+b.Now
			b.Gap = math.Max(0, barWidth(m.ObservedUpperBound)-b.Now)
			b.Title += fmt.Sprintf(", at most %s had every unmonitored hour been busy", percent(m.ObservedUpperBound/100))
		}
		if m.PreviousUtilization != nil {
			b.HasPrev, b.Prev = true, barWidth(*m.PreviousUtilization)
			b.Title += fmt.Sprintf(", %s previous quarter", sanitize.Control(m.PreviousText))
		}
		if m.BreakevenUtilization > 0 {
			b.HasBreakeven = true
			b.BE = barLabelW + barWidth(m.BreakevenUtilization)
			b.Need = barLabelW + barWidth(m.BreakevenUtilization+m.MarginPoints)
			b.Title += fmt.Sprintf(", breakeven %s, buy above %s", percent(m.BreakevenUtilization/100),
				percent(math.Min(m.BreakevenUtilization+m.MarginPoints, 100)/100))
		}
		p.Bars = append(p.Bars, b)
		y += barRowH
	}
	p.ChartWidth = int(barLabelW + barScaleW + 30)
	p.AxisY = y
	p.TickY = y + 14
	p.ChartHeight = y + 20
	for _, v := range []float64{0, 25, 50, 75, 100} {
		p.Ticks = append(p.Ticks, reviewTick{X: barLabelW + barWidth(v), Label: strconv.Itoa(int(v)) + "%"})
	}
	return p
}

// barWidth maps a 0–100 utilization onto the chart scale, clamped.
func barWidth(u float64) float64 {
	if math.IsNaN(u) {
		return 0
	}
	return math.Round(math.Max(0, math.Min(u, 100))*barScaleW/100*10) / 10
}

func reviewModelView(m analysis.ModelReview, cur string) reviewModel {
	priced, hasOwned := m.HourlyPrice > 0, m.Verdict != analysis.VerdictNoAssumptions
	pct := func(v float64) string { return percent(v / 100) }
	orBlank := func(ok bool, s string) string {
		if ok {
			return s
		}
		return "—"
	}
	points := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + " points" }
	v := reviewModel{
		GPU: sanitize.Control(m.GPUModel), GPUs: strconv.Itoa(m.GPUs), Verdict: verdictText(m.Verdict), VerdictTone: verdictTone(m.Verdict),
		Confidence: m.Confidence, ConfTone: confTone(m.Confidence), Reason: sanitize.Control(m.Reason),
		Observed: pct(m.ObservedUtilization), Previous: "no data",
		ObservedText: sanitize.Control(m.ObservedText), PreviousText: sanitize.Control(m.PreviousText),
		Breakeven: orBlank(priced, pct(m.BreakevenUtilization)), Margin: orBlank(hasOwned, points(m.MarginPoints)),
		Headroom: orBlank(priced, points(m.HeadroomPoints)),
		Owned:    orBlank(hasOwned, money(cur, m.OwnedMonthlyPerGPU)), Rent: orBlank(priced, money(cur, m.RentMonthlyPerGPU)),
		RentOption: m.RentOption, Spent: money(cur, m.CurrentMonthlyCost),
		Savings: orBlank(priced, money(cur, m.MonthlySavingsPerGPU)), SavingsAll: orBlank(priced, money(cur, m.MonthlySavings)),
		Purchase: orBlank(hasOwned, money(cur, m.PurchaseCost)), Payback: "never",
		Coverage: percent(m.Coverage), CoveredDays: strconv.FormatFloat(m.CoveredDays, 'f', 0, 64),
		QuarterDays: strconv.FormatFloat(m.QuarterDays, 'f', 0, 64), Resources: sanitize.Control(strings.Join(m.Resources, ", ")),
		Billed: hours(m.GPUHoursBilled), Active: hours(m.GPUHoursActive), Unmonitored: hours(m.GPUHoursUnmonitored),
		ActivePerMonth: hours(m.ActiveHoursPerMonth), RentCost: money(cur, m.RentCost),
		HourlyPrice: orBlank(priced, unitMoney(cur, m.HourlyPrice)), HourlySource: sanitize.Control(m.HourlyPriceSource),
		MonthlyPrice: "—", SpotPrice: "—", HasOwned: hasOwned,
	}
	// The table reads "≥ 19.1%" over a short note ("46% monitored"); the
	// facts give the whole reading. Reviews written before issue #25 have no
	// texts: they fall back to the bare figures.
	if m.ObservedText != "" {
		val, note := analysis.UtilizationReading(m.ObservedUtilization, m.MonitoredShare)
		v.Observed, v.ObservedNote = val, shortMonitored(note, m.MonitoredShare)
	} else {
		v.ObservedText = v.Observed
	}
	if m.PreviousUtilization != nil {
		v.Previous = pct(*m.PreviousUtilization)
		if m.PreviousMonitoredShare != nil {
			val, note := analysis.UtilizationReading(*m.PreviousUtilization, *m.PreviousMonitoredShare)
			v.Previous, v.PreviousNote = val, shortMonitored(note, *m.PreviousMonitoredShare)
			if !m.PreviousVotes {
				v.PreviousNote = "not counted"
			}
		}
	}
	if v.PreviousText == "" {
		v.PreviousText = v.Previous
	}
	v.Telemetry = fmt.Sprintf("%s of the billed GPU-hours monitored, %s of the quarter's hours (%s needed for the quarter to count)",
		percentWhole(m.MonitoredShare), percentWhole(m.TelemetryCoverage), percentWhole(m.MinTelemetryCoverage))
	if m.ObservedLowerBound {
		v.Telemetry += fmt.Sprintf("; had every unmonitored hour been busy, utilization would be %s", pct(m.ObservedUpperBound))
	}
	if m.PaybackMonths != nil {
		v.Payback = strconv.FormatFloat(*m.PaybackMonths, 'f', 1, 64) + " months"
	}
	if !priced {
		v.Payback = "—"
	}
	if m.MonthlyPrice != nil {
		v.MonthlyPrice = money(cur, *m.MonthlyPrice)
	}
	if m.SpotPrice != nil {
		v.SpotPrice = unitMoney(cur, *m.SpotPrice)
	}
	if hasOwned {
		oc := m.Owned
		v.Capex, v.Residual = money(cur, oc.CapexPerGPU), percent(oc.Residual)
		v.Years = strconv.FormatFloat(oc.DepreciationYears, 'f', -1, 64)
		v.Depreciation, v.Power = money(cur, oc.Depreciation), money(cur, oc.Power)
		v.Hosting, v.Ops = money(cur, oc.Hosting), money(cur, oc.Ops)
	}
	for _, s := range m.Sensitivity {
		v.Sensitivity = append(v.Sensitivity, reviewSens{
			Case: s.Case, Years: strconv.FormatFloat(s.DepreciationYears, 'f', -1, 64), Capex: money(cur, s.CapexPerGPU),
			Owned: money(cur, s.OwnedMonthlyPerGPU), Breakeven: pct(s.BreakevenUtilization), Clears: yesNo(s.ClearsMargin),
		})
	}
	return v
}

// shortMonitored is the table's note under a lower bound: "46% monitored".
func shortMonitored(note string, share float64) string {
	if note == "" || share <= 0 {
		return note
	}
	return percentWhole(share) + " monitored"
}

// verdictTone maps a verdict to a CSS class suffix from a fixed set, so data
// never chooses class names.
func verdictTone(v string) string {
	switch v {
	case analysis.VerdictBuy:
		return "buy"
	case analysis.VerdictKeepRenting:
		return "rent"
	}
	return "none"
}
