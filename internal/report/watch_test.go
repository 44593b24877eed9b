package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/finops-oss/finops/internal/analysis"
)

// watchResult is handResult with a week of the watch: one alert, one stop
// that saved ¥78 (6.5 h × ¥12, metrics.md's example), a dry run that would
// have saved ¥120 (10 h × ¥12) and a refusal; resource, team and title are
// hostile bill text.
func watchResult(t *testing.T) *analysis.Result {
	r := handResult(t)
	at := time.Date(2026, 11, 18, 14, 0, 0, 0, time.UTC)
	code0 := 0
	r.Watch = &analysis.WatchSummary{
		Alerts: []analysis.WatchAlert{{At: at.Add(-time.Hour), Resource: "<script>alert(1)</script>", Team: "=cmd|' /C calc'!A0",
			Event: "idle", Channel: "slack#0", Title: "=HYPERLINK(\"http://evil\")\x1b[31m idle"}},
		Actions: []analysis.WatchAction{
			{At: at, Resource: "<script>alert(1)</script>", Team: "nlp", Action: "stop", Outcome: "done", ExitCode: &code0,
				Rate: new(12.0), Until: at.Add(390 * time.Minute), NextBusy: true, Hours: 6.5, Saved: new(78.0)},
			{At: at, Resource: "gpu-b", Team: "nlp", Action: "stop", Outcome: "dry-run", DryRun: true,
				Rate: new(12.0), Until: at.Add(10 * time.Hour), Hours: 10, Saved: new(120.0)},
			{At: at, Resource: "gpu-c", Team: "cv", Action: "stop", Outcome: "refused"},
		},
		Saved: 78, WouldHaveSaved: 120,
	}
	return r
}

// wantWatchLine is watchLine of watchResult, written out by hand.
const wantWatchLine = "1 alert sent, 1 action taken, 1 not taken or failed, saving an estimated ¥78.00; 1 dry run would have saved ¥120.00"

// TestWatchSection: with watch activity every output shows it — the page's
// section (bill text escaped), the workbook's Watch sheet (formulas
// defused), the JSON's watch object (valid against the schema), one line in
// the terminal summary and the email; without, none of them mentions it.
func TestWatchSection(t *testing.T) {
	sch := reportSchema(t)
	for _, tt := range []struct {
		name  string
		r     *analysis.Result
		watch bool
	}{
		{"with watch activity", watchResult(t), true},
		{"without", handResult(t), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkWatchPage(t, tt.r, tt.watch)
			checkWatchJSON(t, sch, tt.r, tt.watch)
			checkWatchBook(t, tt.r, tt.watch)

			var term bytes.Buffer
			if err := WriteSummary(&term, tt.r, testMeta(), false); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(term.String(), "Watch: "+wantWatchLine); got != tt.watch {
				t.Errorf("terminal has the watch line: %v, want %v\n%s", got, tt.watch, term.String())
			}
			_, text, html, err := EmailBody(tt.r, EmailOptions{MaxFindings: 5, MaxTeams: 5})
			if err != nil {
				t.Fatal(err)
			}
			flat := strings.Join(strings.Fields(text), " ")
			if got := strings.Contains(flat, "Watch: "+wantWatchLine+"."); got != tt.watch {
				t.Errorf("email text has the watch line: %v, want %v", got, tt.watch)
			}
			if got := strings.Contains(html, "Watch: "+wantWatchLine); got != tt.watch {
				t.Errorf("email html has the watch line: %v, want %v", got, tt.watch)
			}
		})
	}
}

// checkWatchPage checks the page has the Watch section exactly when watch,
// the bill's text escaped.
func checkWatchPage(t *testing.T, r *analysis.Result, watch bool) {
	t.Helper()
	page := renderHTML(t, r, nil)
	if got := strings.Contains(page, `id="h-watch"`); got != watch {
		t.Errorf("page has a Watch section: %v, want %v", got, watch)
	}
	if watch {
		for _, want := range []string{wantWatchLine, "&lt;script&gt;alert(1)&lt;/script&gt;", "would have ¥120.00", "6.5 h"} {
			if !strings.Contains(page, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		if strings.Contains(page, "<script>alert(1)") {
			t.Error("page holds the bill's <script> unescaped")
		}
	}
}

// checkWatchJSON checks the JSON is valid against the schema and has the
// watch object, with its amounts and actions, exactly when watch.
func checkWatchJSON(t *testing.T, sch *jsonschema.Schema, r *analysis.Result, watch bool) {
	t.Helper()
	doc, raw := decodeJSON(t, r)
	if err := validateJSON(sch, raw); err != nil {
		t.Errorf("JSON does not match the schema: %v", err)
	}
	w, ok := doc["watch"].(map[string]any)
	if ok != watch {
		t.Fatalf("JSON has watch: %v, want %v", ok, watch)
	}
	if watch {
		acts := w["actions"].([]any)
		if w["saved"] != 78.0 || w["would_have_saved"] != 120.0 || len(acts) != 3 {
			t.Errorf("JSON watch %v", w)
		}
		if _, has := acts[2].(map[string]any)["until"]; has {
			t.Error("the refused action has an until")
		}
	}
}

// checkWatchBook checks the workbook has the Watch sheet, just before the
// utilization sheet and with formulas defused, exactly when watch.
func checkWatchBook(t *testing.T, r *analysis.Result, watch bool) {
	t.Helper()
	_, f := writeBook(t, r)
	sheets := f.GetSheetList()
	i := strings.Index(strings.Join(sheets, "|"), sheetWatch)
	if (i >= 0) != watch {
		t.Fatalf("sheets %q: Watch present %v, want %v", sheets, i >= 0, watch)
	}
	if watch {
		rows, err := f.GetRows(sheetWatch)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 5 || rows[1][0] != "action" || rows[4][0] != "alert" {
			t.Fatalf("Watch rows %q: want a header, 3 actions, 1 alert", rows)
		}
		for _, row := range rows {
			for _, c := range row {
				if strings.HasPrefix(c, "=") {
					t.Errorf("cell %q would be a formula", c)
				}
			}
		}
		if wi, ui := slices.Index(sheets, sheetWatch), slices.Index(sheets, sheetUtil); wi != ui-1 {
			t.Errorf("sheets %q: Watch should come just before %s", sheets, sheetUtil)
		}
	}
}

// TestWatchUntilReason: an action's "Until" says what ended its saving
// when it was not the next busy minute, so a running week's "until now"
// is not read as the period's end.
func TestWatchUntilReason(t *testing.T) {
	for _, tt := range []struct {
		act  analysis.WatchAction
		want string
	}{
		{analysis.WatchAction{NextBusy: true, UntilBy: "busy"}, ""},
		{analysis.WatchAction{UntilBy: "now"}, "now: the period has not ended"},
		{analysis.WatchAction{UntilBy: "data"}, "last minute with data"},
		{analysis.WatchAction{UntilBy: "end"}, "end of period"},
	} {
		if got := untilReason(tt.act); got != tt.want {
			t.Errorf("untilReason(%+v) = %q, want %q", tt.act, got, tt.want)
		}
	}
	r := watchResult(t)
	r.Watch.Actions[1].UntilBy = "now"
	if page := renderHTML(t, r, nil); !strings.Contains(page, "(now: the period has not ended)") {
		t.Error("the page's dry run does not say its saving ends now")
	}
}
