package advicejob

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/reportjob"
)

// TestWriteListColumns (issue 33): a Team column naming the resource's
// team, the action in words, and a WHY column that is never empty when
// there is a reason: the --why of a decision, else the advice's reason.
func TestWriteListColumns(t *testing.T) {
	s := &State{Window: analysis.Window{Label: "2026-W48"}, Result: &analysis.Result{Currency: "CNY",
		ByResource: []analysis.ResourceCost{{ResourceID: "box-1", Team: "nlp"}, {ResourceID: "box-2", Team: "cv"}}}}
	at := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	entries := []analysis.AdviceEntry{
		{Recommendation: analysis.Recommendation{ID: "adv-1", ResourceID: "box-1", Action: analysis.ActionSwitchToMonthly,
			Reason: "busy 500 h/month"}, Open: true},
		{Recommendation: analysis.Recommendation{ID: "adv-2", ResourceID: "box-2", Action: analysis.ActionRelease,
			Reason: "idle all week"}, Decision: &analysis.AdviceDecision{Decision: analysis.AdviceDismissed, DecidedAt: at, Why: "kept for\nthe demo"}},
		{Recommendation: analysis.Recommendation{ID: "adv-3", ResourceID: "box-2", Action: analysis.ActionStopWhenIdle,
			Reason: "idle nights"}, Decision: &analysis.AdviceDecision{Decision: analysis.AdviceDone, DecidedAt: at}},
	}
	var b strings.Builder
	if err := s.WriteList(&b, entries, true, time.UTC); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5:\n%s", len(lines), b.String())
	}
	head := strings.Fields(lines[1])
	if strings.Join(head, " ") != "ID RESOURCE TEAM ACTION SAVES/MONTH STATE WHY" {
		t.Fatalf("header %q", lines[1])
	}
	for i, want := range []struct{ team, action, why string }{
		{"nlp", "Switch to monthly", "busy 500 h/month"}, // open: the advice's reason
		{"cv", "Release", "kept for the demo"},           // decided with --why: the why, on one line
		{"cv", "Stop when idle", "idle nights"},          // decided without --why: the reason
	} {
		row := lines[2+i]
		if col := cell(lines[1], row, "TEAM"); col != want.team {
			t.Errorf("row %d team %q, want %q", i, col, want.team)
		}
		if col := cell(lines[1], row, "ACTION"); col != want.action {
			t.Errorf("row %d action %q, want %q", i, col, want.action)
		}
		if col := cell(lines[1], row, "WHY"); col != want.why {
			t.Errorf("row %d why %q, want %q", i, col, want.why)
		}
		if strings.Contains(row, "_") {
			t.Errorf("row %d has snake_case: %q", i, row)
		}
	}
}

// cell is the text of row under the header's column name: from the
// column's first rune to the next column's (tabwriter aligns by runes;
// the tests' earlier columns are ASCII), spaces trimmed.
func cell(header, row, name string) string {
	h, r := []rune(header), []rune(row)
	start := strings.Index(header, name)
	startR := utf8.RuneCountInString(header[:start])
	end := len(r)
	for i := startR + len([]rune(name)); i+1 < len(h); i++ {
		if h[i] == ' ' && h[i+1] != ' ' {
			end = min(i+1, len(r))
			break
		}
	}
	if startR > len(r) {
		return ""
	}
	return strings.TrimSpace(string(r[startR:end]))
}

