package finops

import "time"

// GPUSeries is one GPU's utilization as per-minute means, the input of the
// minute grid.
type GPUSeries struct {
	Key   string // UUID, or host/index
	Host  string
	UUID  string
	Index int
	Model string
	// The mean utilization of each UTC minute that had at least one sample
	// with a value, in increasing minute order: minute Start+Offsets[i] had
	// Util[i]. A month of 1,000 GPUs sampled every minute is 43 million
	// minutes, so eight bytes each rather than a (minute, float64) pair of
	// sixteen; float32 is what the analysis computes with.
	Start   int64 // unix seconds / 60
	Offsets []uint32
	Util    []float32
	// Interval is the GPU's sampling interval (the store measures it from
	// the spacing of its samples): a sample also covers the minutes after it
	// up to this spacing.
	Interval time.Duration
}

// MinuteUtil is the mean utilization (0–100) of one minute.
type MinuteUtil struct {
	Minute int64 // unix seconds / 60
	Util   float64
}

// Add appends one minute's mean; minutes must come in increasing order.
func (g *GPUSeries) Add(minute int64, util float64) {
	if len(g.Offsets) == 0 {
		g.Start = minute
	}
	g.Offsets = append(g.Offsets, uint32(minute-g.Start))
	g.Util = append(g.Util, float32(util))
}

// Minutes lists every minute of the series, in order.
func (g *GPUSeries) Minutes() []MinuteUtil {
	out := make([]MinuteUtil, len(g.Util))
	for i, u := range g.Util {
		out[i] = MinuteUtil{Minute: g.Start + int64(g.Offsets[i]), Util: float64(u)}
	}
	return out
}

// Len is the number of minutes with a value.
func (g *GPUSeries) Len() int { return len(g.Util) }
