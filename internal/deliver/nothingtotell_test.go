package deliver

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/store"
)

// TestNoCostNoMessage (issue 33): a team with ¥0 this week and last, no
// advice, no finding and nothing done gets no email and no digest; a
// team with any of these gets both. One rule: the email's scopes and the
// digest's agree, team by team, over random fleets; each team's
// expectation is worked out from what the generator gave it, not from
// nothingToTell.
func TestNoCostNoMessage(t *testing.T) {
	rng := rand.New(rand.NewSource(3302))
	for iter := 0; iter < 150; iter++ {
		c := &config.Config{}
		c.Watch.Digest = true
		res := week48Result()
		res.ByTeam = nil
		told := map[string]bool{} // the teams with something to tell, by construction
		for i := 0; i < 1+rng.Intn(5); i++ {
			name := fmt.Sprintf("team-%d", i)
			c.Teams = append(c.Teams, config.Team{Name: name, Leads: []string{name + "@example.com"}})
			c.Watch.Channels = append(c.Watch.Channels, config.Channel{Type: "json", URLEnv: "U", Teams: []string{name}})
			tc := analysis.TeamCost{Team: name}
			// Each thing to tell with probability 1/4, so that a quarter or so
			// of the teams have none.
			if rng.Intn(4) == 0 {
				tc.Cost = float64(1 + rng.Intn(500))
				told[name] = true
			}
			if rng.Intn(4) == 0 {
				tc.PreviousCost = float64(1 + rng.Intn(500))
				told[name] = true
			}
			res.ByTeam = append(res.ByTeam, tc)
			id := fmt.Sprintf("gpu-%d", i)
			res.ByResource = append(res.ByResource, analysis.ResourceCost{ResourceID: id, Team: name})
			switch rng.Intn(6) {
			case 0:
				res.Recommendations = append(res.Recommendations, analysis.Recommendation{ResourceID: id, Action: analysis.ActionRelease, MonthlySavings: 10})
				told[name] = true
			case 1: // keep asks nothing: no reason to write
				res.Recommendations = append(res.Recommendations, analysis.Recommendation{ResourceID: id, Action: analysis.ActionKeep})
			case 2:
				res.Findings = append(res.Findings, analysis.Finding{Kind: analysis.FindingUnallocated, Team: name, Text: "x"})
				told[name] = true
			}
		}
		r, _ := newRun(t, c, Transports{}, Options{})
		mails, err := r.scopes(context.Background(), res, t.TempDir(), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		var emailed, digested []string
		for _, s := range mails {
			emailed = append(emailed, s.scope)
		}
		for _, s := range r.chatScopes(res, "", nil) {
			digested = append(digested, s.scope)
		}
		var want []string
		for _, tm := range c.Teams {
			if told[tm.Name] {
				want = append(want, tm.Name)
			}
		}
		if !slices.Equal(emailed, want) || !slices.Equal(digested, want) {
			t.Fatalf("iter %d: emailed %q, digested %q; want both %q", iter, emailed, digested, want)
		}
	}
}

// TestNoCostNoDigestPosted: end to end through a real receiver, a ¥0 team
// with a channel of its own is posted nothing, and the run says why; the
// other team's channel gets its one digest.
func TestNoCostNoDigestPosted(t *testing.T) {
	idle, busy := newHook(t, ""), newHook(t, "")
	c := &config.Config{Teams: []config.Team{{Name: "search", Leads: []string{"s@example.com"}}, {Name: "nlp"}}}
	c.Watch.Digest = true
	c.Watch.Channels = []config.Channel{
		{Type: "json", URLEnv: "IDLE", Teams: []string{"search"}},
		{Type: "json", URLEnv: "BUSY", Teams: []string{"nlp"}},
	}
	r, out := newRun(t, c, Transports{}, Options{})
	env := map[string]string{"IDLE": idle.srv.URL, "BUSY": busy.srv.URL}
	r.Getenv = func(k string) string { return env[k] }
	res := week48Result()
	res.ByTeam = []analysis.TeamCost{{Team: "nlp", Cost: 1200}, {Team: "search"}}
	ctx := context.Background()
	fails := 0
	fail := func(string, ...any) { fails++ }
	r.queueDigests(ctx, res, t.TempDir(), nil, fail)
	if st := r.sendDigests(ctx, fail); st != store.StageOK || fails != 0 {
		t.Fatalf("chat stage %s, %d failures\n%s", st, fails, out)
	}
	busy.got(t) // exactly one
	idle.mu.Lock()
	n := len(idle.bodies)
	idle.mu.Unlock()
	if n != 0 {
		t.Errorf("the ¥0 team's channel got %d posts, want 0", n)
	}
	for _, w := range []string{"chat: team search has no cost and nothing to report in 2026-W48; no digest"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("the run does not say %q:\n%s", w, out)
		}
	}
	mails, err := r.scopes(ctx, res, t.TempDir(), nil, false)
	if err != nil || len(mails) != 0 {
		t.Errorf("emails %+v (%v), want none: search's lead has nothing to read", mails, err)
	}
}
