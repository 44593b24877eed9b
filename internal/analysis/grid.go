package analysis

import (
	"math"
	"time"

	"github.com/finops-oss/finops"
)

// Minute-grid classes of one GPU-minute.
const (
	unmonitored uint8 = iota
	active
	idle
)

// timeline is the minute range every grid covers: [t0, t0+n) in unix minutes.
type timeline struct {
	t0 int64
	n  int
}

func newTimeline(from, to time.Time) timeline {
	t0 := floorMinute(from)
	return timeline{t0: t0, n: int(ceilMinute(to) - t0)}
}

func floorMinute(t time.Time) int64 {
	s := t.Unix()
	if s < 0 && s%60 != 0 {
		return s/60 - 1
	}
	return s / 60
}

func ceilMinute(t time.Time) int64 {
	m := floorMinute(t)
	if t.Unix()%60 != 0 || t.Nanosecond() != 0 {
		m++
	}
	return m
}

// index converts a time to a grid index clamped to [0, n].
func (tl timeline) index(t time.Time) int {
	return tl.clamp(floorMinute(t) - tl.t0)
}

func (tl timeline) indexCeil(t time.Time) int {
	return tl.clamp(ceilMinute(t) - tl.t0)
}

func (tl timeline) clamp(i int64) int {
	if i < 0 {
		return 0
	}
	if i > int64(tl.n) {
		return tl.n
	}
	return int(i)
}

func (tl timeline) time(i int) time.Time { return time.Unix((tl.t0+int64(i))*60, 0).UTC() }

// gpuGrid is one GPU's utilization per minute (NaN = unmonitored) and its
// class per minute.
type gpuGrid struct {
	util  []float32
	class []uint8
	// power is the mean power (W) per minute, NaN where none, laid like
	// util; empty when the series has no power (energy.go).
	power []float32
}

// maxCover caps how far a sample reaches past its own minute (metrics.md).
const maxCover = 5

// intervalJitter is how much longer than whole minutes a sampling interval
// may be and still count as them: a logger's clock drifts (nvidia-smi -l 60
// measures 60.018 s between samples), and rounding that up would let every
// sample cover two minutes.
const intervalJitter = 0.02

// coverMinutes is how many minutes after its own a sample covers: the
// interval in whole minutes, rounded up beyond the jitter, at least 1 and at
// most maxCover.
func coverMinutes(interval time.Duration) int {
	m := int(math.Ceil(interval.Minutes() / (1 + intervalJitter)))
	return min(max(m, 1), maxCover)
}

// buildGrid lays one GPU's per-minute means on the timeline. A minute with its
// own samples takes their mean; a sample also covers the following minutes up
// to the sampling interval (coverMinutes: whole minutes, at most 5), because a
// sample taken late in minute m still describes the GPU until m+interval.
// Then idle runs: consecutive idle candidates (util < threshold), across
// unmonitored minutes, at least minSpan of candidates long are idle; shorter
// runs are active.
//
// reuse is a grid no longer needed whose memory it may take (every minute of
// the result is written); the zero gpuGrid makes a new one.
func buildGrid(tl timeline, s *finops.GPUSeries, threshold float64, minSpan time.Duration, reuse gpuGrid) gpuGrid {
	g := reuse
	if cap(g.util) < tl.n || cap(g.class) < tl.n {
		g = gpuGrid{util: make([]float32, tl.n), class: make([]uint8, tl.n)}
	}
	g.util, g.class = g.util[:tl.n], g.class[:tl.n]
	nan := float32(math.NaN())
	for i := range g.util {
		g.util[i] = nan
	}
	g.power = g.power[:0]
	if s.HasPower() {
		if cap(g.power) < tl.n {
			g.power = make([]float32, tl.n)
		}
		g.power = g.power[:tl.n]
		for i := range g.power {
			g.power[i] = nan
		}
	}
	follow := coverMinutes(s.Interval)
	// A minute's mean is laid down when the next minute is known, which
	// ends the minutes it covers.
	prev, pu, pp := int64(-1), float32(0), nan
	lay := func(next int64) {
		for j := int64(0); j <= int64(follow); j++ {
			at := prev + j
			if j > 0 && at >= next {
				break
			}
			if at >= 0 && at < int64(tl.n) {
				g.util[at] = pu
				if len(g.power) > 0 {
					g.power[at] = pp
				}
			}
		}
	}
	started, k := false, 0
	for m, u := range s.All() {
		i := m - tl.t0
		if started {
			lay(i)
		}
		prev, pu, started = i, u, true
		pp = nan
		if w, ok := s.PowerAt(k); ok {
			pp = w
		}
		k++
	}
	if started {
		lay(math.MaxInt64)
	}
	classify(&g, threshold, minSpan)
	return g
}

// classify sets each minute's class from g.util: unmonitored where NaN, else
// idle within runs of idle candidates at least minSpan long, else active.
func classify(g *gpuGrid, threshold float64, minSpan time.Duration) {
	span := int(math.Ceil(minSpan.Minutes()))
	// A run is its candidate minutes from runStart on; unmonitored minutes
	// inside it neither end it nor count in its length (metrics.md, decided
	// after the third review, §Gaps: "a telemetry gap inside an idle run
	// neither ends the run nor makes the minutes around it busy; the gap's
	// minutes are unmonitored"): 20 idle minutes, an exporter down for an
	// hour, 20 more are one 40-minute idle run, not two active dips.
	runStart, runLen := -1, 0
	closeRun := func(end int) {
		if runStart < 0 {
			return
		}
		c := active
		if runLen >= span {
			c = idle
		}
		for k := runStart; k < end; k++ {
			if g.class[k] != unmonitored {
				g.class[k] = c
			}
		}
		runStart, runLen = -1, 0
	}
	for i, u := range g.util {
		switch {
		case u != u: // NaN: unmonitored, inside a run or not
			g.class[i] = unmonitored
		case float64(u) < threshold:
			if runStart < 0 {
				runStart = i
			}
			runLen++
			g.class[i] = idle // a candidate until closeRun decides
		default:
			closeRun(i)
			g.class[i] = active
		}
	}
	closeRun(len(g.util))
}
