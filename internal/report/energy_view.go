package report

import (
	"html/template"
	"strconv"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
)

// energyView is the page's energy card (metrics.md §Energy): the total and
// one row per team, resource and task. Names are bill and tasks-file text,
// escaped by html/template like every other cell.
type energyView struct {
	Total, Coverage, CO2e, PUE string
	LowerBound, CO2eKnown      bool
	Rows                       []energyRow
}

type energyRow struct {
	Scope               string
	Name                template.HTML // breakableID: escaped, with break points
	KWh, Coverage, CO2e string
	Intensity           string
}

// newEnergyView is nil when the report has no energy (no power readings).
func newEnergyView(r *analysis.Result) *energyView {
	e := r.Energy
	if e == nil {
		return nil
	}
	v := &energyView{Total: kwhText(e.Total), Coverage: percent(e.Total.PowerCoverage), CO2e: co2Text(e.Total),
		PUE: strconv.FormatFloat(e.PUE, 'f', -1, 64), LowerBound: e.Total.LowerBound, CO2eKnown: e.Total.CO2eKg != nil}
	row := func(scope, name string, u analysis.EnergyUse, intensity *float64) energyRow {
		in := ""
		if scope == "Resource" {
			in = "none configured"
			if intensity != nil {
				in = amount.Group(*intensity, 0) + " g/kWh"
			}
		}
		return energyRow{Scope: scope, Name: breakableID(name), KWh: kwhText(u), Coverage: percent(u.PowerCoverage),
			CO2e: co2Text(u), Intensity: in}
	}
	for _, t := range e.ByTeam {
		v.Rows = append(v.Rows, row("Team", t.Team, t.EnergyUse, nil))
	}
	for _, rc := range e.ByResource {
		v.Rows = append(v.Rows, row("Resource", rc.ResourceID, rc.EnergyUse, rc.GridIntensity))
	}
	for _, t := range e.Tasks {
		v.Rows = append(v.Rows, row("Task", t.Task, t.EnergyUse, nil))
	}
	return v
}

// kwhText writes kWh with "≥" where power covered only some minutes, as
// the idle cost is written, and "unknown" where it covered none (never
// "≥ 0.000 kWh").
func kwhText(u analysis.EnergyUse) string {
	if u.KWh == nil {
		return unknownText
	}
	kwh := *u.KWh
	prec := 0
	switch {
	case kwh < 1:
		prec = 3
	case kwh < 100:
		prec = 2
	}
	s := amount.Group(kwh, prec) + " kWh"
	if u.LowerBound {
		return "≥ " + s
	}
	return s
}

// co2Text writes kg CO₂e, or "unknown" where no grid intensity applies or
// no power reading measured its energy.
func co2Text(u analysis.EnergyUse) string {
	if u.CO2eKg == nil {
		return "unknown"
	}
	prec := 1
	if *u.CO2eKg < 10 {
		prec = 3
	}
	s := amount.Group(*u.CO2eKg, prec) + " kg"
	if u.LowerBound {
		return "≥ " + s
	}
	return s
}
