package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/store"
)

// TestAdviceCommands runs finops advice on the demo fleet (its week is
// 2026-W48, the last complete week at the tests' clock): the list names the
// open advice by id; an unknown id, a past date and a held run lock are
// refused; after `advice done`, `dismiss` and `snooze`, the next report lists
// only the advice still open, its savings total without the others, and
// says what was hidden.
func TestAdviceCommands(t *testing.T) {
	dir, run := demoFleet(t)
	before := readSummary(t, filepath.Join(dir, "finops-2026-W48.json"))

	// The demo's advice (TestDemoStories): the A100 pair to hourly, the
	// 4090 and the A10G stopped when idle, the L40S batch box to spot.
	hourly := analysis.AdviceID("autodl-a100x2", analysis.ActionSwitchToHourly)
	spot := analysis.AdviceID("autodl-l40s-batch", analysis.ActionSwitchToSpot)
	stop := analysis.AdviceID("autodl-4090-01", analysis.ActionStopWhenIdle)
	checkAdviceListed(t, run, before, hourly, spot, stop)
	checkAdviceRefusals(t, run, hourly, spot)
	db := filepath.Join(dir, "demo-data", "finops.db")
	checkAdviceBusy(t, run, db, hourly)
	checkAdviceDecisions(t, run, hourly, spot, stop)
	checkAdviceReportAfter(t, run, dir, before, hourly, spot, stop)
	checkAdviceOfLatestRun(t, run, db)
}

// adviceRun runs finops in the demo fleet: exit code, stdout, stderr.
type adviceRun = func(args ...string) (int, string, string)

// checkAdviceListed: the list names the open advice of the report by id,
// the three the demo's stories expect among them.
func checkAdviceListed(t *testing.T, run adviceRun, before analysis.Result, hourly, spot, stop string) {
	t.Helper()
	code, out, errs := run("advice", "list")
	if code != 0 {
		t.Fatalf("advice list: exit %d\n%s%s", code, out, errs)
	}
	listed := regexp.MustCompile(`(?m)^adv-[0-9a-f]{8}`).FindAllString(out, -1)
	var want []string
	for _, rec := range before.Recommendations {
		if rec.Action != analysis.ActionKeep {
			if rec.ID == "" {
				t.Errorf("%s: %s without an id in the JSON", rec.ResourceID, rec.Action)
			}
			want = append(want, rec.ID)
		}
	}
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) || !slices.Contains(listed, hourly) || !slices.Contains(listed, spot) || !slices.Contains(listed, stop) {
		t.Fatalf("advice list ids %v, want the report's %v with %s, %s and %s:\n%s", listed, want, hourly, spot, stop, out)
	}
}

// checkAdviceRefusals: an unknown id and a bad date are usage errors that
// say what to type instead.
func checkAdviceRefusals(t *testing.T, run adviceRun, hourly, spot string) {
	t.Helper()

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a typo names the nearest id", []string{"advice", "done", hourly[:len(hourly)-1] + "x"}, cli.ExitUsage, "did you mean " + hourly + "?"},
		{"an unknown id names the open ones", []string{"advice", "dismiss", "adv-zzzzzzzz"}, cli.ExitUsage, "open advice: "},
		{"a past date", []string{"advice", "snooze", spot, "--until", "2026-11-29"}, cli.ExitUsage, "not in the future"},
		{"today is not in the future", []string{"advice", "snooze", spot, "--until", "2026-11-30"}, cli.ExitUsage, "not in the future"},
		{"not a date", []string{"advice", "snooze", spot, "--until", "next week"}, cli.ExitUsage, "want a date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, want %d; stderr %q, want %q\n%s", code, tc.code, errs, tc.want, out)
			}
		})
	}

}

