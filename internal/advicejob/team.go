package advicejob

import (
	"fmt"
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/reportjob"
)

// teams maps each resource of the window's result to its team: the team a
// resource's advice is for, the same the report's Recommendations table
// names (no entry when the window has no row for the resource).
func (s *State) teams() map[string]string {
	m := make(map[string]string, len(s.Result.ByResource))
	for _, rc := range s.Result.ByResource {
		m[rc.ResourceID] = rc.Team
	}
	return m
}

// Team is the configured team --team names (case aside, as `report --team`
// matches), spelt as configured. A name no team has is a
// reportjob.ConfigError (exit 2) naming the configured teams: a typo must not
// read as "no advice".
func (s *State) Team(flag string) (string, error) {
	flag = strings.TrimSpace(flag)
	for _, t := range s.Teams {
		if strings.EqualFold(t, flag) {
			return t, nil
		}
	}
	if len(s.Teams) == 0 {
		return "", reportjob.ConfigError{Err: fmt.Errorf("--team %q: the config names no teams (add them under teams:)", flag)}
	}
	return "", reportjob.ConfigError{Err: fmt.Errorf("--team %q: no such team (configured teams: %s)", flag, strings.Join(s.Teams, ", "))}
}

// ForTeam is the entries whose resource is team's (TeamOf), in their order.
func (s *State) ForTeam(entries []analysis.AdviceEntry, team string) []analysis.AdviceEntry {
	teamOf := s.teams()
	var out []analysis.AdviceEntry
	for _, e := range entries {
		if teamOf[e.ResourceID] == team {
			out = append(out, e)
		}
	}
	return out
}
