package finops

import "math"

// noPower marks a minute without a power reading in GPUSeries.power.
const noPower = math.MaxUint16

// AddPower appends one minute's mean utilization and mean power draw in
// watts, as Add does; watts that are NaN, negative or beyond what two bytes
// hold (65,534 W, far above any one GPU) leave the minute without power.
// Power is kept in whole watts: half a watt at most per minute, under 0.2 %
// of a 300 W draw, for two bytes a minute rather than four.
func (g *GPUSeries) AddPower(minute int64, util, watts float64) {
	g.Add(minute, util)
	if math.IsNaN(watts) || watts < 0 || math.Round(watts) >= noPower {
		return
	}
	if g.power == nil {
		g.power = make([]uint16, len(g.util), cap(g.util))
		for i := range g.power {
			g.power[i] = noPower
		}
	}
	g.power[len(g.power)-1] = uint16(math.Round(watts))
}

// HasPower reports whether any minute g holds has a power reading.
func (g *GPUSeries) HasPower() bool { return g.power != nil }

// PowerAt is the mean power in watts of the i-th minute All yields, and
// whether it has one.
func (g *GPUSeries) PowerAt(i int) (float32, bool) {
	if i < 0 || i >= len(g.power) || g.power[i] == noPower {
		return 0, false
	}
	return float32(g.power[i]), true
}
