package report

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/workbook"
)

// Worksheets of the rent-or-buy workbook.
const (
	sheetRentOrBuy   = "Rent-or-buy"
	sheetOwning      = "Owning cost"
	sheetSensitivity = "Sensitivity"
	sheetReviewNotes = "Notes"
)

// WriteReviewXLSX writes the rent-or-buy workbook: the verdict per GPU model,
// the owning cost by part and the prices it was compared with, the breakeven
// sensitivity, and notes (period, formulas, warnings). Utilizations are
// percent-formatted cells holding fractions (0.6 shows as 60.0%); money is in
// the review's currency at full precision.
func WriteReviewXLSX(w io.Writer, rv *analysis.Review, meta Meta) error {
	if rv == nil {
		return fmt.Errorf("report: nil review")
	}
	loc, err := reviewZone(rv)
	if err != nil {
		return err
	}
	f := excelize.NewFile()
	defer f.Close()
	st, err := newStyles(f, rv.Currency)
	if err != nil {
		return fmt.Errorf("report: xlsx styles: %w", err)
	}
	b := &book{ctx: context.Background(), f: f, st: st, loc: loc}
	if err := f.SetSheetName("Sheet1", sheetRentOrBuy); err != nil {
		return fmt.Errorf("report: xlsx: %w", err)
	}
	steps := []struct {
		sheet string
		fill  func() error
	}{
		{sheetRentOrBuy, func() error { return reviewVerdicts(b, rv) }},
		{sheetOwning, func() error { return reviewOwning(b, rv) }},
		{sheetSensitivity, func() error { return reviewSensitivity(b, rv) }},
		{sheetReviewNotes, func() error { return reviewNotes(b, rv, meta) }},
	}
	for _, s := range steps {
		if s.sheet != sheetRentOrBuy {
			if _, err := f.NewSheet(s.sheet); err != nil {
				return fmt.Errorf("report: xlsx sheet %q: %w", s.sheet, err)
			}
		}
		if err := s.fill(); err != nil {
			return fmt.Errorf("report: xlsx sheet %q: %w", s.sheet, err)
		}
		// After the table: its autofilter replaces the fit-to-page property.
		if err := b.printSetup(s.sheet); err != nil {
			return fmt.Errorf("report: xlsx: %w", err)
		}
	}
	f.SetActiveSheet(0)
	props := &excelize.DocProperties{
		Title:       "finops rent-or-buy review " + sanitize.Control(rv.Quarter.Label),
		Creator:     "finops",
		Description: "Quarterly rent-or-buy review per GPU model",
		Version:     sanitize.Control(meta.Version),
	}
	return writeWorkbook(f, w, props, meta)
}

func reviewZone(rv *analysis.Review) (*time.Location, error) { return periodZone(rv.Quarter) }

// known returns v, or a blank cell when the verdict left it unknown (no
// purchase assumptions, no price).
func rvKnown(ok bool, v float64) any {
	if !ok {
		return nil
	}
	return v
}

func rvPriced(m analysis.ModelReview) bool { return m.HourlyPrice > 0 }

func rvOwned(m analysis.ModelReview) bool { return m.Verdict != analysis.VerdictNoAssumptions }

func rvPct(p *float64) any {
	if p == nil {
		return nil
	}
	return *p / 100
}

