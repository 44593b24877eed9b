package report

import "github.com/finops-oss/finops/internal/workbook"

// sheetShards is a rollup's per-shard table (finops rollup), added after
// the Summary only when the result has shards.
const sheetShards = "Shards"

// shards is one row per shard the rollup combined: its period, its cost
// in the rollup's currency, its GPU-hours and coverage, and whether its own
// report was incomplete.
func (b *book) shards() error {
	st := b.st
	cols := []workbook.Column{
		{Title: "Shard", Style: st.text},
		{Title: "Period", Style: st.text},
		{Title: "Shard currency", Style: st.text},
		{Title: "Cost", Style: st.money},
		{Title: "GPU-hours billed", Style: st.hours},
		{Title: "GPU-hours monitored", Style: st.hours},
		{Title: "Coverage", Style: st.percent},
		{Title: "Incomplete", Style: st.text},
	}
	rows := make([][]any, 0, len(b.r.Shards))
	for _, s := range b.r.Shards {
		// workbook.SetCell writes a bool as yes/no.
		rows = append(rows, []any{s.Name, s.Period, s.Currency, s.Cost, s.GPUHoursBilled, s.GPUHoursMonitored, s.Coverage, s.Incomplete})
	}
	return b.table(sheetShards, cols, rows)
}
