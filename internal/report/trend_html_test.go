package report

import (
	"fmt"
	"strings"
	"testing"
)

// TestHTMLTrendChart: a result with a history has the chart-trend container
// and spec: trendResult's five weeks, cost stacked by team, the idle line,
// W47 marked above its range, W43's idle a lower bound, the absent weeks
// and the flags in the caption; a team's page shows its own trend. Without
// a history there is no container.
func TestHTMLTrendChart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		team    string
		teams   []string
		idle    []float64
		caption []string
		avoid   []string
	}{
		// idle: ml-train 500 a week, 750 in W47, plus 80 of hostileFormula.
		{name: "all teams", teams: []string{"ml-train", hostileFormula}, idle: []float64{580, 580, 580, 580, 830},
			caption: []string{"Flagged: 2026-W47 total above its recent range; 2026-W47 ml-train above its recent range; " +
				"2026-W47 gpu-a100-1 above its recent range.",
				"Telemetry covered too little of 2026-W43 (hollow points): their idle cost is a lower bound.",
				"No data before 2026-W43: 2026-W40, 2026-W41, 2026-W42 are absent, not zero."}},
		{name: "ml-train's page", team: "ml-train", teams: []string{"ml-train"}, idle: []float64{500, 500, 500, 500, 750},
			caption: []string{"2026-W47 ml-train above its recent range"},
			avoid:   []string{"HYPERLINK"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := trendResult(t)
			if tc.team != "" {
				r = r.ForTeam(tc.team)
			}
			out := renderHTML(t, r, []byte(fakeECharts))
			if n := strings.Count(out, `id="chart-trend"`); n != 1 {
				t.Fatalf("%d containers with id chart-trend, want 1", n)
			}
			var opt map[string]any
			for _, s := range chartSpecsFrom(t, out) {
				if s["id"] == "chart-trend" {
					opt = s["option"].(map[string]any)
				}
			}
			if opt == nil {
				t.Fatal("no chart-trend spec")
			}
			axis := fmt.Sprint(opt["xAxis"])
			if !strings.Contains(axis, "2026-W43") || !strings.Contains(axis, "2026-W47 ▲") || strings.Contains(axis, "2026-W46 ▲") {
				t.Errorf("x axis %s, want W43 … W47 with W47 marked", axis)
			}
			var names []string
			var idle []any
			for _, s := range opt["series"].([]any) {
				m := s.(map[string]any)
				names = append(names, m["name"].(string))
				if m["name"] == "Idle cost" {
					for _, d := range m["data"].([]any) {
						idle = append(idle, d.(map[string]any)["value"])
					}
				}
			}
			if want := append(tc.teams, "Idle cost"); fmt.Sprint(names) != fmt.Sprint(want) {
				t.Errorf("series %q, want %q", names, want)
			}
			if fmt.Sprint(idle) != fmt.Sprint(tc.idle) {
				t.Errorf("idle %v, want %v", idle, tc.idle)
			}
			page := strings.Join(strings.Fields(tagRE.ReplaceAllString(out, " ")), " ")
			for _, c := range tc.caption {
				if !strings.Contains(page, c) {
					t.Errorf("caption lacks %q", c)
				}
			}
			for _, a := range tc.avoid {
				if strings.Contains(fmt.Sprint(opt), a) {
					t.Errorf("the chart holds %q", a)
				}
			}
		})
	}
	if out := renderHTML(t, handResult(t), []byte(fakeECharts)); strings.Contains(out, `id="chart-trend"`) {
		t.Error("a result without history has a trend chart")
	}
}