// checkAdviceBusy: under another run's lock, a decision waits for nothing:
// busy, nothing stored.
func checkAdviceBusy(t *testing.T, run adviceRun, db, hourly string) {
	t.Helper()
	held, err := store.AcquireRunLock(db, "run 2026-W48", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs := run("advice", "done", hourly)
	held.Release()
	if code != cli.ExitBusy {
		t.Fatalf("advice done under a held run lock: exit %d, want %d\n%s", code, cli.ExitBusy, errs)
	}
}

// checkAdviceDecisions records done, dismiss and snooze, and checks that
// list --all (text and JSON) shows them as recorded and list hides them.
func checkAdviceDecisions(t *testing.T, run adviceRun, hourly, spot, stop string) {
	t.Helper()

	for _, args := range [][]string{
		{"advice", "done", strings.ToUpper(hourly), "--why", "=HYPERLINK(\"http://x\") moved to hourly"},
		{"advice", "dismiss", stop, "--why", "it serves the demo"},
		{"advice", "snooze", spot, "--until", "2026-12-31"},
	} {
		if code, out, errs := run(args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	code, out, errs := run("advice", "list", "--all")
	if code != 0 {
		t.Fatalf("advice list --all: exit %d\n%s%s", code, out, errs)
	}
	for _, w := range []string{hourly + "  autodl-a100x2", "done 2026-11-30", "dismissed 2026-11-30", "snoozed until 2026-12-31",
		"it serves the demo"} {
		if !strings.Contains(out, w) {
			t.Errorf("advice list --all lacks %q:\n%s", w, out)
		}
	}
	checkAdviceListJSON(t, run, hourly, spot)
	if code, out, _ = run("advice", "list"); code != 0 || strings.Contains(out, hourly) || strings.Contains(out, spot) || strings.Contains(out, stop) {
		t.Errorf("advice list: exit %d, or it still shows decided advice:\n%s", code, out)
	}
}

// checkAdviceListJSON: for scripts, list --all is one JSON object, the
// decision as recorded, the why as typed.
func checkAdviceListJSON(t *testing.T, run adviceRun, hourly, spot string) {
	t.Helper()
	// For scripts: one JSON object, the decision as recorded, the why as typed.
	code, out, errs := run("--log-format", "json", "advice", "list", "--all")
	var listed2 struct {
		Command, Period string
		Advice          []struct {
			ID, Decision, Why string
			Open              bool
			Until             *time.Time
		}
	}
	if err := json.Unmarshal([]byte(out), &listed2); code != 0 || err != nil || listed2.Command != "advice list" ||
		listed2.Period != "2026-W48" {
		t.Fatalf("advice list --all in JSON: exit %d, %v\n%s%s", code, err, out, errs)
	}
	for _, e := range listed2.Advice {
		switch e.ID {
		case hourly:
			if e.Decision != "done" || e.Open || e.Why != "=HYPERLINK(\"http://x\") moved to hourly" {
				t.Errorf("%s in JSON: %+v", e.ID, e)
			}
		case spot:
			// 2026-12-31 00:00 in the demo's Asia/Shanghai.
			if e.Decision != "snoozed" || e.Until == nil || !e.Until.Equal(time.Date(2026, 12, 30, 16, 0, 0, 0, time.UTC)) {
				t.Errorf("%s in JSON: %+v", e.ID, e)
			}
		}
	}
}

// checkAdviceReportAfter: the next report lists only the advice still
// open, its savings total without the others, and says what was hidden.
func checkAdviceReportAfter(t *testing.T, run adviceRun, dir string, before analysis.Result, hourly, spot, stop string) {
	t.Helper()
	rep := filepath.Join(dir, "after")
	if code, out, errs := run("report", "--format", "json,html", "--out", rep); code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, out, errs)
	}
	after := readSummary(t, filepath.Join(rep, "finops-2026-W48.json"))
	checkAdviceOpenAfter(t, before, after, hourly, spot, stop)
	checkAdvicePageAfter(t, filepath.Join(rep, "finops-2026-W48.html"), hourly, spot, stop)
}

// checkAdviceOpenAfter: open now is the advice of the first report but the
// three decided; the total is the first report's less their savings.
func checkAdviceOpenAfter(t *testing.T, before, after analysis.Result, hourly, spot, stop string) {
	t.Helper()
	// Open now: the advice of the first report but the three decided; the
	// total is the first report's less their savings.
	wantSavings := before.Totals.MonthlySavings
	var open []string
	for _, rec := range before.Recommendations {
		switch rec.ID {
		case hourly, spot, stop:
			wantSavings -= rec.MonthlySavings
		case "":
		default:
			open = append(open, rec.ID)
		}
	}
	var got []string
	for _, rec := range after.Recommendations {
		if rec.ID != "" {
			got = append(got, rec.ID)
		}
	}
	if !slices.Equal(got, open) {
		t.Errorf("open advice after the decisions %v, want %v", got, open)
	}
	// Each amount of the JSON is rounded to the fen: the difference of
	// four of them may be off by up to 2 fen.
	if d := after.Totals.MonthlySavings - wantSavings; d > 0.02 || d < -0.02 {
		t.Errorf("monthly_savings %.2f, want %.2f", after.Totals.MonthlySavings, wantSavings)
	}
	// Decided after the week's end: hidden in its report, but too early to
	// measure on it (no day after the decision is in it).
	if a := after.Advice; a == nil || a.Hidden != 2 || a.Done != 1 || len(a.Realised) != 1 ||
		a.Realised[0].Status != analysis.RealisedTooEarly || a.Realised[0].ID != hourly || a.TooEarly != 1 {
		t.Errorf("advice summary %+v, want 2 hidden, 1 done and too early", after.Advice)
	}
}

// checkAdvicePageAfter: the page says what was hidden and shows none of
// the decided advice.
func checkAdvicePageAfter(t *testing.T, path, hourly, spot, stop string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, w := range []string{"2 recommendations hidden (dismissed/snoozed): finops advice list --all",
		"Advice done: 1 too early to tell (under 7 full days since marked done)"} {
		if !strings.Contains(page, w) {
			t.Errorf("the page does not say %q", w)
		}
	}
	for _, id := range []string{hourly, spot, stop} {
		if strings.Contains(page, id) {
			t.Errorf("the page still shows %s", id)
		}
	}

}

// checkAdviceOfLatestRun: the advice listed is the latest report's that
// finops run made, when there is one.
func checkAdviceOfLatestRun(t *testing.T, run adviceRun, db string) {
	t.Helper()
	// The advice listed is the latest report's that finops run made, when
	// there is one: here a run of 2026-W47 in the ledger.
	if _, out, _ := run("advice", "list"); !strings.HasPrefix(out, "advice of 2026-W48\n") {
		t.Errorf("without a run, advice list is not of the last complete week:\n%s", out)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.BeginRun(context.Background(), "2026-W47")
	if err == nil {
		err = st.SetStage(context.Background(), r.ID, store.StageReport, store.StageOK)
	}
	if err == nil {
		err = st.FinishRun(context.Background(), r.ID, store.RunOK, "")
	}
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run("advice", "list", "--all"); code != 0 || !strings.HasPrefix(out, "advice of 2026-W47\n") {
		t.Errorf("after a run of 2026-W47: exit %d\n%s%s", code, out, errs)
	}
}
