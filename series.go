package finops

import (
	"iter"
	"time"
)

// GPUSeries is one GPU's utilization as per-minute means, the input of the
// minute grid.
type GPUSeries struct {
	Key   string // UUID, or host/index
	Host  string
	UUID  string
	Index int
	Model string
	Slice *GPUSlice // nil: a whole card
	// Start is the first minute with a value (unix seconds / 60); All lists
	// every such minute with its mean, in increasing order.
	Start int64
	// The minutes are kept as the step from the one before, a byte each:
	// a quarter of 1,000 GPUs sampled every 5 minutes is 26 million minutes,
	// and a step fits a byte unless the GPU was silent for over four hours
	// (step 0, never a real step, says "the next entry of far"). Five bytes a
	// minute rather than the eight of a uint32 offset and its float32, and
	// float32 is what the analysis computes with.
	steps []uint8
	far   []uint32
	util  []float32
	last  int64
	// power is each minute's mean power in whole watts (noPower: none), nil
	// while no minute has one: two bytes a minute, none for a GPU whose
	// telemetry has no power (series_power.go).
	power []uint16
	// outline: Start and last are known but the minutes between are not
	// held (SetSpan), for a caller that loads them when it needs them.
	outline bool
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
	var step uint8
	switch d := minute - g.last; {
	case len(g.util) == 0:
		g.Start = minute
	case d > 0 && d <= 255:
		step = uint8(d)
	default:
		g.far = append(g.far, uint32(d))
	}
	g.steps = append(g.steps, step)
	g.util = append(g.util, float32(util))
	g.last = minute
	if g.power != nil {
		g.power = append(g.power, noPower)
	}
}

// Grow makes room for n more minutes, so a series whose length is known
// up front is allocated once.
func (g *GPUSeries) Grow(n int) {
	g.steps = growTo(g.steps, n)
	g.util = growTo(g.util, n)
	if g.power != nil {
		g.power = growTo(g.power, n)
	}
}

func growTo[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	return append(make([]T, 0, len(s)+n), s...)
}

// All yields every minute with a value and its mean, in increasing order.
func (g *GPUSeries) All() iter.Seq2[int64, float32] {
	return func(yield func(int64, float32) bool) {
		m, f := g.Start, 0
		for i, u := range g.util {
			switch {
			case i == 0:
			case g.steps[i] != 0:
				m += int64(g.steps[i])
			default:
				m += int64(g.far[f])
				f++
			}
			if !yield(m, u) {
				return
			}
		}
	}
}

// Minutes lists every minute of the series, in order.
func (g *GPUSeries) Minutes() []MinuteUtil {
	out := make([]MinuteUtil, 0, len(g.util))
	for m, u := range g.All() {
		out = append(out, MinuteUtil{Minute: m, Util: float64(u)})
	}
	return out
}

// Len is the number of minutes with a value that g holds (none in an
// outline).
func (g *GPUSeries) Len() int { return len(g.util) }

// Span is the first and last minute with a value; ok is false when the
// series has none.
func (g *GPUSeries) Span() (first, last int64, ok bool) {
	return g.Start, g.last, len(g.util) > 0 || g.outline
}

// Identity is g without its minutes: what names the GPU and how it was
// sampled, for a series to be filled again (store.LoadSeries reads an
// outline's minutes into it). A copy of the whole struct, so a field added
// to GPUSeries is kept without anyone listing it.
func (g *GPUSeries) Identity() GPUSeries {
	c := *g
	c.Start, c.last, c.outline = 0, 0, false
	c.steps, c.far, c.util, c.power = nil, nil, nil, nil
	return c
}

// SetSpan makes g an outline: its first and last minute, without the
// minutes. A quarter of a fleet's minutes is hundreds of MB; matching GPUs
// to resources and clipping a window need only this, and the analysis loads
// each GPU's minutes when it reaches it (analysis.Input.LoadSeries).
func (g *GPUSeries) SetSpan(first, last int64) {
	g.Start, g.last, g.outline = first, last, true
	g.steps, g.far, g.util, g.power = nil, nil, nil, nil
}
