package reportjob

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
)

// TestTeams: SyncTeams records the configured teams in the store; ForTeam
// slices a result to a team's rows, and refuses one the period does not
// have, naming those it has.
func TestTeams(t *testing.T) {
	ctx := context.Background()
	st, _ := billStore(t)
	c, err := config.Parse("finops.yaml", []byte("teams:\n  - name: nlp\n    tag: nlp\n  - name: cv\n    tag: cv\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := SyncTeams(ctx, st, c); err != nil {
		t.Fatal(err)
	}
	if n, err := st.Counts(ctx); err != nil || n["teams"] != 2 {
		t.Errorf("%d teams stored (%v), want 2", n["teams"], err)
	}
	res := &analysis.Result{ByTeam: []analysis.TeamCost{{Team: "nlp", Cost: 10}, {Team: "cv", Cost: 5}}}
	slice, keep, err := ForTeam(res, c, "nlp")
	if err != nil || len(slice.ByTeam) != 1 || slice.ByTeam[0].Team != "nlp" || keep == nil {
		t.Errorf("ForTeam(nlp) = %+v, filter %v, %v", slice, keep != nil, err)
	}
	if _, _, err := ForTeam(res, c, "audio"); !errors.As(err, new(ConfigError)) || !strings.Contains(err.Error(), "teams: nlp, cv") {
		t.Errorf("ForTeam(audio): %v, want a ConfigError naming nlp and cv", err)
	}
}
