package report

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// adviceResult is handResult after decisions of finops advice: its advice
// recommendation that saves most still open with its id, two hidden, one done and measured
// (¥100 a day before, ¥0 after: 100 × 30.4375 = ¥3,043.75 against ¥3,000
// expected) and one done 3 days ago.
func adviceResult(t *testing.T) *analysis.Result {
	r := handResult(t)
	r.Recommendations[2].ID = "adv-0123abcd" // gpu-a100-1, switch to hourly
	at := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	r.Advice = &analysis.AdviceSummary{Hidden: 2, Done: 2, TooEarly: 1,
		RealisedMonthlySavings: 3043.75, ExpectedMonthlySavings: 3000,
		Realised: []analysis.RealisedAdvice{
			{ID: "adv-00000001", ResourceID: "card", Action: analysis.ActionRelease, DecidedAt: at,
				Status: analysis.RealisedMeasured, DaysAfter: 20, BeforePerDay: 100, RealisedMonthlySavings: 3043.75,
				ExpectedMonthlySavings: 3000},
			{ID: "adv-00000002", ResourceID: "box", Action: analysis.ActionRelease, DecidedAt: at.AddDate(0, 0, 17),
				Status: analysis.RealisedTooEarly, DaysAfter: 3},
		}}
	return r
}

// TestAdviceNotes: the hidden and realised lines, as every output words them.
func TestAdviceNotes(t *testing.T) {
	base := handResult(t)
	for _, tc := range []struct {
		name string
		a    *analysis.AdviceSummary
		want []string
	}{
		{name: "no decisions"},
		{name: "one hidden", a: &analysis.AdviceSummary{Hidden: 1},
			want: []string{"1 recommendation hidden (dismissed/snoozed): finops advice list --all"}},
		{name: "only too early", a: &analysis.AdviceSummary{Done: 1, TooEarly: 1,
			Realised: []analysis.RealisedAdvice{{Status: analysis.RealisedTooEarly}}},
			want: []string{"Advice done: 1 too early to tell (under 7 full days since marked done)"}},
		{name: "hidden, measured and too early", a: adviceResult(t).Advice, want: []string{
			"2 recommendations hidden (dismissed/snoozed): finops advice list --all",
			"Advice done: realised ¥3,043.75/month (expected ¥3,000.00); 1 too early to tell (under 7 full days since marked done)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := *base
			r.Advice = tc.a
			got := adviceNotes(&r)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("notes %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAdviceInOutputs: the id and the notes in the HTML page, the email and
// the terminal summary (its top actions); the JSON keeps the schema.
func TestAdviceInOutputs(t *testing.T) {
	r := adviceResult(t)
	hidden := "2 recommendations hidden (dismissed/snoozed): finops advice list --all"
	realised := "Advice done: realised ¥3,043.75/month (expected ¥3,000.00)"

	page := renderHTML(t, r, nil)
	_, text, html, err := EmailBody(r, EmailOptions{MaxFindings: 5})
	if err != nil {
		t.Fatal(err)
	}
	var term strings.Builder
	if err := WriteSummary(&term, r, testMeta(), false); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"html": page, "email text": text, "email html": html, "terminal": term.String()} {
		for _, w := range []string{hidden, realised} {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q", name, w)
			}
		}
	}
	if !strings.Contains(page, `<td class="id">adv-0123abcd</td>`) {
		t.Error("the HTML recommendations table lacks the advice's id")
	}
	if !strings.Contains(text, "gpu-a100-1 · adv-0123abcd") {
		t.Errorf("the email's finding of the advice lacks its id:\n%s", text)
	}
	// The terminal's top actions give the id `finops advice done` takes, on
	// the action's row; the one without an id leaves its cell blank.
	top := term.String()[strings.Index(term.String(), "Top actions"):]
	for _, w := range []string{"ADVICE ID", "Switch to hourly  gpu-a100-1                        adv-0123abcd  ¥4,800.00/mo"} {
		if !strings.Contains(top, w) {
			t.Errorf("the terminal's top actions lack %q:\n%s", w, top)
		}
	}
	_, raw := decodeJSON(t, r)
	if err := validateJSON(reportSchema(t), raw); err != nil {
		t.Errorf("JSON with advice does not match the schema: %v", err)
	}
	if !strings.Contains(string(raw), `"id":"adv-0123abcd"`) && !strings.Contains(string(raw), `"id": "adv-0123abcd"`) {
		t.Error("the JSON recommendation lacks its id")
	}
}

// TestAdviceInWorkbook: the Recommendations sheet's Advice ID column and the
// summary's realised saving.
func TestAdviceInWorkbook(t *testing.T) {
	_, f := writeBook(t, adviceResult(t))
	if v, _ := f.GetCellValue(sheetRecs, "M1"); v != "Advice ID" {
		t.Errorf("M1 = %q, want Advice ID", v)
	}
	rows, err := f.GetRows(sheetRecs)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, row := range rows {
		if len(row) >= 13 && row[12] == "adv-0123abcd" {
			found = true
		}
	}
	if !found {
		t.Error("no recommendation row has the advice id")
	}
	sum, err := f.GetRows(sheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, row := range sum {
		if len(row) == 2 {
			got[row[0]] = row[1]
		}
	}
	for k, want := range map[string]string{
		"Recommendations hidden (dismissed/snoozed)":    "2",
		"Advice done: too early to tell (under 7 days)": "1",
	} {
		if got[k] != want {
			t.Errorf("summary %q = %q, want %q", k, got[k], want)
		}
	}
	if !strings.Contains(got["Advice done: realised monthly savings"], "3,043.75") && !strings.Contains(got["Advice done: realised monthly savings"], "3043.75") {
		t.Errorf("summary realised = %q, want 3,043.75", got["Advice done: realised monthly savings"])
	}
}

// TestAdviceAllHidden: with every piece of advice decided, the page says
// none is open, not that there is nothing to advise on.
func TestAdviceAllHidden(t *testing.T) {
	r := handResult(t)
	r.Recommendations = nil
	r.Advice = &analysis.AdviceSummary{Hidden: 1}
	page := renderHTML(t, r, nil)
	if !strings.Contains(page, "No open advice.") || strings.Contains(page, "No GPU resources to advise on.") {
		t.Error("the page does not say that no advice is open")
	}
	r.Advice = nil
	if page := renderHTML(t, r, nil); !strings.Contains(page, "No GPU resources to advise on.") {
		t.Error("without decisions, the page does not say there is nothing to advise on")
	}
}
