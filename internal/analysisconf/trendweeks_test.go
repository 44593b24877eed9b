package analysisconf

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/config"
)

// TestReportTrendWeeks: report.trend_weeks defaults to 8, takes 0 (no
// history) to 104, and is refused outside that, naming the key.
func TestReportTrendWeeks(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       int
		err        string
	}{
		{"left out", "currency: USD\n", 8, ""},
		{"no history", "report:\n  trend_weeks: 0\n", 0, ""},
		{"a quarter", "report:\n  trend_weeks: 13\n", 13, ""},
		{"two years", "report:\n  trend_weeks: 104\n", 104, ""},
		{"negative", "report:\n  trend_weeks: -1\n", 0, "report.trend_weeks: -1 is not between 0 and 104"},
		{"too many", "report:\n  trend_weeks: 105\n", 0, "report.trend_weeks: 105 is not between 0 and 104"},
		{"not a number", "report:\n  trend_weeks: eight\n", 0, "line 2"},
		{"typo", "report:\n  trend_week: 4\n", 0, "trend_weeks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.Parse("finops.yaml", []byte(tc.yaml))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p, err := Params(c)
			if err != nil {
				t.Fatal(err)
			}
			if c.TrendWeeks() != tc.want || p.TrendWeeks != tc.want {
				t.Errorf("trend weeks %d, params %d; want %d", c.TrendWeeks(), p.TrendWeeks, tc.want)
			}
		})
	}
}
