package reportjob

import (
	"context"
	"fmt"
	"strings"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/store"
)

// ForTeam is res sliced to one team's rows (Result.ForTeam), and the filter
// of the billing lines that are the team's, for the workbook's raw sheet. An
// unknown team is refused, naming the period's teams.
func ForTeam(res *analysis.Result, c *config.Config, team string) (*analysis.Result, func(*finops.BillingLine) bool, error) {
	slice := res.ForTeam(team)
	if slice == nil {
		var names []string
		for _, t := range res.ByTeam {
			names = append(names, t.Team)
		}
		return nil, nil, ConfigError{fmt.Errorf("--team %q: no such team in this period (teams: %s)", team, strings.Join(names, ", "))}
	}
	return slice, TeamLineFilter(c, slice), nil
}

// SyncTeams records the configured teams in the database.
func SyncTeams(ctx context.Context, st *store.Store, c *config.Config) error {
	var teams []store.Team
	for _, t := range c.Teams {
		teams = append(teams, store.Team{Name: t.Name, Tag: t.Tag, MonthlyBudget: t.MonthlyBudget, Leads: t.Leads})
	}
	return st.SyncTeams(ctx, teams)
}

// TeamMissing is the part of a run's missing sources (Report) a team's slice
// still names: a source that failed touches the teams whose resources it
// serves (all, when unknown: analysis.SourceStatus.Touches), and another
// team's failed exporter does not make this team's report partial.
func TeamMissing(missing []string, slice *analysis.Result) []string {
	var out []string
	for _, n := range missing {
		for _, s := range slice.DataQuality.Sources {
			if s.Name == n && s.Status != "ok" {
				out = append(out, n)
				break
			}
		}
	}
	return out
}
