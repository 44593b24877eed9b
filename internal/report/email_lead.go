package report

import (
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
)

// What a team lead reads first beyond the costs: the team's charged-back
// total (metrics.md §Allocation and chargeback) and the GPUs' energy
// (§Energy and CO₂e), each only when the report has it.

// teamChargeback is team's row of cb, or nil.
func teamChargeback(cb *analysis.Chargeback, team string) *analysis.TeamChargeback {
	if cb == nil {
		return nil
	}
	for i := range cb.Teams {
		if strings.EqualFold(cb.Teams[i].Team, team) {
			return &cb.Teams[i]
		}
	}
	return nil
}

// chargebackKPI is a team email's "Charged back" line: the total beside
// the direct cost and the two shares that make it up.
func chargebackKPI(cur string, row *analysis.TeamChargeback) emailKPI {
	return emailKPI{Label: "Charged back", Value: money(cur, row.ChargedBack),
		Note: "direct " + money(cur, row.Direct) + " + shared " + money(cur, row.Unallocated) +
			" + shared idle " + money(cur, row.Idle)}
}

// energyLine is the email's one energy line, "" without energy: kWh and
// CO₂e with "≥" where power covered only some GPU-minutes, and CO₂e
// "unknown" where no grid intensity applies.
func energyLine(r *analysis.Result) string {
	e := r.Energy
	if e == nil {
		return ""
	}
	line := "Energy: " + kwhText(e.Total)
	if e.Total.CO2eKg != nil {
		line += ", " + co2Text(e.Total) + " CO₂e"
	}
	line += " (power read for " + percent(e.Total.PowerCoverage) + " of the billed GPU-minutes)"
	if e.Total.CO2eKg == nil {
		return line + "; CO₂e unknown: no grid intensity applies (energy.grid_intensity)."
	}
	return line + "."
}
