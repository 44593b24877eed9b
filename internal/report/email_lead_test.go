package report

import (
	"html"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
)

// leadChargeback is a chargeback of handResult's 4,500.00: ml-train's
// direct 4,160.00 takes 60.00 of shared cost and 30.00 of shared idle from
// the other team's 340.00, so ml-train is charged back 4,160 + 60 + 30 =
// 4,250.00 and the other 340 − 60 − 30 = 250.00; 4,250 + 250 = 4,500.
func leadChargeback() *analysis.Chargeback {
	return &analysis.Chargeback{UnallocatedRule: "proportional", IdleRule: "proportional", Total: 4500,
		UnallocatedPool: 60, IdlePool: 30, Teams: []analysis.TeamChargeback{
			{Team: "ml-train", Direct: 4160, Unallocated: 60, Idle: 30, ChargedBack: 4250},
			{Team: hostileFormula, Direct: 340, Unallocated: -60, Idle: -30, ChargedBack: 250},
		}}
}

// TestEmailLeadLines: what a lead reads first in the email, in both its
// bodies — the team's charged-back total beside its direct cost (a team's
// email takes its row from the whole report's chargeback, since its slice
// has none), the energy in one line, and the advice notes of its own
// resources; nothing of them when the report has none.
func TestEmailLeadLines(t *testing.T) {
	withCB := handResult(t)
	withCB.Chargeback = leadChargeback()
	unknownCO2 := handResult(t)
	unknownCO2.Energy = &analysis.Energy{PUE: 1, Total: analysis.EnergyUse{KWh: new(0.525), PowerCoverage: 1}}
	advice := adviceResult(t)
	advice.Advice.Realised[0].Team = "ml-train" // the measured one is the team's
	for _, tc := range []struct {
		name             string
		r                *analysis.Result
		opts             EmailOptions
		text, html, none []string
	}{
		{name: "all teams with chargeback", r: withCB,
			text: []string{"CHARGED BACK", "¥4,250.00", "¥250.00"},
			html: []string{"charged back ¥4,250.00", "charged back ¥250.00"},
			none: []string{"Charged back", "Energy:"}},
		{name: "a team's email, chargeback from the whole report", r: handResult(t).ForTeam("ml-train"),
			opts: EmailOptions{Team: "ml-train", Chargeback: leadChargeback()},
			text: []string{"Charged back", "¥4,250.00", "direct ¥4,160.00 + shared ¥60.00 + shared idle ¥30.00"},
			html: []string{"Charged back", "¥4,250.00", "direct ¥4,160.00 + shared ¥60.00 + shared idle ¥30.00"},
			none: []string{"¥250.00"}},
		{name: "a team without a chargeback row", r: handResult(t).ForTeam("ml-train"),
			opts: EmailOptions{Team: "ml-train", Chargeback: &analysis.Chargeback{Total: 4500}},
			none: []string{"Charged back", "charged back", "CHARGED BACK"}},
		// energyResult: 2.4 kWh and 1.0464 kg over 25 % of the minutes.
		{name: "energy, a lower bound", r: energyResult(t),
			text: []string{"Energy: ≥ 2.40 kWh, ≥ 1.046 kg CO₂e (power read for 25.0% of the billed GPU-minutes)."},
			html: []string{"Energy: ≥ 2.40 kWh, ≥ 1.046 kg CO₂e (power read for 25.0% of the billed GPU-minutes)."}},
		{name: "energy, CO₂e unknown", r: unknownCO2,
			text: []string{"Energy: 0.525 kWh (power read for 100.0% of the billed GPU-minutes); CO₂e unknown: no grid intensity applies (energy.grid_intensity)."},
			html: []string{"Energy: 0.525 kWh (power read for 100.0% of the billed GPU-minutes); CO₂e unknown: no grid intensity applies"},
			none: []string{"kg CO₂e"}},
		// adviceResult: 2 hidden (no resource known), ¥3,043.75 realised on
		// the team's, against ¥3,000 expected.
		{name: "advice in a team's email", r: advice.ForTeam("ml-train"), opts: EmailOptions{Team: "ml-train"},
			text: []string{"Advice done: realised ¥3,043.75/month (expected ¥3,000.00)"},
			html: []string{"Advice done: realised ¥3,043.75/month (expected ¥3,000.00)"},
			none: []string{"too early"}},
		{name: "none of them", r: handResult(t),
			none: []string{"Charged back", "charged back", "CHARGED BACK", "Energy:", "Advice done"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.r == nil {
				t.Fatal("no team slice")
			}
			_, text, doc, err := EmailBody(tc.r, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if p := emailMarkupProblems(t, doc); len(p) > 0 {
				t.Errorf("email HTML: %v", p)
			}
			// The text wraps at 76 columns and the HTML escapes "+": both
			// are read as the words they show.
			text = strings.Join(strings.Fields(text), " ")
			html := html.UnescapeString(doc)
			for _, w := range tc.text {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q: %s", w, text)
				}
			}
			for _, w := range tc.html {
				if !strings.Contains(html, w) {
					t.Errorf("HTML lacks %q", w)
				}
			}
			for _, w := range tc.none {
				if strings.Contains(text, w) || strings.Contains(html, w) {
					t.Errorf("the email says %q", w)
				}
			}
		})
	}
}
