package rollup

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops/internal/analysis"
)

// TestConvertedSentences: a rollup in USD writes a CNY shard's findings and
// reasons in $, not ¥ (issue 33). By hand, at 0.14 USD per CNY:
//
//	¥1,842 × 0.14 = 257.88 → "$258" (whole units from 100, as amount.Rounded)
//	-¥3.50 × 0.14 = -0.49 → "-$0.49"; ¥20.00 × 0.14 = 2.80 → "$2.80"
//	JP¥100 is yen, not the shard's yuan: left alone
//
// and a CHF shard's "12.40 CHF" at 1.10 USD per CHF is "$13.64".
func TestConvertedSentences(t *testing.T) {
	for _, c := range []struct {
		from, rate, text, want string
	}{
		{"CNY", "0.14", "gpu-c idle 52 h, ¥1,842 of GPU time; a -¥3.50 credit; JP¥100 stays",
			"gpu-c idle 52 h, $258 of GPU time; a -$0.49 credit; JP¥100 stays"},
		{"CNY", "0.14", "no money here", "no money here"},
		{"CHF", "1.10", "idle 3 h, 12.40 CHF; 12.40 CHFX is not it", "idle 3 h, $13.64; 12.40 CHFX is not it"},
	} {
		r := analysis.Result{Period: week, Currency: c.from,
			Findings:        []analysis.Finding{{Kind: analysis.FindingForgotten, Money: 20, Text: c.text}},
			Recommendations: []analysis.Recommendation{{ResourceID: "gpu-c", Reason: c.text}}}
		got := converted(r, decimal.RequireFromString(c.rate), "USD")
		if got.Findings[0].Text != c.want || got.Recommendations[0].Reason != c.want {
			t.Errorf("%s %q:\n got %q / %q\nwant %q", c.from, c.text, got.Findings[0].Text, got.Recommendations[0].Reason, c.want)
		}
		if r.Findings[0].Text != c.text {
			t.Errorf("the shard's own finding was changed: %q", r.Findings[0].Text)
		}
	}
	// Through Combine: cnShard's finding "gpu-c unmonitored" has no amount;
	// one with ¥20.00 reads $2.80 in the rollup.
	cn := cnShard()
	cn.Findings[0].Text = "gpu-c unmonitored, ¥20.00 of GPU time"
	res, err := Combine(context.Background(), []Shard{{Name: "cn", Result: cn}},
		Options{Currency: "USD", Rates: []Rate{mustRate(t, "CNY/USD=0.14")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Findings[0].Text; got != "gpu-c unmonitored, $2.80 of GPU time" {
		t.Errorf("rolled-up finding %q", got)
	}
}
