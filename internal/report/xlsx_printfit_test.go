package report

import (
	"fmt"
	"math"
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/analysis"
)

// The print invariant (README §Printing): every sheet a person would print
// fits one landscape page wide, on A4 and on Letter, with its 11 pt text at
// 8 pt or more; the hourly utilization and billing lines sheets print
// nothing. These tests recompute it from what the workbook says (page
// setup, margins, print area, column widths), with their own constants, not
// the workbook package's.
const (
	// LibreOffice draws a column one width unit wide 7 pt wide at 100 %:
	// measured from its PDF of a sheet of ten columns 10 units wide, whose
	// columns start 69.98 pt apart (LibreOffice 7.4). Excel draws narrower
	// (7 px + padding, about 5.3 pt), so LibreOffice is the binding one.
	loPointsPerUnit = 7.0
	letterWidthIn   = 11.0       // landscape
	a4WidthIn       = 297 / 25.4 // landscape
	bodyPt, minPt   = 11.0, 8.0  // Calibri 11, the smallest readable
	noPrintSheetRE  = `^(Utilization \(hourly\)|Billing lines)( \(\d+\))?$`
	printAreaRE     = `^'(?:[^']|'')+'!\$([A-Z]+)\$(\d+):\$([A-Z]+)\$(\d+)$`
	printTitlesWant = "'%s'!$1:$1"
)

var (
	noPrintSheet = regexp.MustCompile(noPrintSheetRE)
	printArea    = regexp.MustCompile(printAreaRE)
)

