package report

import (
	"cmp"
	"slices"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// Aggregations of the Result's chart series, shared by the workbook charts and
// the HTML charts so both show the same numbers.

// matrix is a day × series table: Values[s][d] is series s on day d.
type matrix struct {
	Days   []string // YYYY-MM-DD in the report zone, consecutive
	Series []string
	Values [][]float64
}

// maxChartDays bounds the day axis so a malformed day cannot make us allocate
// years of empty columns.
const maxChartDays = 400

// dailyBy aggregates r.Daily per day (in loc) and per key. Days without cost
// between the first and last day are kept as zeros so the time axis is honest;
// series are ordered by total cost, largest first, then by name.
func dailyBy(daily []analysis.DailyCost, loc *time.Location, key func(analysis.DailyCost) string) matrix {
	if len(daily) == 0 {
		return matrix{}
	}
	type dk struct{ day, key string }
	sums := map[dk]float64{}
	totals := map[string]float64{}
	var span daySpan
	for _, d := range daily {
		day := span.add(d.Day, loc)
		k := key(d)
		sums[dk{day.Format(time.DateOnly), k}] += d.Cost
		totals[k] += d.Cost
	}
	m := matrix{Days: span.labels(loc), Series: byTotal(totals)}
	m.Values = make([][]float64, len(m.Series))
	for s, k := range m.Series {
		m.Values[s] = make([]float64, len(m.Days))
		for d, day := range m.Days {
			m.Values[s][d] = sums[dk{day, k}]
		}
	}
	return m
}

// daySpan is the first and last local day of a set of instants.
type daySpan struct{ first, last time.Time }

// add takes one instant and returns its local day's midnight.
func (s *daySpan) add(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	if s.first.IsZero() || day.Before(s.first) {
		s.first = day
	}
	if s.last.IsZero() || day.After(s.last) {
		s.last = day
	}
	return day
}

// labels are the span's days as 2006-01-02, every day from first to last
// (at most maxChartDays) so a time axis has no holes.
func (s *daySpan) labels(loc *time.Location) []string {
	var out []string
	if s.first.IsZero() {
		return out
	}
	for day := s.first; !day.After(s.last) && len(out) < maxChartDays; day = time.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, 0, loc) {
		out = append(out, day.Format(time.DateOnly))
	}
	return out
}

// byTotal lists the keys of totals by total, largest first, then by name.
func byTotal(totals map[string]float64) []string {
	keys := make([]string, 0, len(totals))
	for k := range totals {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(totals[b], totals[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return keys
}

func teamKey(d analysis.DailyCost) string { return orDefault(d.Team, "unassigned") }

func modelKey(d analysis.DailyCost) string { return orDefault(d.GPUModel, "non-GPU") }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// labelled is one bar of a ranked bar chart.
type labelled struct {
	Label string
	Value float64
}

// idleByResource ranks resources by idle cost, largest first, leaving out those
// without idle cost and keeping at most limit (0: all).
func idleByResource(rs []analysis.ResourceCost, limit int) []labelled {
	var out []labelled
	for _, rc := range rs {
		if rc.IdleCost > 0 {
			out = append(out, labelled{resourceLabel(rc), rc.IdleCost})
		}
	}
	slices.SortStableFunc(out, func(a, b labelled) int {
		if c := cmp.Compare(b.Value, a.Value); c != 0 {
			return c
		}
		return cmp.Compare(a.Label, b.Label)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// topActions returns the recommendations that save money, largest saving first.
func topActions(recs []analysis.Recommendation, limit int) []analysis.Recommendation {
	var out []analysis.Recommendation
	for _, r := range recs {
		if r.MonthlySavings > 0 {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b analysis.Recommendation) int {
		if c := cmp.Compare(b.MonthlySavings, a.MonthlySavings); c != 0 {
			return c
		}
		return cmp.Compare(a.ResourceID, b.ResourceID)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// topResources returns the resources with the highest cost, largest first.
func topResources(rs []analysis.ResourceCost, limit int) []analysis.ResourceCost {
	out := slices.Clone(rs)
	slices.SortStableFunc(out, func(a, b analysis.ResourceCost) int {
		if c := cmp.Compare(b.Cost, a.Cost); c != 0 {
			return c
		}
		return cmp.Compare(a.ResourceID, b.ResourceID)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
