package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/cli"
)

// TestAdviceListTeam (issue 33) runs `advice list` on the demo fleet: each
// row names its resource's team (as the week's JSON summary has it, read
// independently), the action in words and a reason; --team keeps exactly
// that team's advice, whatever the name's case; an unknown team is a usage
// error (exit 2) naming the configured teams.
func TestAdviceListTeam(t *testing.T) {
	dir, run := demoFleet(t)
	sum := readSummary(t, filepath.Join(dir, "finops-2026-W48.json"))
	teamOf := map[string]string{}
	for _, rc := range sum.ByResource {
		teamOf[rc.ResourceID] = rc.Team
	}
	byTeam := map[string][]string{} // advice ids per team, from the summary
	for _, rec := range sum.Recommendations {
		if rec.Action != analysis.ActionKeep {
			byTeam[teamOf[rec.ResourceID]] = append(byTeam[teamOf[rec.ResourceID]], rec.ID)
		}
	}
	if len(byTeam) < 2 {
		t.Fatalf("the demo's advice is on %d teams; the filter needs two or more to be tested", len(byTeam))
	}

	code, out, errs := run("advice", "list")
	if code != 0 {
		t.Fatalf("advice list: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out, "_to_") || strings.Contains(out, "_when_") {
		t.Errorf("advice list shows snake_case actions:\n%s", out)
	}
	row := regexp.MustCompile(`(?m)^(adv-[0-9a-f]{8})\s+(\S+)\s+(\S+)\s+(Switch to \w+|Stop when idle|Release)\s+\S+\s+open\s+(\S.*)$`)
	rows := row.FindAllStringSubmatch(out, -1)
	if n := strings.Count(out, "\nadv-"); len(rows) != n || n == 0 {
		t.Fatalf("%d of %d rows read as id, resource, team, action in words, saving, open and a reason:\n%s", len(rows), n, out)
	}
	for _, r := range rows {
		if want := teamOf[r[2]]; r[3] != want {
			t.Errorf("%s on %s: team %q, want %q", r[1], r[2], r[3], want)
		}
	}

	for team, want := range byTeam {
		code, out, errs := run("--log-format", "json", "advice", "list", "--team", strings.ToUpper(team))
		var res struct {
			Advice []struct{ ID, Team string }
		}
		if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
			t.Fatalf("advice list --team %s: exit %d, %v\n%s%s", team, code, err, out, errs)
		}
		var got []string
		for _, e := range res.Advice {
			got = append(got, e.ID)
			if e.Team != team {
				t.Errorf("--team %s lists %s of team %q", team, e.ID, e.Team)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("advice list --team %s: %v, want %v", team, got, want)
		}
	}

	code, out, errs = run("advice", "list", "--team", "nosuchteam")
	if code != cli.ExitUsage || !strings.Contains(errs, `"nosuchteam"`) ||
		!strings.Contains(errs, "configured teams: nlp, cv, search, platform") {
		t.Errorf("advice list --team nosuchteam: exit %d, want %d naming the teams\n%s%s", code, cli.ExitUsage, out, errs)
	}
}
