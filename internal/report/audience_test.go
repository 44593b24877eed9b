package report

import (
	"bytes"
	"cmp"
	"fmt"
	"html"
	"math"
	"math/rand"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/testnum"
)

// audienceFleet is a fleet billed a line per resource and week, W43 to W47
// of 2026 (from Mon Oct 19, UTC), reported for W47 with five weeks of
// history and the unallocated cost spread evenly:
//
//	n1 (nlp): 100, 100, 120,  80, 150
//	n2 (nlp):   –,   –,   –,  50,  60   (started in W46)
//	c1 (cv):  200, 200, 200, 200, 180
//	u1 (no team): 90 every week
//
// No telemetry: no idle, so the idle pool is 0.
func audienceFleet(t *testing.T) *analysis.Result {
	t.Helper()
	w43 := time.Date(2026, 10, 19, 0, 0, 0, 0, time.UTC)
	costs := map[string][]string{
		"n1": {"100", "100", "120", "80", "150"},
		"n2": {"", "", "", "50", "60"},
		"c1": {"200", "200", "200", "200", "180"},
		"u1": {"90", "90", "90", "90", "90"},
	}
	var lines []finops.BillingLine
	for id, cs := range costs {
		for k, c := range cs {
			if c == "" {
				continue
			}
			cost := decimal.RequireFromString(c)
			lines = append(lines, finops.BillingLine{Provider: "TestCloud", ResourceID: id,
				ChargeStart: w43.AddDate(0, 0, 7*k), ChargeEnd: w43.AddDate(0, 0, 7*k+7),
				ChargeCategory: finops.ChargeUsage, PricingMode: finops.ModeHourly, GPUModel: "A100-80GB", GPUCount: 1,
				EffectiveCost: &cost, Currency: "USD"})
		}
	}
	end := w43.AddDate(0, 0, 35)
	p := analysis.DefaultParams()
	p.TrendWeeks = 5
	p.Chargeback = analysis.ChargebackRules{Unallocated: analysis.SpreadEven}
	res, err := analysis.Analyze(&analysis.Input{
		Window:    analysis.Window{Start: end.AddDate(0, 0, -7), End: end, Label: "2026-W47"},
		Lookback:  analysis.Window{Start: end.AddDate(0, 0, -21), End: end},
		Lines:     lines,
		Resources: []analysis.Resource{{ID: "n1", Team: "nlp"}, {ID: "n2", Team: "nlp"}, {ID: "c1", Team: "cv"}, {ID: "u1"}},
		Teams:     []analysis.Team{{Name: "nlp"}, {Name: "cv"}},
		Params:    p,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// cbFigures is a chargeback row as an output shows it.
type cbFigures struct{ direct, unallocated, idle, charged float64 }

// moverFigures is a mover as an output shows it.
type moverFigures struct {
	name               string
	cost, change, mean float64
	pct                float64 // rounded to whole percent as the text shows it
	weeks              int
}

// The team nlp's view of audienceFleet, by hand:
//
//	chargeback (W47): nlp's direct 150 + 60 = 210; cv's 180; the unallocated
//	  pool is u1's 90, spread evenly over the two teams: 45 each. nlp is
//	  charged 210 + 45 + 0 = 255.
//	movers (W47 against W43…W46, only the weeks with cost):
//	  nlp: 100, 100, 120, 80 + 50 = 130: mean 450 / 4 = 112.5 over 4 weeks;
//	    210 − 112.5 = +97.5, 97.5 / 112.5 = +86.7 %, shown +87 %.
//	  n1: 100, 100, 120, 80: mean 100 over 4; 150: +50, +50 %.
//	  n2: only W46, 50: mean 50 over 1 week (not 50 / 4 = 12.5); 60: +10, +20 %.
//	top movers: nlp (+97.5), n1 (+50), n2 (+10).
var (
	nlpCharge = cbFigures{direct: 210, unallocated: 45, idle: 0, charged: 255}
	nlpMovers = []moverFigures{
		{name: "nlp", cost: 210, change: 97.5, mean: 112.5, pct: 87, weeks: 4},
		{name: "n1", cost: 150, change: 50, mean: 100, pct: 50, weeks: 4},
		{name: "n2", cost: 60, change: 10, mean: 50, pct: 20, weeks: 1},
	}
)

// moneyRe, moverRe read the money and the mover text every output words
// the same (moverText): "+$97.50 · +87 % vs the 4-week mean ($112.50)".
var (
	moneyRe = regexp.MustCompile(`^[+−-]?[$¥][0-9,]+\.[0-9]{2}$`)
	newRe   = regexp.MustCompile(`^([+−][$¥][0-9,.]+) · new: no cost in the 4 weeks before$`)
	moverRe = regexp.MustCompile(`^([+−])([$¥][0-9,.]+) · ([+−])([0-9]+) % vs the ([0-9]+)-week mean \(([$¥][0-9,.]+)\)$`)
)

func parseMoney(t *testing.T, s string) float64 {
	t.Helper()
	s = strings.TrimSpace(s)
	if !moneyRe.MatchString(s) {
		t.Fatalf("%q is not an amount", s)
	}
	neg := strings.HasPrefix(s, "−") || strings.HasPrefix(s, "-")
	v, err := strconv.ParseFloat(strings.NewReplacer("$", "", "¥", "", ",", "", "+", "", "−", "", "-", "").Replace(s), 64)
	if err != nil {
		t.Fatal(err)
	}
	if neg {
		v = -v
	}
	return v
}

// parseMover reads a mover from its name, cost and change text (less its
// flag, " — above its recent range", where one follows).
func parseMover(t *testing.T, name, cost, text string) moverFigures {
	t.Helper()
	text, _, _ = strings.Cut(text, " — ")
	if n := newRe.FindStringSubmatch(strings.TrimSpace(text)); n != nil {
		// No cost in the weeks before: a mean of 0 over none.
		return moverFigures{name: name, cost: parseMoney(t, cost), change: parseMoney(t, n[1])}
	}
	m := moverRe.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		t.Fatalf("mover %s: %q is not a change against a mean", name, text)
	}
	change, pct := parseMoney(t, m[2]), float64(atoi(t, m[4]))
	if m[1] == "−" {
		change = -change
	}
	if m[3] == "−" {
		pct = -pct
	}
	return moverFigures{name: name, cost: parseMoney(t, cost), change: change, mean: parseMoney(t, m[6]), pct: pct, weeks: atoi(t, m[5])}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func checkMovers(t *testing.T, where string, got, want []moverFigures) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: movers %+v, want %+v", where, got, want)
	}
	for i, w := range want {
		g := got[i]
		if g.name != w.name || g.weeks != w.weeks || g.pct != w.pct {
			t.Errorf("%s: mover %d is %+v, want %+v", where, i, g, w)
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"cost", g.cost, w.cost}, {"change", g.change, w.change}, {"mean", g.mean, w.mean}} {
			// Text shows cents: within half a cent of the exact figure.
			if math.Abs(c.got-c.want) > 0.005+1e-9 {
				t.Errorf("%s %s %s = %.4f, want %.4f", where, w.name, c.what, c.got, c.want)
			}
		}
	}
}

