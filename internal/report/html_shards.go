package report

import "github.com/finops-oss/finops/internal/analysis"

// shardRow is one shard of a rollup in the data-quality box: how much of
// the organisation it is and how far its numbers can be trusted. Its name
// is the user's or a file's: the template escapes it.
type shardRow struct {
	Name, Period, Cost, Billed, Monitored, Coverage string
	Incomplete                                      bool
}

func shardRows(r *analysis.Result) []shardRow {
	var out []shardRow
	for _, s := range r.Shards {
		out = append(out, shardRow{Name: s.Name, Period: s.Period, Cost: money(r.Currency, s.Cost),
			Billed: hours(s.GPUHoursBilled), Monitored: hours(s.GPUHoursMonitored), Coverage: percent(s.Coverage),
			Incomplete: s.Incomplete})
	}
	return out
}
