package analysis

import (
	"math"
	"strings"
	"time"

	"github.com/finops-oss/finops"
)

// Invariant (docs/METRICS.md, "Slices and shared GPUs"): a slice is never
// counted as a card. On a resource billed by whole cards, the MIG instances
// of one physical card fill ONE billed GPU's slot together, as that card:
// each minute the card's utilization is Σ(instance utilization × its compute
// fraction), the card's compute no reporting instance holds counting idle.

// migCard is the physical card a MIG instance's series belongs to: its
// parent's UUID (dcgm-exporter's GPU_I_ID series are keyed
// "<card uuid>/mig-<id>", ingest/dcgm). ok is false for a whole card, a
// time-sliced vGPU (its compute is not its own: no share to weigh by), an
// instance of unknown compute fraction, or one whose card is not known.
func migCard(s *finops.GPUSeries) (card string, ok bool) {
	if s.Slice == nil || s.Slice.Kind != "MIG" || s.Slice.ComputeFraction <= 0 {
		return "", false
	}
	card, _, ok = strings.Cut(s.UUID, "/mig-")
	return card, ok && card != ""
}

// cardSlots makes the slots of a resource's picked series, in their order.
// When merge is set (a resource billed by the card), the MIG instances of one
// card (same host and parent UUID) share one slot, whose series is the card:
// its key and UUID the parent's, no slice, no minutes of its own (parts hold
// them). Any other series keeps a slot of its own.
func cardSlots(series []finops.GPUSeries, picks []int, merge bool) []*slot {
	var out []*slot
	byCard := map[string]*slot{}
	for _, i := range picks {
		s := &series[i]
		card, ok := migCard(s)
		if !merge || !ok {
			out = append(out, &slot{series: s})
			continue
		}
		k := strings.ToLower(s.Host) + "\x00" + card
		if sl := byCard[k]; sl != nil {
			sl.parts = append(sl.parts, s)
			sl.series.Interval = max(sl.series.Interval, s.Interval)
			continue
		}
		sl := &slot{
			series: &finops.GPUSeries{Key: card, Host: s.Host, UUID: card, Index: s.Index, Model: s.Model, Interval: s.Interval},
			parts:  []*finops.GPUSeries{s},
		}
		byCard[k] = sl
		out = append(out, sl)
	}
	return out
}

// cardGrid lays the minutes of a MIG-partitioned card's slot s from its
// instances' (each laid by buildGrid with its own sampling interval; their
// compute fractions read from s.parts, which loaded minutes need not
// repeat), then
// classifies them as any GPU's (idle threshold and span).
//
// A minute is monitored when any instance has a value in it. Its utilization
// is Σ f·u over the instances with a value, over S + U: S the compute
// fractions of those instances, U the card's compute no instance of it ever
// reports (1 − Σ of every part's fraction, at least 0), which is idle. An
// instance with no value in that minute is the card's unmonitored share: left
// out of the mean rather than read as idle, so a gap in one instance's
// telemetry never makes the card look idler than what was seen of it (with
// every instance sampled, S + U = 1 and this is Σ f·u exactly).
func cardGrid(tl timeline, s *slot, threshold float64, minSpan time.Duration, reuse gpuGrid) gpuGrid {
	num := make([]float64, tl.n)  // Σ f·u of the instances with a value
	seen := make([]float64, tl.n) // Σ f of those instances
	parts := s.partMinutes()
	total, powered := 0.0, false
	for i, p := range parts {
		total += s.parts[i].Slice.ComputeFraction
		powered = powered || p.HasPower()
	}
	unpartitioned := max(0, 1-total)
	var power []float32
	if powered {
		power = make([]float32, tl.n)
		for i := range power {
			power[i] = float32(math.NaN())
		}
	}
	var pg gpuGrid
	for i, p := range parts {
		pg = buildGrid(tl, p, threshold, minSpan, pg)
		f := s.parts[i].Slice.ComputeFraction
		for t, u := range pg.util {
			if u == u {
				num[t] += f * float64(u)
				seen[t] += f
			}
			// Power is the card's (dcgm-exporter reports it per device,
			// repeated on each instance's series): the highest, not a sum.
			if len(pg.power) > 0 && pg.power[t] == pg.power[t] && !(power[t] >= pg.power[t]) {
				power[t] = pg.power[t]
			}
		}
	}
	g := reuse
	if cap(g.util) < tl.n || cap(g.class) < tl.n {
		g = gpuGrid{util: make([]float32, tl.n), class: make([]uint8, tl.n)}
	}
	g.util, g.class, g.power = g.util[:tl.n], g.class[:tl.n], power
	for t := range g.util {
		g.util[t] = float32(math.NaN())
		if seen[t] > 0 {
			g.util[t] = float32(num[t] / (seen[t] + unpartitioned))
		}
	}
	classify(&g, threshold, minSpan)
	return g
}

// keys are the GPU keys and UUIDs a slot answers to: its series', and its
// instances' for a MIG-partitioned card (a task run naming an instance holds
// the card's slot).
func (s *slot) keys() []string {
	var out []string
	for _, g := range append([]*finops.GPUSeries{s.series}, s.parts...) {
		out = append(out, g.Key)
		if g.UUID != "" && g.UUID != g.Key {
			out = append(out, g.UUID)
		}
	}
	return out
}

// indexOf is the index of g in series (by address), -1 when not there.
func indexOf(series []finops.GPUSeries, g *finops.GPUSeries) int {
	for i := range series {
		if &series[i] == g {
			return i
		}
	}
	return -1
}
