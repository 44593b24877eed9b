package report

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// digestWeek is week 48 (Asia/Shanghai) of a fleet billed 1,000 GPU-hours
// for ¥8,000, ¥7,000 the week before, 250 of the hours without telemetry.
func digestWeek() *analysis.Result {
	loc, _ := time.LoadLocation("Asia/Shanghai")
	return &analysis.Result{
		Period:   analysis.Period{Start: time.Date(2026, 11, 23, 0, 0, 0, 0, loc), End: time.Date(2026, 11, 30, 0, 0, 0, 0, loc), TimeZone: "Asia/Shanghai", Label: "2026-W48"},
		Currency: "CNY",
		Totals: analysis.Totals{Cost: 8000, PreviousCost: 7000, IdleCost: 1200, GPUHoursBilled: 1000,
			GPUHoursUnmonitored: 250, MonthlySavings: 3500},
		ByTeam: []analysis.TeamCost{{Team: "nlp", Cost: 8000, IdleCost: 1200}},
		Recommendations: []analysis.Recommendation{
			{ID: "adv-0000000a", ResourceID: "gpu-a", Action: analysis.ActionSwitchToHourly, MonthlySavings: 2000},
			{ID: "adv-0000000b", ResourceID: "gpu-b", Action: analysis.ActionStopWhenIdle, MonthlySavings: 1000},
			// No id: a result from before advice ids had none.
			{ResourceID: "gpu-c", Action: analysis.ActionRelease, MonthlySavings: 500},
			{ResourceID: "gpu-d", Action: analysis.ActionKeep},
		},
		DataQuality: analysis.DataQuality{Incomplete: []string{"coverage 75% is below 80%", "source dcgm is missing",
			"r3", "r4"}},
	}
}

// TestDigest: the digest's lines, every figure worked out by hand from
// digestWeek.
func TestDigest(t *testing.T) {
	complete := digestWeek()
	complete.Totals.GPUHoursUnmonitored = 0
	complete.DataQuality.Incomplete = nil
	// 950 of 1,000 GPU-hours monitored, above min_coverage: the analysis
	// gave no reason, so the report is not incomplete; the idle is still a
	// lower bound.
	covered := digestWeek()
	covered.Totals.GPUHoursUnmonitored = 50
	covered.DataQuality.Incomplete = nil
	for _, tc := range []struct {
		name  string
		res   *analysis.Result
		opts  DigestOptions
		title string
		lines []string
	}{
		{"incomplete, fleet, linked", digestWeek(), DigestOptions{ReportURL: "https://r.example.com/w48.html", MaxActions: 2},
			"finops weekly digest 2026-W48",
			[]string{
				"2026-11-23 – 2026-11-29 (Asia/Shanghai)",
				"Cost: ¥8,000.00 (+14.3% vs previous period)", // 8000/7000 − 1 = 0.142857
				// 1200/8000 = 15.0%; 750 of 1,000 GPU-hours monitored: the idle is a lower bound.
				"Idle cost: ≥ ¥1,200.00 (15.0% of total cost; 75.0% of GPU-hours monitored)",
				"Data incomplete: 75.0% of GPU-hours monitored",
				"- coverage 75% is below 80%",
				"- source dcgm is missing",
				"- r3",
				"- and 1 more reasons (see the report)",
				"Report: https://r.example.com/w48.html",
				"Savings available: ¥3,500.00 per month",
				"Top recommendations:",
				"1. Switch to hourly: gpu-a, saves ¥2,000.00/month · adv-0000000a",
				"2. Stop when idle: gpu-b, saves ¥1,000.00/month · adv-0000000b",
				"… and 1 more in the report", // gpu-d saves nothing: not a recommendation to act on
			}},
		{"complete, team", complete, DigestOptions{Team: "nlp"},
			"finops weekly digest 2026-W48 · team nlp",
			[]string{
				"2026-11-23 – 2026-11-29 (Asia/Shanghai)",
				"Cost: ¥8,000.00 (+14.3% vs previous period)",
				"Idle cost: ¥1,200.00 (15.0% of total cost)",
				"Savings available: ¥3,500.00 per month",
				"Top recommendations:",
				"1. Switch to hourly: gpu-a, saves ¥2,000.00/month · adv-0000000a",
				"2. Stop when idle: gpu-b, saves ¥1,000.00/month · adv-0000000b",
				"3. Release: gpu-c, saves ¥500.00/month",
			}},
		{"95 % covered, not incomplete", covered, DigestOptions{MaxActions: 1},
			"finops weekly digest 2026-W48",
			[]string{
				"2026-11-23 – 2026-11-29 (Asia/Shanghai)",
				"Cost: ¥8,000.00 (+14.3% vs previous period)",
				// 1200/8000 = 15.0%; 950/1000 = 95.0% monitored. No "Data incomplete" line.
				"Idle cost: ≥ ¥1,200.00 (15.0% of total cost; 95.0% of GPU-hours monitored)",
				"Savings available: ¥3,500.00 per month",
				"Top recommendations:",
				"1. Switch to hourly: gpu-a, saves ¥2,000.00/month · adv-0000000a",
				"… and 2 more in the report",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Digest(tc.res, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if d.Title != tc.title {
				t.Errorf("title %q, want %q", d.Title, tc.title)
			}
			if got, want := d.Text, strings.Join(tc.lines, "\n"); got != want {
				t.Errorf("text:\n%s\nwant:\n%s", got, want)
			}
			if d.Team != tc.opts.Team || d.Currency != "CNY" {
				t.Errorf("team %q currency %q", d.Team, d.Currency)
			}
		})
	}
}

// TestDigestRefuses: no result, or a link that is not http(s).
func TestDigestRefuses(t *testing.T) {
	for _, tc := range []struct {
		res  *analysis.Result
		url  string
		want string
	}{
		{nil, "", "report: digest: nil result"},
		{digestWeek(), "javascript:alert(1)", "is not an http(s) URL"},
		{digestWeek(), "https://", "is not an http(s) URL"},
	} {
		if _, err := Digest(tc.res, DigestOptions{ReportURL: tc.url}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Digest(%q) = %v, want %q", tc.url, err, tc.want)
		}
	}
}

// TestDigestOneLineNames: a team or resource name, or an advice id read
// back from a JSON summary, with line breaks stays on its line, and a long
// one is capped, so no bill text adds a line of its own.
func TestDigestOneLineNames(t *testing.T) {
	r := digestWeek()
	r.Recommendations = []analysis.Recommendation{{ResourceID: "gpu\nCost: ¥0.00 " + strings.Repeat("x", 200),
		ID: "adv-1\nCost: ¥0.00 " + strings.Repeat("y", 200), Action: analysis.ActionRelease, MonthlySavings: 1}}
	d, err := Digest(r, DigestOptions{Team: "a\nb"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(d.Title, "\n") || strings.Count(d.Text, "\nCost: ") != 1 {
		t.Errorf("a name broke its line:\n%s\n%s", d.Title, d.Text)
	}
	for _, l := range strings.Split(d.Text, "\n") {
		if len([]rune(l)) > 200 {
			t.Errorf("line of %d characters: %q", len([]rune(l)), l)
		}
	}
}
