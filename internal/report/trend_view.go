package report

import (
	"fmt"
	"math"

	"github.com/finops-oss/finops/internal/analysis"
)

// moverText is a mover's change as a reader takes it: "+$1,010.00 · +32 %
// vs the 4-week mean ($3,150.00)", the mean over the weeks it had cost
// ("the 2-week mean" for a resource two weeks old), or "new: no cost in the
// 4 weeks before" when it had none.
func moverText(cur string, m analysis.Mover) string {
	mean := fmt.Sprintf("the %d-week mean", m.BaselineWeeks)
	if m.ChangePct == nil {
		before := fmt.Sprintf("the %d weeks before", analysis.MoverWeeks)
		if m.Change == 0 {
			return "nothing this week nor in " + before
		}
		return signedMoney(cur, m.Change) + " · new: no cost in " + before
	}
	return signedMoney(cur, m.Change) + " · " + signedPct(*m.ChangePct) + " vs " + mean + " (" + money(cur, m.Mean) + ")"
}

// signedMoney is "+$1,010.00" or "−$40.00".
func signedMoney(cur string, v float64) string {
	if v < 0 && money(cur, -v) != money(cur, 0) { // −0.001 is "+¥0.00", not "−¥0.00"
		return "−" + money(cur, -v)
	}
	return "+" + money(cur, v)
}

// signedPct is "+23 %" or "−40 %" of a share.
func signedPct(share float64) string {
	p := math.Round(share * 100)
	if p == 0 {
		return "+0 %" // −0.4 % rounds to −0, which %.0f writes "-0"
	}
	if p < 0 {
		return fmt.Sprintf("−%.0f %%", -p)
	}
	return fmt.Sprintf("+%.0f %%", p)
}

// anomalyText words an anomaly flag; "" for none.
func anomalyText(flag string) string {
	switch flag {
	case analysis.AnomalyHigh:
		return "above its recent range"
	case analysis.AnomalyLow:
		return "below its recent range"
	}
	return ""
}

// notEnoughHistory says why a history has no movers: how many weeks it had
// before the last.
func notEnoughHistory(t *analysis.Trend) string {
	before := max(0, len(t.Weeks)-1)
	return fmt.Sprintf("Not enough history: %d of the %d weeks before this one have data.", before, analysis.MoverWeeks)
}
