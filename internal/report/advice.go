package report

import (
	"fmt"

	"github.com/finops-oss/finops/internal/analysis"
)

// adviceNotes are the lines every report shows under its recommendations
// about the advice someone decided (finops advice): how many are hidden, and
// what the advice marked done really saved (metrics.md §Advice). None when
// nothing was decided.
func adviceNotes(r *analysis.Result) []string {
	a := r.Advice
	if a == nil {
		return nil
	}
	var out []string
	if a.Hidden > 0 {
		noun := "recommendations"
		if a.Hidden == 1 {
			noun = "recommendation"
		}
		out = append(out, fmt.Sprintf("%d %s hidden (dismissed/snoozed): finops advice list --all", a.Hidden, noun))
	}
	measured := len(a.Realised) - a.TooEarly
	early := ""
	if a.TooEarly > 0 {
		early = fmt.Sprintf("%d too early to tell (under 7 full days since marked done)", a.TooEarly)
	}
	switch {
	case measured > 0 && early != "":
		out = append(out, fmt.Sprintf("Advice done: realised %s/month (expected %s); %s",
			money(r.Currency, a.RealisedMonthlySavings), money(r.Currency, a.ExpectedMonthlySavings), early))
	case measured > 0:
		out = append(out, fmt.Sprintf("Advice done: realised %s/month (expected %s)",
			money(r.Currency, a.RealisedMonthlySavings), money(r.Currency, a.ExpectedMonthlySavings)))
	case early != "":
		out = append(out, "Advice done: "+early)
	}
	return out
}

// adviceIDOf is the id of the open advice on a resource ("" when none).
func adviceIDOf(recs []analysis.Recommendation, resource string) string {
	for _, rec := range recs {
		if rec.ResourceID == resource && rec.ID != "" {
			return rec.ID
		}
	}
	return ""
}
