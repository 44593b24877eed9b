package report

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/finops-oss/finops/internal/analysis"
)

// recsTable is the Recommendations table of a page as a reader sees it: the
// header cells' text and each body row's cells' text.
type recsTable struct {
	Head []string
	Rows [][]string
}

// parseRecsTable finds table.recs in page with an HTML parser (not the
// template's own strings), so the test reads what a browser would.
func parseRecsTable(t *testing.T, page string) (recsTable, bool) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var table *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		if table != nil {
			return
		}
		if n.Type == html.ElementNode && n.Data == "table" {
			for _, a := range n.Attr {
				if a.Key == "class" && strings.Contains(" "+a.Val+" ", " recs ") {
					table = n
					return
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if table == nil {
		return recsTable{}, false
	}
	var out recsTable
	var walk func(n *html.Node, inHead bool)
	walk = func(n *html.Node, inHead bool) {
		if n.Type == html.ElementNode && n.Data == "thead" {
			inHead = true
		}
		if n.Type == html.ElementNode && n.Data == "tr" {
			var cells []string
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && (c.Data == "th" || c.Data == "td") {
					cells = append(cells, strings.TrimSpace(nodeText(c)))
				}
			}
			if inHead {
				out.Head = cells
			} else {
				out.Rows = append(out.Rows, cells)
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inHead)
		}
	}
	walk(table, false)
	return out, true
}

func nodeText(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(nodeText(c))
	}
	return b.String()
}

// TestHTMLRecsTeamColumn: a team page's Recommendations table has no Team
// column (it would be the same on every row and push Action and Savings off
// a phone's screen); the fleet page's has one, each row naming the
// resource's team. Generated fleets: random teams, resources and advice.
func TestHTMLRecsTeamColumn(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	actions := []string{analysis.ActionRelease, analysis.ActionSwitchToHourly, analysis.ActionSwitchToMonthly, analysis.ActionStopWhenIdle}
	for iter := 0; iter < 40; iter++ {
		r := handResult(t)
		nTeams := 1 + rng.Intn(4)
		r.ByTeam, r.ByResource, r.Recommendations = nil, nil, nil
		teamOf := map[string]string{}
		recsOf := map[string]int{} // recommendations per team, counted as generated
		for ti := 0; ti < nTeams; ti++ {
			r.ByTeam = append(r.ByTeam, analysis.TeamCost{Team: fmt.Sprintf("team-%d", ti), Cost: float64(100 * (ti + 1))})
		}
		nRes := 1 + rng.Intn(8)
		for ri := 0; ri < nRes; ri++ {
			id, team := fmt.Sprintf("gpu-%d", ri), fmt.Sprintf("team-%d", rng.Intn(nTeams))
			teamOf[id] = team
			r.ByResource = append(r.ByResource, analysis.ResourceCost{ResourceID: id, Team: team, GPUModel: "A100", GPUCount: 1, Cost: 10})
			if rng.Intn(3) > 0 {
				r.Recommendations = append(r.Recommendations, analysis.Recommendation{
					ID: fmt.Sprintf("adv-%08d", ri), ResourceID: id, GPUModel: "A100", GPUCount: 1, CurrentMode: "hourly",
					Action: actions[rng.Intn(len(actions))], MonthlySavings: float64(rng.Intn(1000)), Confidence: "high", Reason: "r"})
				recsOf[team]++
			}
		}

		// The fleet page: a Team column, each row's the resource's team.
		page := renderHTML(t, r, nil)
		tab, ok := parseRecsTable(t, page)
		if len(r.Recommendations) == 0 {
			if ok {
				t.Fatalf("iter %d: fleet page has a recommendations table without advice", iter)
			}
			continue
		}
		if !ok {
			t.Fatalf("iter %d: fleet page has no recommendations table", iter)
		}
		teamCol := indexOf(tab.Head, "Team")
		if teamCol < 0 {
			t.Fatalf("iter %d: fleet page's header %q has no Team column", iter, tab.Head)
		}
		resCol := indexOf(tab.Head, "Resource")
		if len(tab.Rows) != len(r.Recommendations) {
			t.Fatalf("iter %d: fleet page has %d rows, want %d", iter, len(tab.Rows), len(r.Recommendations))
		}
		for i, row := range tab.Rows {
			if len(row) != len(tab.Head) {
				t.Fatalf("iter %d: fleet row %d has %d cells, header %d", iter, i, len(row), len(tab.Head))
			}
			if want := teamOf[row[resCol]]; row[teamCol] != want {
				t.Errorf("iter %d: fleet row %d (%s) team %q, want %q", iter, i, row[resCol], row[teamCol], want)
			}
		}

		// Each team page: no Team column, the cells still under their headers.
		for _, tc := range r.ByTeam {
			slice := r.ForTeam(tc.Team)
			meta := testMeta()
			meta.Team = tc.Team
			var buf bytes.Buffer
			if err := writeHTML(&buf, slice, meta, nil); err != nil {
				t.Fatal(err)
			}
			tab, ok := parseRecsTable(t, buf.String())
			if ok != (recsOf[tc.Team] > 0) {
				t.Fatalf("iter %d team %s: table shown %v with %d recommendations", iter, tc.Team, ok, recsOf[tc.Team])
			}
			if !ok {
				continue
			}
			if indexOf(tab.Head, "Team") >= 0 {
				t.Errorf("iter %d team %s: team page's header %q has a Team column", iter, tc.Team, tab.Head)
			}
			if len(tab.Rows) != recsOf[tc.Team] {
				t.Errorf("iter %d team %s: %d rows, want %d", iter, tc.Team, len(tab.Rows), recsOf[tc.Team])
			}
			// Id, Resource, GPU, Action: the action is the fourth column.
			if a := indexPrefix(tab.Head, "Action"); a != 3 {
				t.Errorf("iter %d team %s: Action is column %d of %q, want 3", iter, tc.Team, a, tab.Head)
			}
			for i, row := range tab.Rows {
				if len(row) != len(tab.Head) {
					t.Fatalf("iter %d team %s: row %d has %d cells, header %d", iter, tc.Team, i, len(row), len(tab.Head))
				}
				if teamOf[row[1]] != tc.Team {
					t.Errorf("iter %d team %s: row %d is %s's resource %s", iter, tc.Team, i, teamOf[row[1]], row[1])
				}
			}
		}
	}
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

func indexPrefix(xs []string, p string) int {
	for i, x := range xs {
		if strings.HasPrefix(x, p) {
			return i
		}
	}
	return -1
}
