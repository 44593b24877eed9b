package analysis

import (
	"math"

	"github.com/finops-oss/finops"
)

// energyAcc accumulates the energy of one total, team, resource or task over
// the window's billed GPU-minutes.
type energyAcc struct {
	billed, covered float64 // GPU-minutes, and those with power
	wh              float64 // watt-hours
	co2g            float64 // grams CO₂e of the watt-hours with an intensity
	unknown         bool    // some watt-hours had no intensity
}

// minute adds share of one billed GPU-minute drawing watts (NaN: no
// reading), whose CO₂e per Wh is perWh when known.
func (e *energyAcc) minute(share float64, watts float32, perWh float64, known bool) {
	e.billed += share
	if watts != watts {
		return
	}
	wh := float64(watts) / 60 * share
	e.covered += share
	e.wh += wh
	if !known {
		e.unknown = e.unknown || wh > 0
		return
	}
	e.co2g += wh * perWh
}

func (e *energyAcc) use() EnergyUse {
	var u EnergyUse
	if e.billed > 0 {
		u.PowerCoverage = math.Min(1, e.covered/e.billed)
	}
	u.LowerBound = e.billed-e.covered > 1e-9
	if e.covered <= 0 && e.billed > 0 {
		return u // no power reading: its energy and CO₂e are unknown, not 0
	}
	kwh := e.wh / 1000
	u.KWh = &kwh
	if !e.unknown {
		kg := e.co2g / 1000
		u.CO2eKg = &kg
	}
	return u
}

// energyState is the analysis's energy accumulators.
type energyState struct {
	total     energyAcc
	teams     map[string]*energyAcc
	tasks     map[string]*energyAcc
	resources []ResourceEnergy
}

func accOf(m map[string]*energyAcc, k string) *energyAcc {
	e := m[k]
	if e == nil {
		e = &energyAcc{}
		m[k] = e
	}
	return e
}

// slotPower is the power of slot s of r at grid minute t: NaN for a silent
// slot or a minute without a reading.
func slotPower(r *gpuResource, s, t int) float32 {
	if s >= len(r.slots) {
		return float32(math.NaN())
	}
	p := r.slots[s].grid.power
	if t >= len(p) {
		return float32(math.NaN())
	}
	return p[t]
}

// resourceEnergy adds r's window to the energy accumulators, by the cost's
// attribution: each billed GPU-minute to r; one held by runs to their tasks
// (and their teams), split evenly between them (held); one held by none to
// r's team. Called while r's grids are laid, after attributeRuns.
func (a *analyzer) resourceEnergy(r *gpuResource, runs []*finops.TaskRun, held [][]uint8, slots []uint16) {
	if a.energy == nil {
		a.energy = &energyState{teams: map[string]*energyAcc{}, tasks: map[string]*energyAcc{}}
	}
	e := a.energy
	intensity, known := a.p.Energy.intensity(r.provider, r.region)
	perWh := intensity * a.p.Energy.pue() / 1000 // g per Wh
	var res energyAcc
	owner := accOf(e.teams, r.team)
	w0, w1 := a.win[0], a.win[1]
	for t := w0; t < w1; t++ {
		for s := 0; s < int(slots[t]); s++ {
			p := slotPower(r, s, t)
			res.minute(1, p, perWh, known)
			e.total.minute(1, p, perWh, known)
			if held[s][t-w0] == 0 {
				owner.minute(1, p, perWh, known)
			}
		}
	}
	for _, run := range runs {
		acc := a.tasks[run.Task] // attributeRuns made it, for a run inside the window
		if acc == nil {
			continue // outside the window: it held none of these minutes
		}
		task, team := accOf(e.tasks, run.Task), accOf(e.teams, acc.Team)
		s0, s1 := a.runRange(run)
		for _, s := range a.runSlots(r, run) {
			for t := s0; t < s1; t++ {
				if s >= int(slots[t]) {
					continue
				}
				share := 1 / float64(held[s][t-w0])
				p := slotPower(r, s, t)
				task.minute(share, p, perWh, known)
				team.minute(share, p, perWh, known)
			}
		}
	}
	if res.billed == 0 {
		return
	}
	re := ResourceEnergy{ResourceID: r.key, Provider: r.provider, Region: r.region, Team: r.team, EnergyUse: res.use()}
	if known {
		v := intensity
		re.GridIntensity = &v
	}
	e.resources = append(e.resources, re)
}

// finishEnergy sets Result.Energy: nil when no billed GPU-minute had power
// (the total covers every resource's billed minutes).
func (a *analyzer) finishEnergy() {
	e := a.energy
	if e == nil || e.total.covered == 0 {
		return
	}
	out := &Energy{PUE: a.p.Energy.pue(), Total: e.total.use(), ByResource: e.resources}
	for _, name := range sortedKeys(e.teams) {
		if acc := e.teams[name]; acc.billed > 0 {
			out.ByTeam = append(out.ByTeam, TeamEnergy{Team: name, EnergyUse: acc.use()})
		}
	}
	for _, name := range sortedKeys(e.tasks) {
		if acc := e.tasks[name]; acc.billed > 0 {
			out.Tasks = append(out.Tasks, TaskEnergy{Task: name, Team: a.tasks[name].Team, EnergyUse: acc.use()})
		}
	}
	a.res.Energy = out
}
