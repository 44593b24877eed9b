package report

import (
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
)

// writeShards is a rollup's shard table in the terminal summary (nothing
// for a report of one finops): each shard's cost, GPU-hours, coverage and
// whether its own report was incomplete. Names are the user's or a file's:
// one line of printable text each.
func writeShards(b *strings.Builder, p painter, r *analysis.Result) {
	if len(r.Shards) == 0 {
		return
	}
	b.WriteString("\n" + p.paint(styleBold, "Shards") + "\n")
	rows := make([][]cell, 0, len(r.Shards))
	for _, s := range r.Shards {
		inc := cell{"no", styleNone}
		if s.Incomplete {
			inc = cell{"yes", styleRed}
		}
		rows = append(rows, []cell{
			{sanitize.Terminal(s.Name, 32), styleNone},
			{money(r.Currency, s.Cost), styleNone},
			{hours(s.GPUHoursBilled), styleNone},
			{percent(s.Coverage), styleNone},
			inc,
		})
	}
	writeTable(b, p, []string{"SHARD", "COST", "BILLED", "COVERAGE", "INCOMPLETE"}, []bool{false, true, true, true, false}, rows)
}