// checkPrintFit checks every sheet of f against the print invariant and
// returns each printed sheet's print-area header row.
func checkPrintFit(t *testing.T, label string, f *excelize.File) map[string][]string {
	t.Helper()
	names := map[string]string{}
	for _, dn := range f.GetDefinedName() {
		names[dn.Scope+"|"+dn.Name] = dn.RefersTo
	}
	headers := map[string][]string{}
	for _, sheet := range f.GetSheetList() {
		where := label + " " + sheet
		pl, err := f.GetPageLayout(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if pl.Orientation == nil || *pl.Orientation != "landscape" || pl.FitToWidth == nil || *pl.FitToWidth != 1 ||
			pl.FitToHeight == nil || *pl.FitToHeight != 0 {
			t.Errorf("%s: page layout %+v, want landscape, one page wide", where, pl)
		}
		m := printArea.FindStringSubmatch(names[sheet+"|_xlnm.Print_Area"])
		if m == nil {
			t.Errorf("%s: print area %q, want one block of cells", where, names[sheet+"|_xlnm.Print_Area"])
			continue
		}
		c1, _ := excelize.ColumnNameToNumber(m[1])
		c2, _ := excelize.ColumnNameToNumber(m[3])
		if noPrintSheet.MatchString(sheet) {
			// One cell, empty, and no title row: nothing to print.
			v, _ := f.GetCellValue(sheet, m[1]+m[2])
			if c1 != c2 || m[2] != m[4] || v != "" || names[sheet+"|_xlnm.Print_Titles"] != "" {
				t.Errorf("%s: print area %s (value %q), titles %q: want one empty cell and no titles", where,
					names[sheet+"|_xlnm.Print_Area"], v, names[sheet+"|_xlnm.Print_Titles"])
			}
			continue
		}
		if want := fmt.Sprintf(printTitlesWant, sheet); names[sheet+"|_xlnm.Print_Titles"] != want {
			t.Errorf("%s: print titles %q, want %q", where, names[sheet+"|_xlnm.Print_Titles"], want)
		}
		props, _ := f.GetSheetProps(sheet)
		if props.FitToPage == nil || !*props.FitToPage {
			t.Errorf("%s: fit to page off: the one-page width is ignored", where)
		}
		margins, err := f.GetPageMargins(sheet)
		if err != nil || margins.Left == nil || margins.Right == nil {
			t.Errorf("%s: no margins set (%v): each program would use its own", where, err)
			continue
		}
		width, header := printAreaColumns(t, f, sheet, c1, c2)
		headers[sheet] = header
		checkPaperScale(t, where, m[1]+":"+m[3], width, *margins.Left, *margins.Right)
	}
	return headers
}

// printAreaColumns is the total width of columns c1…c2 of sheet, in
// LibreOffice's column units, and their header row.
func printAreaColumns(t *testing.T, f *excelize.File, sheet string, c1, c2 int) (float64, []string) {
	t.Helper()
	width := 0.0
	var header []string
	for c := c1; c <= c2; c++ {
		name, _ := excelize.ColumnNumberToName(c)
		w, err := f.GetColWidth(sheet, name)
		if err != nil {
			t.Fatal(err)
		}
		width += w
		v, _ := f.GetCellValue(sheet, name+"1")
		header = append(header, v)
	}
	return width, header
}

// checkPaperScale checks a print area (cols "A:F") of the given width,
// scaled to one page wide between the left and right margins (inches),
// prints its body text at minPt or more on Letter and on A4.
func checkPaperScale(t *testing.T, where, area string, width, left, right float64) {
	t.Helper()
	for _, paper := range []struct {
		name    string
		widthIn float64
	}{{"Letter", letterWidthIn}, {"A4", a4WidthIn}} {
		printable := (paper.widthIn - left - right) * 72
		scale := math.Min(1, math.Floor(100*printable/(width*loPointsPerUnit))/100)
		if got := bodyPt * scale; got < minPt {
			t.Errorf("%s on %s: print area %s is %.1f units wide, prints at %.0f %%: %.1f pt, want ≥ %.0f",
				where, paper.name, area, width, 100*scale, got, minPt)
		}
	}
}

// TestPrintFitNamedCases: issue 33's sheets. By resource printed its 25
// columns at ≈3 pt; it prints the columns that matter, among them the cost,
// the idle cost and the utilization. Recommendations printed at ≈4.5 pt with
// the Reason cut: it prints the action, the savings and the whole Reason.
// Billing lines (≈2.6 pt) and the hourly utilization (34 of 49 pages) print
// nothing.
func TestPrintFitNamedCases(t *testing.T) {
	_, f := writeBook(t, handResult(t))
	headers := checkPrintFit(t, "hand", f)
	for sheet, want := range map[string][]string{
		sheetResources: {"Resource ID", "Team", "Cost", "Idle cost", "Avg utilization"},
		sheetRecs:      {"Resource ID", "Action", "Monthly savings", "Reason"},
		sheetFindings:  {"Finding", "Money at stake", "What to do"},
		sheetTeams:     {"Team", "Cost", "Idle cost"},
	} {
		for _, col := range want {
			if !containsStr(headers[sheet], col) {
				t.Errorf("%s prints %q, without %q", sheet, headers[sheet], col)
			}
		}
	}
	for _, sheet := range []string{sheetUtil, sheetLines} {
		if _, ok := headers[sheet]; ok {
			t.Errorf("%s prints", sheet)
		}
	}
	// The Reason column wraps, so a long reason prints whole in its column.
	i := slicesIndex(f, sheetRecs, "Reason")
	if st := cellStyle(t, f, sheetRecs, i); st.Alignment == nil || !st.Alignment.WrapText {
		t.Errorf("Recommendations' Reason does not wrap: a long one is cut on paper")
	}
}

func containsStr(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// slicesIndex is the cell name of sheet's row-2 cell under header title.
func slicesIndex(f *excelize.File, sheet, title string) string {
	rows, _ := f.GetRows(sheet)
	for c, h := range rows[0] {
		if h == title {
			name, _ := excelize.ColumnNumberToName(c + 1)
			return name + "2"
		}
	}
	return "A2"
}

func cellStyle(t *testing.T, f *excelize.File, sheet, cell string) *excelize.Style {
	t.Helper()
	id, err := f.GetCellStyle(sheet, cell)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestPrintFitGenerated: GENERATED fleets (seeded): 1–6 teams, 1–40
// resources with IDs, names, models and team names up to 60 characters,
// findings, recommendations with long reasons, pools, idle spans, and in half
// of them a chargeback and the watch's actions and alerts; the fleet's
// workbook and a random team's must keep the print invariant.
func TestPrintFitGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	word := func(n int) string {
		const abc = "abcdefghijklmnopqrstuvwxyz0123456789-._/"
		b := make([]byte, 1+rng.Intn(n))
		for i := range b {
			b[i] = abc[rng.Intn(len(abc))]
		}
		return string(b)
	}
	seen := map[string]int{} // printed sheets, to show the cases reach every kind
	for i := range 25 {
		r := randomFleet(rng, word)
		meta := testMeta()
		_, f := writeBookMeta(t, r, meta)
		for sheet := range checkPrintFit(t, fmt.Sprintf("case %d fleet", i), f) {
			seen[sheet]++
		}
		team := r.ByTeam[rng.Intn(len(r.ByTeam))].Team
		meta.Team = team
		_, tf := writeBookMeta(t, r.ForTeam(team), meta)
		checkPrintFit(t, fmt.Sprintf("case %d team %q", i, team), tf)
	}
	for _, sheet := range []string{sheetSummary, sheetFindings, sheetTeams, sheetChargeback, sheetTasks, sheetResources,
		sheetIdle, sheetRecs, sheetPools, sheetWatch} {
		if seen[sheet] == 0 {
			t.Errorf("no generated case printed %s", sheet)
		}
	}
}

// randomFleet is a week of a random fleet: what the sheets show, at sizes
// and text lengths a real one can have.
func randomFleet(rng *rand.Rand, word func(int) string) *analysis.Result {
	loc, _ := time.LoadLocation("Asia/Shanghai")
	start := time.Date(2026, 11, 16, 0, 0, 0, 0, loc)
	r := &analysis.Result{
		Period:   analysis.Period{Start: start, End: start.AddDate(0, 0, 7), TimeZone: "Asia/Shanghai", Label: "2026-W47"},
		Currency: "CNY",
	}
	money := func() float64 { return math.Round(rng.Float64()*math.Pow(10, float64(1+rng.Intn(6)))*100) / 100 }
	teams := make([]string, 1+rng.Intn(6))
	for i := range teams {
		teams[i] = fmt.Sprintf("t%d-%s", i, word(40))
		b := money()
		r.ByTeam = append(r.ByTeam, analysis.TeamCost{Team: teams[i], Cost: money(), IdleCost: money(), Budget: &b,
			PreviousCost: money(), MonthToDate: money(), MonthForecast: money()})
	}
	for i := range 1 + rng.Intn(40) {
		id := fmt.Sprintf("r%d-%s", i, word(58))
		team := teams[rng.Intn(len(teams))]
		gpus := 1 + rng.Intn(8)
		r.ByResource = append(r.ByResource, analysis.ResourceCost{ResourceID: id, ResourceName: word(60), Provider: word(20),
			GPUModel: word(30), GPUCount: gpus, Pricing: word(12), Team: team, Cost: money(), GPUHoursBilled: 168 * float64(gpus),
			GPUHoursIdle: 50, IdleCost: money(), AvgUtilization: rng.Float64() * 100, PreviousCost: money()})
		r.Recommendations = append(r.Recommendations, analysis.Recommendation{ResourceID: id, GPUModel: word(30), GPUCount: gpus,
			CurrentMode: "hourly", Action: analysis.ActionStopWhenIdle, CurrentMonthlyCost: money(), RecommendedMonthlyCost: money(),
			MonthlySavings: money(), Confidence: "high", Reason: strings.Repeat(word(12)+" ", 1+rng.Intn(30)), ID: "adv-" + word(8)})
		r.Findings = append(r.Findings, analysis.Finding{Kind: analysis.FindingForgotten, Severity: "high", ResourceID: id,
			Team: team, Money: money(), Text: strings.Repeat(word(10)+" ", 1+rng.Intn(40))})
		r.IdleSpans = append(r.IdleSpans, analysis.IdleSpan{ResourceID: id, GPU: "GPU-" + word(40), Start: start,
			End: start.Add(time.Duration(1+rng.Intn(100)) * time.Hour), Hours: 3, Cost: money()})
		r.Tasks = append(r.Tasks, analysis.TaskCost{Task: word(50), Team: team, Kind: word(10), Cost: money(), GPUHours: 12})
	}
	if rng.Intn(2) == 0 { // the optional sheets: Chargeback, Watch
		r.Chargeback = &analysis.Chargeback{UnallocatedRule: word(30), IdleRule: word(30), Total: money()}
		for _, team := range teams {
			r.Chargeback.Teams = append(r.Chargeback.Teams, analysis.TeamChargeback{Team: team, Direct: money(),
				Unallocated: money(), Idle: money(), ChargedBack: money()})
		}
		rate, saved := money(), money()
		r.Watch = &analysis.WatchSummary{}
		for _, rc := range r.ByResource {
			r.Watch.Actions = append(r.Watch.Actions, analysis.WatchAction{At: start, Resource: rc.ResourceID, Team: rc.Team,
				Action: word(20), Outcome: "done", Rate: &rate, Until: start.Add(time.Hour), Hours: 1, Saved: &saved})
			r.Watch.Alerts = append(r.Watch.Alerts, analysis.WatchAlert{At: start, Resource: rc.ResourceID, Team: rc.Team,
				Event: "idle", Channel: "slack#0", Title: strings.Repeat(word(12)+" ", 1+rng.Intn(10))})
		}
	}
	for range rng.Intn(4) {
		r.Pools = append(r.Pools, analysis.Pool{Provider: word(20), GPUModel: word(30), Resources: 2, GPUs: 4,
			CurrentMonthlyCost: money(), MonthlyCards: 3, PoolMonthlyCost: money(), MonthlySavings: money(),
			Reason: strings.Repeat(word(12)+" ", 1+rng.Intn(30))})
	}
	return r
}