// TestWriteListWhyGenerated: for random reasons and notes (line breaks,
// tabs, escapes, Han characters, any length) the WHY cell is the decision's
// note when it has one, else the reason, on one line, without a control
// character, at most whyWidth terminal columns, and a prefix of the text
// (whole when it fits). Widths counted here: a Han character 2, else 1.
func TestWriteListWhyGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(3310))
	alphabet := []rune("abcdefghij klmnop\n\t\x1b\x07界")
	text := func() string {
		n := rng.Intn(90)
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.Intn(len(alphabet))]
		}
		return string(r)
	}
	width := func(s string) int {
		w := 0
		for _, r := range s {
			if r == '界' {
				w += 2
			} else {
				w++
			}
		}
		return w
	}
	// folded is the text as the column should show it before any cut:
	// whitespace runs one space, other control characters U+FFFD.
	folded := func(s string) string {
		s = strings.Join(strings.Fields(s), " ")
		return strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return '\uFFFD'
			}
			return r
		}, s)
	}
	for iter := 0; iter < 300; iter++ {
		s := &State{Window: analysis.Window{Label: "w"}, Result: &analysis.Result{Currency: "USD"}}
		var entries []analysis.AdviceEntry
		var want []string
		for i := 0; i < 1+rng.Intn(5); i++ {
			e := analysis.AdviceEntry{Recommendation: analysis.Recommendation{ID: fmt.Sprintf("adv-%d", i),
				ResourceID: fmt.Sprintf("r%d", i), Action: analysis.ActionRelease, Reason: text()}, Open: true}
			w := e.Reason
			if rng.Intn(2) == 0 {
				note := text()
				e.Decision = &analysis.AdviceDecision{Decision: analysis.AdviceDone, Why: note}
				e.Open = false
				if strings.TrimSpace(note) != "" {
					w = note
				}
			}
			entries = append(entries, e)
			want = append(want, folded(w))
		}
		var b strings.Builder
		if err := s.WriteList(&b, entries, true, time.UTC); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 2+len(entries) {
			t.Fatalf("iter %d: %d lines for %d entries:\n%q", iter, len(lines), len(entries), b.String())
		}
		for i, w := range want {
			got := cell(lines[1], lines[2+i], "WHY")
			w = strings.TrimSpace(w)
			if strings.ContainsFunc(lines[2+i], func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("iter %d row %d: a control character in %q", iter, i, lines[2+i])
			}
			if width(got) > whyWidth {
				t.Errorf("iter %d row %d: why %q is %d columns, over %d", iter, i, got, width(got), whyWidth)
			}
			if width(w) <= whyWidth {
				if got != w {
					t.Errorf("iter %d row %d: why %q, want %q", iter, i, got, w)
				}
			} else if !strings.HasSuffix(got, "…") || !strings.HasPrefix(w, strings.TrimSpace(strings.TrimSuffix(got, "…"))) {
				t.Errorf("iter %d row %d: why %q is not a cut of %q", iter, i, got, w)
			}
		}
	}
}

// TestTeamFlag: --team matches a configured team whatever its case and
// gives its configured spelling; an unknown name is a ConfigError (exit 2)
// naming every configured team; the filter keeps exactly the entries whose
// resource is that team's, checked against random fleets.
func TestTeamFlag(t *testing.T) {
	s := &State{Teams: []string{"nlp", "CV"}, Result: &analysis.Result{}}
	if got, err := s.Team(" cv "); err != nil || got != "CV" {
		t.Errorf("Team(cv) = %q, %v; want CV", got, err)
	}
	_, err := s.Team("search")
	var ce reportjob.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "nlp, CV") || !strings.Contains(err.Error(), `"search"`) {
		t.Errorf("Team(search) = %v, want a ConfigError naming nlp, CV", err)
	}
	if _, err := (&State{Result: &analysis.Result{}}).Team("x"); !errors.As(err, &ce) || !strings.Contains(err.Error(), "teams:") {
		t.Errorf("no teams configured: %v", err)
	}

	rng := rand.New(rand.NewSource(33))
	for iter := 0; iter < 200; iter++ {
		teams := []string{"a", "b", "c"}
		s := &State{Teams: teams, Result: &analysis.Result{}}
		owner := map[string]string{}
		for r := 0; r < rng.Intn(10); r++ {
			id := fmt.Sprintf("r%d", r)
			owner[id] = teams[rng.Intn(len(teams))]
			s.Result.ByResource = append(s.Result.ByResource, analysis.ResourceCost{ResourceID: id, Team: owner[id]})
		}
		var entries []analysis.AdviceEntry
		for i := 0; i < rng.Intn(12); i++ {
			// Some advice is on a resource the window has no row for: no team's.
			entries = append(entries, analysis.AdviceEntry{Recommendation: analysis.Recommendation{
				ID: fmt.Sprintf("adv-%d", i), ResourceID: fmt.Sprintf("r%d", rng.Intn(12))}})
		}
		for _, team := range teams {
			got := s.ForTeam(entries, team)
			var want []string
			for _, e := range entries {
				if owner[e.ResourceID] == team {
					want = append(want, e.ID)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("iter %d team %s: %d entries, want %d", iter, team, len(got), len(want))
			}
			for i := range got {
				if got[i].ID != want[i] {
					t.Fatalf("iter %d team %s: entry %d is %s, want %s", iter, team, i, got[i].ID, want[i])
				}
			}
		}
	}
}
