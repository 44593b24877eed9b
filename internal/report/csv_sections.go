package report

import (
	"strconv"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// The CSV tables of the report's optional sections (issue #27): each is
// written only when the result has its section, as the JSON has its key —
// trend with report.trend_weeks, chargeback and allocation with their
// config, energy when some GPU-minute had a power reading. csvTablesOf is the
// one list both WriteAll and CSVNames read, so a run never looks for a table
// that was not written.

// csvPresent reports whether r has table's section; the five base tables
// are always written.
func csvPresent(r *analysis.Result, table string) bool {
	switch table {
	case "trend":
		return r.Trend != nil
	case "chargeback":
		return r.Chargeback != nil
	case "allocation":
		return len(r.Allocation) > 0
	case "energy":
		return r.Energy != nil
	}
	return true
}

// csvTablesOf are the tables of r's CSV export, in csvTables' order.
func csvTablesOf(r *analysis.Result) []string {
	var out []string
	for _, t := range csvTables {
		if csvPresent(r, t) {
			out = append(out, t)
		}
	}
	return out
}

// csvSectionTable is an optional table's header and rows; ok is false for a
// table that is none of them.
func csvSectionTable(r *analysis.Result, table string, loc *time.Location) (header []string, rows [][]string, ok bool) {
	cur := csvText(r.Currency)
	switch table {
	case "trend":
		// Long format: the total's row and each team's, per week.
		var weeks []analysis.TrendWeek
		if r.Trend != nil {
			weeks = r.Trend.Weeks
		}
		for _, w := range weeks {
			lead := []string{csvText(w.Label), w.Start.In(loc).Format("2006-01-02"), w.End.In(loc).AddDate(0, 0, -1).Format("2006-01-02")}
			rows = append(rows, append(append([]string(nil), lead...), "total", "", cur, amountCell(cur, w.Cost),
				measuredAmountCell(cur, w.IdleCost, w.IdleReading()), number(w.Coverage), strconv.FormatBool(w.IdleLowerBound), csvText(w.Anomaly)))
			for _, t := range w.Teams {
				rows = append(rows, append(append([]string(nil), lead...), "team", csvText(t.Team), cur, amountCell(cur, t.Cost),
					measuredAmountCell(cur, t.IdleCost, t.IdleReading()), number(t.Coverage), strconv.FormatBool(t.IdleLowerBound), csvText(t.Anomaly)))
			}
		}
		return []string{"week", "week_start", "week_end", "scope", "team", "currency", "cost", "idle_cost", "coverage",
			"idle_lower_bound", "anomaly"}, rows, true
	case "chargeback":
		if cb := r.Chargeback; cb != nil {
			for _, t := range cb.Teams {
				rows = append(rows, []string{csvText(t.Team), cur, amountCell(cur, t.Direct), amountCell(cur, t.Unallocated),
					amountCell(cur, t.Idle), amountCell(cur, t.ChargedBack), csvText(cb.UnallocatedRule), csvText(cb.IdleRule)})
			}
		}
		return []string{"team", "currency", "direct", "unallocated", "idle", "charged_back", "unallocated_rule", "idle_rule"},
			rows, true
	case "allocation":
		for _, a := range r.Allocation {
			for _, g := range a.Groups {
				rows = append(rows, []string{csvText(a.Dimension), csvText(g.Value), cur, amountCell(cur, g.Cost), number(g.Share)})
			}
		}
		return []string{"dimension", "value", "currency", "cost", "share"}, rows, true
	case "energy":
		if e := r.Energy; e != nil {
			row := func(scope, name, team, provider, region string, u analysis.EnergyUse, intensity *float64) []string {
				return []string{scope, csvText(name), csvText(team), csvText(provider), csvText(region), optNumber(u.KWh),
					number(u.PowerCoverage), strconv.FormatBool(u.LowerBound), optNumber(u.CO2eKg), optNumber(intensity),
					number(e.PUE)}
			}
			rows = append(rows, row("total", "", "", "", "", e.Total, nil))
			for _, t := range e.ByTeam {
				rows = append(rows, row("team", t.Team, t.Team, "", "", t.EnergyUse, nil))
			}
			for _, rc := range e.ByResource {
				rows = append(rows, row("resource", rc.ResourceID, rc.Team, rc.Provider, rc.Region, rc.EnergyUse, rc.GridIntensity))
			}
			for _, t := range e.Tasks {
				rows = append(rows, row("task", t.Task, t.Team, "", "", t.EnergyUse, nil))
			}
		}
		return []string{"scope", "name", "team", "provider", "region", "energy_kwh", "power_coverage", "energy_lower_bound",
			"co2e_kg", "grid_intensity_g_per_kwh", "pue"}, rows, true
	}
	return nil, nil, false
}

// optNumber is an unknown quantity as an empty cell, not 0.
func optNumber(v *float64) string {
	if v == nil {
		return ""
	}
	return number(*v)
}
