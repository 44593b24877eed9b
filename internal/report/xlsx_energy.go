package report

import (
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/workbook"
)

// withEnergy appends the energy columns (metrics.md §Energy) to a sheet of
// teams, tasks or resources when the report has energy: row i's is that of
// key(i) in the list energy indexes, and a row without any is left blank. A
// partial power coverage shows in its own column, as the kWh cell cannot say
// "≥"; an unknown energy (no power reading) or CO₂e is blank.
func (b *book) withEnergy(cols []workbook.Column, rows [][]any, key func(i int) string, energy func(*analysis.Energy) map[string]analysis.EnergyUse) ([]workbook.Column, [][]any) {
	if b.r.Energy == nil {
		return cols, rows
	}
	m := energy(b.r.Energy)
	st := b.st
	cols = append(cols,
		workbook.Column{Title: "Energy (kWh)", Style: st.hours},
		workbook.Column{Title: "Power coverage", Style: st.percent},
		workbook.Column{Title: "CO₂e (kg)", Style: st.hours},
	)
	for i := range rows {
		u, ok := m[key(i)]
		if !ok {
			rows[i] = append(rows[i], nil, nil, nil)
			continue
		}
		rows[i] = append(rows[i], optional(u.KWh), u.PowerCoverage, optional(u.CO2eKg))
	}
	return cols, rows
}

func teamEnergy(e *analysis.Energy) map[string]analysis.EnergyUse {
	m := make(map[string]analysis.EnergyUse, len(e.ByTeam))
	for _, t := range e.ByTeam {
		m[t.Team] = t.EnergyUse
	}
	return m
}

func taskEnergy(e *analysis.Energy) map[string]analysis.EnergyUse {
	m := make(map[string]analysis.EnergyUse, len(e.Tasks))
	for _, t := range e.Tasks {
		m[t.Task] = t.EnergyUse
	}
	return m
}

func resourceEnergy(e *analysis.Energy) map[string]analysis.EnergyUse {
	m := make(map[string]analysis.EnergyUse, len(e.ByResource))
	for _, r := range e.ByResource {
		m[r.ResourceID] = r.EnergyUse
	}
	return m
}