func reviewVerdicts(b *book, rv *analysis.Review) error {
	st := b.st
	cols := []workbook.Column{
		{Title: "GPU model"}, {Title: "GPUs", Style: st.count}, {Title: "Verdict"}, {Title: "Confidence"},
		{Title: "Observed utilization", Style: st.percent}, {Title: "Previous quarter", Style: st.percent},
		{Title: "Breakeven utilization", Style: st.percent}, {Title: "Margin (points)", Style: st.hours},
		{Title: "Headroom (points)", Style: st.hours}, {Title: "Owned per GPU-month", Style: st.money},
		{Title: "Rent per GPU-month", Style: st.money}, {Title: "Rent option"},
		{Title: "Spent per GPU-month", Style: st.money}, {Title: "Savings per GPU-month", Style: st.money},
		{Title: "Savings per month (all GPUs)", Style: st.money}, {Title: "Purchase cost", Style: st.money},
		{Title: "Payback (months)", Style: st.hours}, {Title: "Coverage", Style: st.percent},
		// Telemetry (issue #25): the utilization above is a lower bound where
		// hours went unmonitored, and a quarter counts only with enough of
		// its hours seen.
		{Title: "Observed utilization reads", Width: 40}, {Title: "Observed at most", Style: st.percent},
		{Title: "Billed GPU-hours monitored", Style: st.percent}, {Title: "Quarter hours monitored", Style: st.percent},
		{Title: "Needed to count", Style: st.percent}, {Title: "Quarter counts"},
		{Title: "Previous quarter reads", Width: 40}, {Title: "Previous quarter hours monitored", Style: st.percent},
		{Title: "Previous quarter counts"},
		{Title: "Reason", Width: 80},
	}
	var rows [][]any
	for _, m := range rv.Models {
		p, o := rvPriced(m), rvOwned(m)
		payback := optional(m.PaybackMonths)
		var prevCounts any // blank without a previous quarter of data
		if m.PreviousUtilization != nil {
			prevCounts = m.PreviousVotes
		}
		rows = append(rows, []any{
			m.GPUModel, m.GPUs, verdictText(m.Verdict), m.Confidence,
			m.ObservedUtilization / 100, rvPct(m.PreviousUtilization),
			rvKnown(p, m.BreakevenUtilization/100), rvKnown(o, m.MarginPoints), rvKnown(p, m.HeadroomPoints),
			rvKnown(o, m.OwnedMonthlyPerGPU), rvKnown(p, m.RentMonthlyPerGPU), m.RentOption,
			m.CurrentMonthlyCost, rvKnown(p, m.MonthlySavingsPerGPU), rvKnown(p, m.MonthlySavings),
			rvKnown(o, m.PurchaseCost), payback, m.Coverage,
			m.ObservedText, rvKnown(m.ObservedLowerBound, m.ObservedUpperBound/100), m.MonitoredShare, m.TelemetryCoverage,
			m.MinTelemetryCoverage, m.QuarterVotes,
			m.PreviousText, optional(m.PreviousTelemetryCoverage), prevCounts,
			m.Reason,
		})
	}
	return b.table(sheetRentOrBuy, cols, rows)
}

func reviewOwning(b *book, rv *analysis.Review) error {
	st := b.st
	cols := []workbook.Column{
		{Title: "GPU model"}, {Title: "Resources"}, {Title: "Price per GPU + server share", Style: st.money},
		{Title: "Depreciation years", Style: st.hours}, {Title: "Residual", Style: st.percent},
		{Title: "Depreciation per month", Style: st.money}, {Title: "Power per month", Style: st.money},
		{Title: "Hosting per month", Style: st.money}, {Title: "Operations per month", Style: st.money},
		{Title: "Owned per GPU-month", Style: st.money},
		{Title: "Hourly price", Style: st.unitMoney}, {Title: "Hourly price source"},
		{Title: "Monthly price", Style: st.money}, {Title: "Spot price", Style: st.unitMoney},
		{Title: "Rent cost in quarter", Style: st.money}, {Title: "GPU-hours billed", Style: st.hours},
		{Title: "GPU-hours active", Style: st.hours}, {Title: "GPU-hours unmonitored", Style: st.hours},
		{Title: "Covered days", Style: st.hours}, {Title: "Quarter days", Style: st.hours},
		{Title: "Active hours per GPU-month", Style: st.hours},
	}
	var rows [][]any
	for _, m := range rv.Models {
		o, oc := rvOwned(m), m.Owned
		res := strings.Join(m.Resources, ", ")
		rows = append(rows, []any{
			m.GPUModel, res, rvKnown(o, oc.CapexPerGPU), rvKnown(o, oc.DepreciationYears), rvKnown(o, oc.Residual),
			rvKnown(o, oc.Depreciation), rvKnown(o, oc.Power), rvKnown(o, oc.Hosting), rvKnown(o, oc.Ops), rvKnown(o, oc.Total),
			rvKnown(rvPriced(m), m.HourlyPrice), m.HourlyPriceSource, optional(m.MonthlyPrice), optional(m.SpotPrice),
			m.RentCost, m.GPUHoursBilled, m.GPUHoursActive, m.GPUHoursUnmonitored, m.CoveredDays, m.QuarterDays,
			m.ActiveHoursPerMonth,
		})
	}
	return b.table(sheetOwning, cols, rows)
}

