package analysis

import "slices"

// Anomaly rule (docs/METRICS.md §Trend): a week's figure is flagged when it
// falls outside the range of the MoverWeeks weeks before it, widened on
// each side by a margin: half that range's spread, and at least a tenth of
// its mean. The spread lets a series that swings keep swinging; the tenth
// keeps a flat series from being flagged for a cent. Min and max over only
// four weeks are robust enough here: one odd week widens the range (fewer
// flags), it never narrows it.
const (
	anomalySpreadShare = 0.5
	anomalyMeanShare   = 0.10
)

// anomaly classifies x against the weeks before it, oldest first; with
// fewer than MoverWeeks of them it raises no flag.
func anomaly(x float64, prior []float64) string {
	if len(prior) < MoverWeeks {
		return AnomalyNoHist
	}
	prior = prior[len(prior)-MoverWeeks:]
	lo, hi := slices.Min(prior), slices.Max(prior)
	margin := max(anomalySpreadShare*(hi-lo), anomalyMeanShare*mean(prior))
	switch {
	case x > hi+margin:
		return AnomalyHigh
	case x < lo-margin:
		return AnomalyLow
	}
	return AnomalyNone
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// mover is x against the mean of the weeks with cost among the MoverWeeks
// weeks before it; nil with fewer than MoverWeeks weeks before it.
func mover(kind, name, team string, x float64, prior []float64) *Mover {
	if len(prior) < MoverWeeks {
		return nil
	}
	m, n := moverMean(prior[len(prior)-MoverWeeks:])
	mv := &Mover{Kind: kind, Name: name, Team: team, Cost: x, Mean: m, BaselineWeeks: n, Change: x - m}
	if m != 0 {
		pct := (x - m) / m
		mv.ChangePct = &pct
	}
	return mv
}

// moverMean is the mean of the weeks that had cost (were billed), and how
// many they are; 0 and 0 when none had. A week before a resource existed,
// or after it was released, is no week of ¥0 in its baseline: counted, it
// would show a resource that started two weeks ago as growing by the weeks
// it was not yet there (docs/METRICS.md §Trend).
func moverMean(costs []float64) (float64, int) {
	var billed []float64
	for _, c := range costs {
		if c != 0 {
			billed = append(billed, c)
		}
	}
	return mean(billed), len(billed)
}