func checkCharge(t *testing.T, where string, got, want cbFigures) {
	t.Helper()
	testnum.NearRel(t, where+" direct", got.direct, want.direct, 1e-6)
	testnum.NearRel(t, where+" unallocated", got.unallocated, want.unallocated, 1e-6)
	testnum.NearRel(t, where+" idle", got.idle, want.idle, 1e-6)
	testnum.NearRel(t, where+" charged back", got.charged, want.charged, 1e-6)
}

var (
	sectionRe = regexp.MustCompile(`(?s)<section class="card" aria-labelledby="h-([a-z-]+)">(.*?)</section>`)
	tableRe   = regexp.MustCompile(`(?s)<table id="([a-z-]+)">.*?<tbody>(.*?)</tbody>`)
	rowRe     = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRe    = regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`)
	tagRe     = regexp.MustCompile(`<[^>]+>`)
)

// htmlRows are the body rows of the table with id in page, each cell's
// text unescaped.
func htmlRows(page, id string) [][]string {
	for _, tm := range tableRe.FindAllStringSubmatch(page, -1) {
		if tm[1] != id {
			continue
		}
		var rows [][]string
		for _, rm := range rowRe.FindAllStringSubmatch(tm[2], -1) {
			var row []string
			for _, cm := range cellRe.FindAllStringSubmatch(rm[1], -1) {
				row = append(row, html.UnescapeString(tagRe.ReplaceAllString(cm[1], "")))
			}
			rows = append(rows, row)
		}
		return rows
	}
	return nil
}

// htmlSection is the section of page headed id ("" when it has none).
func htmlSection(page, id string) string {
	for _, m := range sectionRe.FindAllStringSubmatch(page, -1) {
		if m[1] == id {
			return m[2]
		}
	}
	return ""
}

// shown is what one output of an audience shows: its chargeback row (the
// team's) and its top movers.
type shown struct {
	charge cbFigures
	movers []moverFigures
}

// readOutputs renders team's page, workbook, email and digest from view
// and reads each back: the page's tables, the workbook's cells (excelize),
// the email's and the digest's lines. The digest lists at most
// digestMaxRows movers.
func readOutputs(t *testing.T, slice *analysis.Result, team string, view *Audience) map[string]shown {
	t.Helper()
	out := map[string]shown{}
	cur := regexp.QuoteMeta(symbolOf(slice.Currency))
	amount := `(` + cur + `[0-9,.]+)`

	// The page: the Chargeback table's one row, the top movers' table.
	var buf bytes.Buffer
	if err := writeHTML(&buf, slice, Meta{Team: team, View: view}, nil); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	cbSection := htmlSection(page, "chargeback")
	body := strings.Index(cbSection, "<tbody>")
	if body < 0 {
		t.Fatalf("the page has no chargeback table")
	}
	cbRows := rowRe.FindAllStringSubmatch(cbSection[body:], -1)
	if len(cbRows) != 1 {
		t.Fatalf("page chargeback rows %d, want %s's alone:\n%s", len(cbRows), team, cbSection)
	}
	var cells []string
	for _, cm := range cellRe.FindAllStringSubmatch(cbRows[0][1], -1) {
		cells = append(cells, html.UnescapeString(cm[1]))
	}
	if len(cells) != 5 || cells[0] != team {
		t.Fatalf("page chargeback row %q", cells)
	}
	p := shown{charge: cbFigures{parseMoney(t, cells[1]), parseMoney(t, cells[2]), parseMoney(t, cells[3]), parseMoney(t, cells[4])}}
	for _, row := range htmlRows(page, "top-movers") {
		p.movers = append(p.movers, parseMover(t, row[0], row[3], row[4]))
	}
	// The team's own line; none when it had no cost in any of the weeks.
	if lines := htmlRows(page, "movers"); len(lines) > 1 || len(lines) == 1 && lines[0][0] != team {
		t.Errorf("page movers' lines %q, want %s's", lines, team)
	}
	out["page"] = p

	// The workbook: Chargeback's row 2, Movers' top rows.
	meta := testMeta()
	meta.Team, meta.View = team, view
	_, f := writeBookMeta(t, slice, meta)
	num := func(sheet, cell string) float64 {
		t.Helper()
		v, err := strconv.ParseFloat(raw(t, f, sheet, cell), 64)
		if err != nil {
			t.Fatalf("%s!%s: %v", sheet, cell, err)
		}
		return v
	}
	if got := raw(t, f, sheetChargeback, "A2"); got != team || raw(t, f, sheetChargeback, "A3") != "" {
		t.Fatalf("Chargeback rows: A2 %q, A3 %q; want %s's alone", got, raw(t, f, sheetChargeback, "A3"), team)
	}
	b := shown{charge: cbFigures{num(sheetChargeback, "B2"), num(sheetChargeback, "C2"), num(sheetChargeback, "D2"),
		num(sheetChargeback, "E2")}}
	rows, err := f.GetRows(sheetMovers)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows[1:] {
		if row[0] != "top" {
			continue
		}
		r := strconv.Itoa(i + 2)
		pct := 0.0
		if raw(t, f, sheetMovers, "I"+r) != "" {
			pct = math.Round(num(sheetMovers, "I"+r) * 100)
		}
		b.movers = append(b.movers, moverFigures{name: row[1], cost: num(sheetMovers, "E"+r), mean: num(sheetMovers, "F"+r),
			weeks: int(num(sheetMovers, "G"+r)), change: num(sheetMovers, "H"+r), pct: pct})
	}
	out["workbook"] = b

	// The email's plain text: the "Charged back" line, the top movers.
	_, text, _, err := EmailBody(slice, EmailOptions{Team: team, View: view})
	if err != nil {
		t.Fatal(err)
	}
	cbLine := regexp.MustCompile(`Charged back +` + amount + ` +direct ` + amount + ` \+ shared ` + amount + ` \+ shared idle ` + amount).
		FindStringSubmatch(text)
	if cbLine == nil {
		t.Fatalf("the email has no Charged back line:\n%s", text)
	}
	e := shown{charge: cbFigures{parseMoney(t, cbLine[2]), parseMoney(t, cbLine[3]), parseMoney(t, cbLine[4]), parseMoney(t, cbLine[1])}}
	if strings.Contains(text, "\nTop movers\n") {
		e.movers = topMoverLines(t, text, "\nTop movers\n", "  - ")
	}
	out["email"] = e

	// The digest: its Charged back line and top movers.
	d, err := Digest(slice, DigestOptions{Team: team, View: view})
	if err != nil {
		t.Fatal(err)
	}
	dl := regexp.MustCompile(`Charged back: ` + amount + ` \(direct ` + amount + ` \+ shared ` + amount + ` \+ shared idle ` + amount + `\)`).
		FindStringSubmatch(d.Text)
	if dl == nil {
		t.Fatalf("the digest has no Charged back line:\n%s", d.Text)
	}
	g := shown{charge: cbFigures{parseMoney(t, dl[2]), parseMoney(t, dl[3]), parseMoney(t, dl[4]), parseMoney(t, dl[1])}}
	for _, m := range regexp.MustCompile(`(?m)^[0-9]\. ([^:]+): `+amount+`, (.*) \((team|resource)\)$`).FindAllStringSubmatch(d.Text, -1) {
		g.movers = append(g.movers, parseMover(t, m[1], m[2], m[3]))
	}
	out["digest"] = g
	return out
}

// TestAudienceSameInEveryOutput: the team nlp's page, workbook, email and
// digest, rendered from one Audience, show the chargeback and the movers
// computed by hand above.
func TestAudienceSameInEveryOutput(t *testing.T) {
	fleet := audienceFleet(t)
	slice := fleet.ForTeam("nlp")
	if slice == nil {
		t.Fatal("no slice of nlp")
	}
	for where, got := range readOutputs(t, slice, "nlp", NewAudience(slice, "nlp", fleet.Chargeback)) {
		checkCharge(t, where, got.charge, nlpCharge)
		want := nlpMovers
		if where == "digest" {
			want = want[:digestMaxRows] // the first two; "… and 1 more in the report"
		}
		checkMovers(t, where, got.movers, want)
	}
}

// topMoverLines reads the email text's list after head: "  - NAME (KIND):
// COST, CHANGE", a line wrapped onto the next ones indented.
func topMoverLines(t *testing.T, text, head, bullet string) []moverFigures {
	t.Helper()
	i := strings.Index(text, head)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", head, text)
	}
	var items []string
	for _, l := range strings.Split(text[i+len(head):], "\n") {
		switch {
		case strings.HasPrefix(l, bullet):
			items = append(items, strings.TrimPrefix(l, bullet))
		case strings.HasPrefix(l, "    ") && len(items) > 0:
			items[len(items)-1] += " " + strings.TrimSpace(l)
		default:
			goto done
		}
	}
done:
	var out []moverFigures
	re := regexp.MustCompile(`^(.+) \((team|resource)\): ([$¥][0-9,.]+), (.*)$`)
	for _, it := range items {
		m := re.FindStringSubmatch(it)
		if m == nil {
			t.Fatalf("top mover line %q", it)
		}
		out = append(out, parseMover(t, m[1], m[3], m[4]))
	}
	return out
}

// TestFleetPageRendersMovers: the fleet's page has the movers' table, the
// names and percentages of trendResult's movers (trend_testdata_test.go):
// the total +29 % (1010 / 3490 = 28.9 %), ml-train +32 % (1010 / 3150 =
// 32.1 %), the hostile team +0 %, and the top movers ml-train and
// gpu-a100-1, each +32 % vs the 4-week mean.
func TestFleetPageRendersMovers(t *testing.T) {
	var buf bytes.Buffer
	if err := writeHTML(&buf, trendResult(t), testMeta(), nil); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	lines := htmlRows(page, "movers")
	want := [][2]string{{"Total", "+29 %"}, {"ml-train", "+32 %"}, {hostileFormula, "+0 %"}}
	if len(lines) != len(want) {
		t.Fatalf("movers' lines %q, want %v", lines, want)
	}
	for i, w := range want {
		if lines[i][0] != w[0] || !strings.Contains(lines[i][3], " · "+w[1]+" vs the 4-week mean") {
			t.Errorf("line %d %q, want %s %s", i, lines[i], w[0], w[1])
		}
	}
	top := htmlRows(page, "top-movers")
	if len(top) != 2 || top[0][0] != "ml-train" || top[1][0] != "gpu-a100-1" {
		t.Fatalf("top movers %q, want ml-train, gpu-a100-1", top)
	}
	for _, row := range top {
		if !strings.Contains(row[4], "+¥1,010.00 · +32 % vs the 4-week mean (¥3,150.00)") {
			t.Errorf("top mover %q, want +¥1,010.00 · +32 %%", row)
		}
	}
	if strings.Contains(page, "<script>alert") {
		t.Error("a hostile name reached the page unescaped")
	}
}

// symbolOf is the symbol the fixtures' currencies are written with.
func symbolOf(cur string) string {
	if cur == "USD" {
		return "$"
	}
	return "¥"
}

// TestAudienceSameGenerated: random fleets (resources of random teams,
// started in random weeks, with gaps and random costs over W43…W47), and
// for every team with a slice: its page, workbook, email and digest, read
// back, show the same chargeback and top movers as each other and as
// computed from the generated bill: the chargeback row is the fleet's
// (analysis), the movers are recomputed here, each the last week against
// the mean of the weeks it had cost among the four before, the largest
// changes in money first (a team before a resource, then by name), at
// most five, those that did not move left out.
func TestAudienceSameGenerated(t *testing.T) {
	w43 := time.Date(2026, 10, 19, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewSource(3305))
	for n := range 30 {
		nres := 2 + rng.Intn(5)
		teams := []string{"t0", "t1", "t2"}
		cost := map[string][]int{} // cents per week, by resource
		resTeam := map[string]string{}
		var lines []finops.BillingLine
		var resources []analysis.Resource
		for r := range nres {
			id := fmt.Sprintf("r%d", r)
			team := teams[rng.Intn(len(teams))]
			if rng.Intn(6) == 0 {
				team = "" // a resource no team owns: the unallocated pool
			}
			resTeam[id] = team
			resources = append(resources, analysis.Resource{ID: id, Team: team})
			cost[id] = make([]int, 5)
			for k := rng.Intn(5); k < 5; k++ {
				if rng.Intn(4) == 0 {
					continue
				}
				cents := 100 + rng.Intn(40000)
				cost[id][k] = cents
				c := decimal.New(int64(cents), -2)
				lines = append(lines, finops.BillingLine{Provider: "TestCloud", ResourceID: id,
					ChargeStart: w43.AddDate(0, 0, 7*k), ChargeEnd: w43.AddDate(0, 0, 7*k+7),
					ChargeCategory: finops.ChargeUsage, PricingMode: finops.ModeHourly, GPUModel: "A100-80GB", GPUCount: 1,
					EffectiveCost: &c, Currency: "USD"})
			}
		}
		// W43 billed for someone, so the history has four weeks before W47.
		c := decimal.New(100, -2)
		lines = append(lines, finops.BillingLine{Provider: "TestCloud", ResourceID: "seed", ChargeStart: w43, ChargeEnd: w43.AddDate(0, 0, 7),
			ChargeCategory: finops.ChargeUsage, PricingMode: finops.ModeHourly, GPUModel: "A100-80GB", GPUCount: 1, EffectiveCost: &c, Currency: "USD"})
		cost["seed"], resTeam["seed"] = []int{100, 0, 0, 0, 0}, ""
		resources = append(resources, analysis.Resource{ID: "seed"})
		end := w43.AddDate(0, 0, 35)
		p := analysis.DefaultParams()
		p.TrendWeeks = 5
		p.Chargeback = analysis.ChargebackRules{Unallocated: []string{analysis.SpreadEven, analysis.SpreadProportional}[rng.Intn(2)]}
		var teamList []analysis.Team
		for _, name := range teams {
			teamList = append(teamList, analysis.Team{Name: name})
		}
		fleet, err := analysis.Analyze(&analysis.Input{
			Window:   analysis.Window{Start: end.AddDate(0, 0, -7), End: end, Label: "2026-W47"},
			Lookback: analysis.Window{Start: end.AddDate(0, 0, -21), End: end},
			Lines:    lines, Resources: resources, Teams: teamList, Params: p,
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, team := range teams {
			slice := fleet.ForTeam(team)
			if slice == nil || fleet.Chargeback == nil {
				continue
			}
			t.Run(fmt.Sprintf("%d/%s", n, team), func(t *testing.T) {
				var row *analysis.TeamChargeback
				for i := range fleet.Chargeback.Teams {
					if fleet.Chargeback.Teams[i].Team == team {
						row = &fleet.Chargeback.Teams[i]
					}
				}
				if row == nil {
					t.Fatalf("no chargeback row of %s", team)
				}
				wantCharge := cbFigures{row.Direct, row.Unallocated, row.Idle, row.ChargedBack}
				wantMovers := expectedTopMovers(team, cost, resTeam)
				for where, got := range readOutputs(t, slice, team, NewAudience(slice, team, fleet.Chargeback)) {
					checkCharge(t, where, got.charge, wantCharge)
					want := wantMovers
					if where == "digest" && len(want) > digestMaxRows {
						want = want[:digestMaxRows]
					}
					checkMovers(t, where, got.movers, want)
				}
			})
		}
	}
}

// expectedTopMovers recomputes team's top movers from the generated bill
// (cents per resource and week, W43…W47): the team's and its resources'
// last week against the mean of the weeks with cost among W43…W46.
func expectedTopMovers(team string, cost map[string][]int, resTeam map[string]string) []moverFigures {
	type cand struct {
		moverFigures
		team bool
	}
	fig := func(name string, weeks []float64) cand {
		sum, n := 0.0, 0
		for _, v := range weeks[:4] {
			if v != 0 {
				sum, n = sum+v, n+1
			}
		}
		c := cand{moverFigures: moverFigures{name: name, cost: weeks[4], weeks: n}}
		if n > 0 {
			c.mean = sum / float64(n)
			c.pct = math.Round((weeks[4] - c.mean) / c.mean * 100)
		}
		c.change = weeks[4] - c.mean
		return c
	}
	teamWeeks := make([]float64, 5)
	var all []cand
	for id, cs := range cost {
		if resTeam[id] != team {
			continue
		}
		weeks := make([]float64, 5)
		for k, c := range cs {
			weeks[k] = float64(c) / 100
			teamWeeks[k] += float64(c) / 100
		}
		if slices.ContainsFunc(weeks, func(v float64) bool { return v != 0 }) {
			all = append(all, fig(id, weeks))
		}
	}
	tc := fig(team, teamWeeks)
	tc.team = true
	all = append(all, tc)
	all = slices.DeleteFunc(all, func(c cand) bool { return math.Abs(c.change) < 0.005 })
	slices.SortStableFunc(all, func(a, b cand) int {
		if d := math.Abs(b.change) - math.Abs(a.change); math.Abs(d) > 1e-9 {
			return cmp.Compare(math.Abs(b.change), math.Abs(a.change))
		}
		if a.team != b.team {
			if a.team {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	var out []moverFigures
	for i, c := range all {
		if i == 5 {
			break
		}
		out = append(out, c.moverFigures)
	}
	return out
}

// TestFleetDigestView: the fleet's digest of audienceFleet carries the
// chargeback's bill and pools and the fleet's movers. By hand: the bill is
// W47's 150 + 60 + 180 + 90 = 480, the unallocated pool u1's 90, spread
// evenly, the idle pool 0. Totals W43…W46: 390, 390, 410, 420 (80 + 50 +
// 200 + 90): mean 1,610 / 4 = 402.5; 480 − 402.5 = +77.5, +19.3 %. Top
// movers: nlp +97.5, n1 +50, then cv and c1 −20 and n2 +10 ("3 more").
// Each of the three is above its range (analysis' anomaly rule): the total
// [390, 420] + max(30/2, 40.25) = 460.25 < 480; nlp [100, 130] + max(15,
// 11.25) = 145 < 210; n1 [80, 120] + max(20, 10) = 140 < 150.
func TestFleetDigestView(t *testing.T) {
	d, err := Digest(audienceFleet(t), DigestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"Charged back: the bill $480.00, unallocated $90.00 spread even (each team's share in the report)", // the idle pool is $0.00 and spread to none: not named
		"Trend 2026-W47: $480.00, +$77.50 · +19 % vs the 4-week mean ($402.50) — above its recent range",
		"1. nlp: $210.00, +$97.50 · +87 % vs the 4-week mean ($112.50) — above its recent range (team)",
		"2. n1: $150.00, +$50.00 · +50 % vs the 4-week mean ($100.00) — above its recent range (resource)",
		"… and 3 more in the report",
	} {
		if !strings.Contains(d.Text, w) {
			t.Errorf("the fleet digest lacks %q:\n%s", w, d.Text)
		}
	}
	if strings.Contains(d.Text, "idle $0.00") {
		t.Errorf("the fleet digest names an empty idle pool:\n%s", d.Text)
	}
}
