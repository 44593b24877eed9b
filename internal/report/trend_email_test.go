package report

import (
	"html"
	"regexp"
	"strings"
	"testing"
)

var tagRE = regexp.MustCompile(`<[^>]*>`)

// TestEmailTrend: the email's trend section, from trendResult's hand
// figures: the total's line, one per team, the top movers, in the text and
// the HTML; a lead's email shows the team's line; a short history says so.
func TestEmailTrend(t *testing.T) {
	full := trendResult(t)
	short := trendResult(t)
	short.Trend.Weeks = short.Trend.Weeks[2:]
	short.Trend.EnoughHistory, short.Trend.TotalMover, short.Trend.TeamMovers, short.Trend.ResourceMovers, short.Trend.TopMovers = false, nil, nil, nil, nil
	for _, tc := range []struct {
		name        string
		opts        EmailOptions
		team        string // slice of full for this team
		result      bool   // short instead of full
		want, avoid []string
	}{
		{name: "all teams",
			want: []string{
				// 4500 against (3340+3540+3440+3640)/4 = 3490: +1010, +28.9 %.
				"Total: ¥4,500.00, +¥1,010.00 · +29 % vs the 4-week mean (¥3,490.00) — above its recent range",
				// 4160 against 3150: +1010, +32.1 %.
				"ml-train: ¥4,160.00, +¥1,010.00 · +32 % vs the 4-week mean (¥3,150.00) — above its recent range",
				hostileFormula + ": ¥340.00, +¥0.00 · +0 % vs the 4-week mean (¥340.00)",
				"Top movers", "ml-train (team): ¥4,160.00, +¥1,010.00", "gpu-a100-1 (resource): ¥4,160.00, +¥1,010.00",
			},
			avoid: []string{hostileFormula + " (team)"}},
		{name: "lead of ml-train", opts: EmailOptions{Team: "ml-train"}, team: "ml-train",
			want: []string{"ml-train: ¥4,160.00, +¥1,010.00 · +32 % vs the 4-week mean (¥3,150.00) — above its recent range",
				"gpu-a100-1 (resource)"},
			avoid: []string{"Total: ", hostileFormula}},
		// one team line: ml-train moved most (+1010); the other is counted.
		{name: "one team line", opts: EmailOptions{MaxTeams: 1},
			want:  []string{"ml-train: ¥4,160.00", "… and 1 more teams, which moved less."},
			avoid: []string{hostileFormula + ": ¥340.00"}},
		{name: "three weeks", result: true,
			want:  []string{"Not enough history: 2 of the 4 weeks before this one have data."},
			avoid: []string{"Top movers", "4-week mean"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := full
			if tc.result {
				r = short
			}
			if tc.team != "" {
				r = r.ForTeam(tc.team)
			}
			_, text, page, err := EmailBody(r, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			flat := strings.Join(strings.Fields(text), " ")
			plain := strings.Join(strings.Fields(html.UnescapeString(tagRE.ReplaceAllString(page, ""))), " ")
			for _, w := range tc.want {
				w = strings.Join(strings.Fields(w), " ")
				if !strings.Contains(flat, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
				if !strings.Contains(plain, w) {
					t.Errorf("HTML lacks %q:\n%s", w, plain)
				}
			}
			for _, a := range tc.avoid {
				if strings.Contains(flat, a) {
					t.Errorf("text has %q:\n%s", a, text)
				}
			}
			if strings.Contains(page, hostileFormula) && strings.Contains(hostileFormula, `"`) {
				t.Errorf("HTML holds the bill's text unescaped")
			}
		})
	}
}
