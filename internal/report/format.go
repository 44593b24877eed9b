package report

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
)

// Display formatting shared by the HTML page and the terminal summary. Money is
// rounded here, for display; the JSON rounds to the minor unit only.

// money formats an amount with two decimals (amount.Format): "¥12,345.67",
// "-$3.50", "1,200.00 CHF".
func money(currency string, v float64) string { return amount.Format(currency, v, 2) }

// unitMoney formats a unit cost, which is often a fraction of a cent per unit.
func unitMoney(currency string, v float64) string {
	prec := 2
	if a := math.Abs(v); a != 0 && a < 1 {
		prec = 4
	}
	return amount.Format(currency, v, prec)
}

// percent formats a 0–1 share as "17.0%".
func percent(share float64) string {
	if math.IsNaN(share) || math.IsInf(share, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(share*100, 'f', 1, 64) + "%"
}

// utilPct formats a 0–100 utilization as "42.5%".
func utilPct(u float64) string {
	return percent(u / 100)
}

// hours formats GPU-hours with one decimal: "1,234.5 h".
func hours(h float64) string {
	sign := ""
	if h < 0 {
		sign, h = "-", -h
	}
	return sign + amount.Group(h, 1) + " h"
}

// share returns part/whole, or 0 when whole is 0 (an empty window has no share).
func share(part, whole float64) float64 {
	if whole == 0 {
		return 0
	}
	return part / whole
}

// idleShare is the idle cost as a share of the total cost, the figure the email
// subject quotes ("idle ¥2,100 (17%)").
func idleShare(t analysis.Totals) float64 {
	return share(t.IdleCost, t.Cost)
}

// idleTone grades the idle share of cost for the KPI's colour: "bad" from a
// quarter, "warn" from a tenth, else "".
func idleTone(t analysis.Totals) string {
	switch s := idleShare(t); {
	case s >= 0.25:
		return "bad"
	case s >= 0.10:
		return "warn"
	}
	return ""
}

// actionText is the human wording of a recommendation action (analysis's
// one table, shared with `finops advice`).
func actionText(action string) string { return analysis.ActionText(action) }

// reportZone loads the report's time zone; "" means UTC (metrics.md default).
func reportZone(r *analysis.Result) (*time.Location, error) { return periodZone(r.Period) }

// periodZone is the time zone a period is reported in (UTC when unnamed).
func periodZone(p analysis.Period) (*time.Location, error) {
	if p.TimeZone == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(p.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("report: time zone %q: %w", p.TimeZone, err)
	}
	return loc, nil
}

// periodText is "2026-11-16 – 2026-11-22" in the report zone. The window end is
// exclusive, so a window ending at midnight shows the day before as its last day.
func periodText(p analysis.Period, loc *time.Location) string {
	if p.Start.IsZero() && p.End.IsZero() {
		return ""
	}
	start := p.Start.In(loc)
	end := p.End.In(loc)
	if end.After(start) && end.Hour() == 0 && end.Minute() == 0 && end.Second() == 0 && end.Nanosecond() == 0 {
		end = end.Add(-time.Nanosecond)
	}
	a, b := start.Format("2006-01-02"), end.Format("2006-01-02")
	if a == b {
		return a
	}
	return a + " – " + b
}

// resourceLabel is how a resource is named in charts and tables: its name
// and the short form of its id (a cloud path's last segment; the workbook and
// the JSON keep the full id).
func resourceLabel(rc analysis.ResourceCost) string {
	short := analysis.ShortResourceID(rc.ResourceID)
	if rc.ResourceName != "" && rc.ResourceName != rc.ResourceID && rc.ResourceName != short {
		return rc.ResourceName + " (" + short + ")"
	}
	return short
}

// findingKindText is the human wording of a finding kind.
func findingKindText(kind string) string {
	switch kind {
	case analysis.FindingRecommendation:
		return "Rent-mode change"
	case analysis.FindingForgotten:
		return "Forgotten instance"
	case analysis.FindingAllocatedIdle:
		return "Allocated but idle"
	case analysis.FindingUnallocated:
		return "Unallocated GPU time"
	case analysis.FindingSaturated:
		return "Saturated GPU"
	case analysis.FindingSpendSpike:
		return "Spend spike"
	case analysis.FindingBudget:
		return "Over budget forecast"
	case analysis.FindingUnusedCommit:
		return "Unused commitment"
	case analysis.FindingNoTelemetry:
		return "No telemetry"
	}
	return actionText(kind)
}

// findingBasis says what a finding's money is: recommendations are monthly
// savings, everything else an amount in the report window.
func findingBasis(kind string) string {
	if kind == analysis.FindingRecommendation {
		return "per month"
	}
	return "in period"
}

// findingMoney is a finding's amount with its basis: "¥4,218.45/mo" or "¥2,100.00".
func findingMoney(currency string, f analysis.Finding) string {
	if f.Kind == analysis.FindingRecommendation {
		return money(currency, f.Money) + "/mo"
	}
	return money(currency, f.Money)
}

// severityRank orders severities high first; unknown ones last.
func severityRank(s string) int {
	switch s {
	case "high":
		return 0
	case "medium":
		return 1
	case "low":
		return 2
	}
	return 3
}

// utilBand names the metrics.md utilization band of a 0–100 utilization.
func utilBand(u float64) string {
	switch {
	case u < 10:
		return "idle"
	case u < 50:
		return "low"
	case u < 80:
		return "fair"
	case u <= 95:
		return "target"
	}
	return "saturated"
}

// change is now relative to prev (0.1 = +10%); false when there is no
// previous figure to compare with.
func change(now, prev float64) (float64, bool) {
	if prev == 0 {
		return 0, false
	}
	return now/prev - 1, true
}

// changeText is "+12.3% vs previous period", or "" when there is no previous figure.
func changeText(now, prev float64) string {
	c, ok := change(now, prev)
	if !ok {
		return ""
	}
	sign := "+"
	if c < 0 {
		sign = "-"
		c = -c
	}
	return sign + percent(c) + " vs previous period"
}

// noneMonitored is what the utilization KPI says where no billed GPU-hour
// had telemetry: an average of nothing is not 0 %.
const noneMonitored = "no GPU-hour was monitored"

// anyMonitored reports whether some billed GPU-hour of t had telemetry.
func anyMonitored(t analysis.Totals) bool { return t.GPUHoursBilled-t.GPUHoursUnmonitored > 0 }

// idleMoney is the idle cost as a reader may take it: "unknown" when no
// billed GPU-hour was monitored, "≥ ¥1,234" when only some were (the
// unmonitored hours may have been idle too), else the amount.
func idleMoney(cur string, t analysis.Totals) string {
	switch {
	case !t.IdleKnown():
		return "unknown"
	case t.IdleLowerBound():
		return "≥ " + money(cur, t.IdleCost)
	}
	return money(cur, t.IdleCost)
}

// idleNote is the idle KPI's note: its share of cost, and how much of the
// GPU time telemetry saw when not all of it.
func idleNote(t analysis.Totals) string {
	switch {
	case !t.IdleKnown():
		return noneMonitored
	case t.IdleLowerBound():
		return percent(idleShare(t)) + " of total cost; " + percent(t.Coverage()) + " of GPU-hours monitored"
	}
	return percent(idleShare(t)) + " of total cost"
}

// idleSubject is the idle part of an email subject: never "¥0 (0%)" for
// GPUs nobody monitored.
func idleSubject(cur string, t analysis.Totals) string {
	switch {
	case !t.IdleKnown():
		return "unknown (no telemetry)"
	case t.IdleLowerBound():
		return "≥ " + amount.Format(cur, t.IdleCost, 0) + " (" + percentWhole(idleShare(t)) + ")"
	}
	return amount.Format(cur, t.IdleCost, 0) + " (" + percentWhole(idleShare(t)) + ")"
}

// rateText is an exchange rate as a reader checks it against the config:
// "1 USD = 7.1 CNY", the rate as configured (no rounding).
func rateText(x analysis.ExchangeRate, currency string) string {
	return "1 " + x.Currency + " = " + strconv.FormatFloat(x.Rate, 'f', -1, 64) + " " + currency
}
