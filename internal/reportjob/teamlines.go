package reportjob

import (
	"strings"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/analysisconf"
	"github.com/finops-oss/finops/internal/config"
)

// TeamLineFilter says which raw billing lines belong in the workbook of a
// team's slice (analysis.Result.ForTeam): the lines of the team's resources,
// and the other non-GPU lines analysis gives the team (their configured
// resource's team, else their "team" tag, else unassigned; metrics.md §Tasks,
// teams).
func TeamLineFilter(c *config.Config, slice *analysis.Result) func(*finops.BillingLine) bool {
	team := slice.ByTeam[0].Team
	own := map[string]bool{}
	for _, rc := range slice.ByResource {
		own[rc.ResourceID] = true
		if rc.ResourceName != "" {
			own[rc.ResourceName] = true
		}
	}
	names := map[string]string{} // lower-case team name or tag → team name
	for _, t := range analysisconf.Teams(c) {
		names[strings.ToLower(t.Name)] = t.Name
		if t.Tag != "" {
			names[strings.ToLower(t.Tag)] = t.Name
		}
	}
	resolve := func(v string) string {
		if v == "" {
			return "unassigned"
		}
		if n, ok := names[strings.ToLower(v)]; ok {
			return n
		}
		return v
	}
	configured := map[string]string{}
	for _, r := range analysisconf.Resources(c) {
		if r.Team != "" {
			configured[r.ID] = r.Team
		}
	}
	return func(l *finops.BillingLine) bool {
		key := l.ResourceID
		if key == "" {
			key = l.ResourceName
		}
		if own[key] || (l.ResourceName != "" && own[l.ResourceName]) {
			return true
		}
		if l.IsGPUUsage() {
			return false // another team's GPU resource
		}
		if t, ok := configured[key]; ok {
			return resolve(t) == team
		}
		return resolve(l.Tags["team"]) == team
	}
}