func reviewSensitivity(b *book, rv *analysis.Review) error {
	st := b.st
	cols := []workbook.Column{
		{Title: "GPU model"}, {Title: "Case"}, {Title: "Depreciation years", Style: st.hours},
		{Title: "Price per GPU + server share", Style: st.money}, {Title: "Owned per GPU-month", Style: st.money},
		{Title: "Breakeven utilization", Style: st.percent}, {Title: "Observed utilization", Style: st.percent},
		{Title: "Clears the margin"},
	}
	var rows [][]any
	for _, m := range rv.Models {
		cases := m.Sensitivity
		if m.AsConfigured != nil {
			cases = append([]analysis.Sensitivity{*m.AsConfigured}, cases...)
		}
		for _, s := range cases {
			rows = append(rows, []any{m.GPUModel, s.Case, s.DepreciationYears, s.CapexPerGPU, s.OwnedMonthlyPerGPU,
				s.BreakevenUtilization / 100, m.ObservedUtilization / 100, yesNo(s.ClearsMargin)})
		}
	}
	return b.table(sheetSensitivity, cols, rows)
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// reviewNotes lists what the review covers and how each figure is computed.
func reviewNotes(b *book, rv *analysis.Review, meta Meta) error {
	rows := [][]any{
		{"Quarter", rv.Quarter.Label},
		{"Period", periodText(rv.Quarter, b.loc) + " (" + b.loc.String() + ")"},
		{"Previous quarter", rv.PreviousQuarter.Label},
		{"Currency", rv.Currency},
	}
	if rv.InProgress && rv.AsOf != nil {
		rows = append(rows, []any{"In progress", "yes: data up to " + rv.AsOf.In(b.loc).Format("2006-01-02 15:04")})
	}
	if !meta.GeneratedAt.IsZero() {
		rows = append(rows, []any{"Generated", meta.GeneratedAt.In(b.loc).Format("2006-01-02 15:04 -07:00")})
	}
	rows = append(rows,
		[]any{"Owned per GPU-month", "(price + server share) × (1 − residual) / (years × 12) + power_kW × PUE × 730 × electricity price × load + hosting + operations"},
		[]any{"Breakeven utilization", "owned per GPU-month / (hourly price × 730 h): the share of all hours above which owning costs less than renting hourly"},
		[]any{"Observed utilization", "active GPU-hours / (GPUs × covered hours): the share of all hours a card was busy"},
		[]any{"Rent per GPU-month", "the cheapest of hourly (active h × hourly price × (1 + release slack)), monthly, and spot for interruptible work, at the observed usage"},
		[]any{"Payback", "purchase cost per GPU / (rent per GPU-month − power − hosting − operations)"},
		[]any{"Lower bound", "an unmonitored GPU-hour counts as not busy, so with gaps in telemetry the observed utilization is at least what is shown (≥); 'observed at most' is what it would be had every unmonitored hour been busy"},
		[]any{"Quarter hours monitored", "covered share of the quarter × monitored share of the billed GPU-hours: a quarter counts (supports or vetoes a verdict) only at or above the purchase's min_coverage (default 50%)"},
		[]any{"Verdict", "buy only when the observed utilization beats breakeven by the margin, in this quarter and in the previous one where it counts, with at least two thirds of the quarter covered; this quarter not counting is 'not enough data', the previous one not counting is left out of the verdict"},
	)
	for _, w := range rv.Warnings {
		rows = append(rows, []any{"Warning", w})
	}
	return b.table(sheetReviewNotes, []workbook.Column{{Title: "Item"}, {Title: "Value", Width: 100}}, rows)
}
