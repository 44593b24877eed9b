package analysis

// Energy is the GPU energy of the report window and its emissions
// (metrics.md §Energy): measured power over the billed GPU-minutes that had
// a power reading. Result.Energy is nil when no billed GPU-minute had one.
type Energy struct {
	// PUE is the datacenter overhead CO₂e was computed with (1 unless configured).
	PUE        float64          `json:"pue"`
	Total      EnergyUse        `json:"total"`
	ByTeam     []TeamEnergy     `json:"by_team"`
	ByResource []ResourceEnergy `json:"by_resource"`
	Tasks      []TaskEnergy     `json:"tasks"`
}

// EnergyUse is the energy of one total, team, resource or task.
type EnergyUse struct {
	// KWh is Σ over billed GPU-minutes with power of mean watts / 60 / 1000;
	// nil (null) when none of its billed GPU-minutes had a power reading:
	// unknown, not 0 (Reading).
	KWh *float64 `json:"energy_kwh"`
	// PowerCoverage is the share (0–1) of its billed GPU-minutes that had a
	// power reading; below 1, KWh and CO2eKg are lower bounds.
	PowerCoverage float64 `json:"power_coverage"`
	LowerBound    bool    `json:"energy_lower_bound"`
	// CO2eKg is KWh × PUE × grid intensity / 1000; nil when some of its
	// energy was drawn where no intensity applies, or when KWh is nil.
	CO2eKg *float64 `json:"co2e_kg"`
}

// TeamEnergy is a team's energy: its tasks' and its resources' unheld minutes, as its cost.
type TeamEnergy struct {
	Team string `json:"team"`
	EnergyUse
}

// ResourceEnergy is one billed GPU resource's energy.
type ResourceEnergy struct {
	ResourceID string `json:"resource_id"`
	Provider   string `json:"provider"`
	Region     string `json:"region"`
	Team       string `json:"team"`
	// GridIntensity is the gCO₂e/kWh applied; nil when none applies.
	GridIntensity *float64 `json:"grid_intensity"`
	EnergyUse
}

// TaskEnergy is the energy of the GPUs a task held during its runs, a
// minute held by several runs split evenly as its cost is.
type TaskEnergy struct {
	Task string `json:"task"`
	Team string `json:"team"`
	EnergyUse
}

// forTeam is team's slice of e: its row as the total, its resources and
// tasks; nil when e is nil or the team drew no energy.
func (e *Energy) forTeam(team string) *Energy {
	if e == nil {
		return nil
	}
	out := &Energy{PUE: e.PUE}
	found := false
	for _, t := range e.ByTeam {
		if t.Team == team {
			out.Total, found = t.EnergyUse, true
			out.ByTeam = append(out.ByTeam, t)
		}
	}
	if !found {
		return nil
	}
	for _, r := range e.ByResource {
		if r.Team == team {
			out.ByResource = append(out.ByResource, r)
		}
	}
	for _, t := range e.Tasks {
		if t.Team == team {
			out.Tasks = append(out.Tasks, t)
		}
	}
	return out
}
