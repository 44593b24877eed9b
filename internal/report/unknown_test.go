package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/analysis"
)

// unknownResult is a week of three GPU resources, built by hand:
//
//	resource   team  GPUs  billed h  monitored h  rate   idle h  idle cost   util
//	gpu-dead   cv     2      336         0        12.00    —      unknown     unknown (exporter died before the week)
//	gpu-half   nlp    1      168        84         5.00    34     ≥ 170.00    30 % over its 84 h
//	gpu-full   nlp    1      168       168        10.00    68       680.00    60 %
//
// cv: 4,032.00, idle unknown (0 of 336 h monitored). nlp: 840 + 1,680 =
// 2,520.00, idle ≥ 850.00 (252 of 336 h). Fleet: 6,552.00, idle ≥ 850.00,
// 252 of 672 h monitored, utilization (30·84 + 60·168) / 252 = 50 %.
// Tasks: detect (cv) held 100 h of gpu-dead: idle unknown; lora (nlp) held
// 50 monitored h of gpu-full, 20.00 of them idle. Energy: gpu-dead no power
// reading (unknown), gpu-full 5 kWh.
func unknownResult() *analysis.Result {
	start := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	kwh, co2 := 5.0, 2.0
	return &analysis.Result{
		Period:   analysis.Period{Start: start, End: start.AddDate(0, 0, 7), TimeZone: "UTC", Label: "2026-W48"},
		Currency: "CNY",
		Totals: analysis.Totals{Cost: 6552, GPUCost: 6552, GPUHoursBilled: 672, GPUHoursActive: 150, GPUHoursIdle: 102,
			GPUHoursUnmonitored: 420, IdleCost: 850, UnmonitoredCost: 4452, AllocatedIdleCost: 20, AvgGPUUtilization: 50},
		ByTeam: []analysis.TeamCost{
			{Team: "cv", Cost: 4032, GPUCost: 4032, GPUHoursBilled: 336},
			{Team: "nlp", Cost: 2520, GPUCost: 2520, IdleCost: 850, GPUHoursBilled: 336, GPUHoursMonitored: 252},
		},
		ByResource: []analysis.ResourceCost{
			{ResourceID: "gpu-dead", Provider: "acme", GPUModel: "A100", GPUCount: 2, Pricing: "hourly", Team: "cv", Cost: 4032,
				GPUHoursBilled: 336, GPUHoursUnmonitored: 336, UnmonitoredCost: 4032},
			{ResourceID: "gpu-full", Provider: "acme", GPUModel: "H100", GPUCount: 1, Pricing: "hourly", Team: "nlp", Cost: 1680,
				GPUHoursBilled: 168, GPUHoursActive: 100, GPUHoursIdle: 68, IdleCost: 680, AvgUtilization: 60},
			{ResourceID: "gpu-half", Provider: "acme", GPUModel: "L40S", GPUCount: 1, Pricing: "hourly", Team: "nlp", Cost: 840,
				GPUHoursBilled: 168, GPUHoursActive: 50, GPUHoursIdle: 34, GPUHoursUnmonitored: 84, IdleCost: 170,
				UnmonitoredCost: 420, AvgUtilization: 30},
		},
		Tasks: []analysis.TaskCost{
			{Task: "detect", Team: "cv", Kind: "training", Cost: 1200, GPUHours: 100},
			{Task: "lora", Team: "nlp", Kind: "training", Cost: 500, GPUHours: 50, GPUHoursMonitored: 50, IdleCost: 20},
		},
		Energy: &analysis.Energy{PUE: 1,
			Total: analysis.EnergyUse{KWh: &kwh, PowerCoverage: 0.25, LowerBound: true, CO2eKg: &co2},
			ByResource: []analysis.ResourceEnergy{
				{ResourceID: "gpu-dead", Provider: "acme", Team: "cv", EnergyUse: analysis.EnergyUse{LowerBound: true}},
				{ResourceID: "gpu-full", Provider: "acme", Team: "nlp", EnergyUse: analysis.EnergyUse{KWh: &kwh, PowerCoverage: 1, CO2eKg: &co2}},
			},
		},
		DataQuality: analysis.DataQuality{Coverage: 252.0 / 672, UnmonitoredShare: 420.0 / 672},
		// W47: billed, nothing monitored (the exporters were down): its
		// idle is unknown, not 0. W48: this week, partly monitored.
		Trend: &analysis.Trend{WeeksAsked: 2, Weeks: []analysis.TrendWeek{
			{Label: "2026-W47", Start: start.AddDate(0, 0, -7), End: start, Cost: 6552, Coverage: 0, Anomaly: analysis.AnomalyNoHist,
				Teams: []analysis.TrendTeam{{Team: "cv", Cost: 4032, Coverage: 0, Anomaly: analysis.AnomalyNoHist}}},
			{Label: "2026-W48", Start: start, End: start.AddDate(0, 0, 7), Cost: 6552, IdleCost: 850, Coverage: 252.0 / 672,
				IdleLowerBound: true, Anomaly: analysis.AnomalyNoHist},
		}},
	}
}

// zeroText matches a figure written as zero: ¥0.00, ¥0, 0.0%, 0 kWh, 0.000 kg.
var zeroText = regexp.MustCompile(`¥0(\.00)?\b|(^|[^0-9.,])0\.0%|(^|[^0-9.,])0(\.0+)? (kWh|kg)`)

// linesWith are the lines of s that contain key.
func linesWith(s, key string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, key) {
			out = append(out, l)
		}
	}
	return out
}

// TestUnknownIsNotZeroEveryOutput: a GPU with no telemetry reads unknown,
// null or "—" in every output (terminal, HTML, workbook, JSON, digest,
// email), never ¥0.00 or 0.0 %; a partly monitored one reads "≥"; a fully
// monitored one as it is. Before issue 33 gpu-dead read ¥0.00 / 0.0 %
// everywhere but the headline.
func TestUnknownIsNotZeroEveryOutput(t *testing.T) {
	r := unknownResult()
	meta := testMeta()

	t.Run("terminal", func(t *testing.T) { unknownInTerminal(t, r, meta) })
	t.Run("html", func(t *testing.T) { unknownInHTML(t, r, meta) })
	t.Run("workbook", func(t *testing.T) { unknownInWorkbook(t, r, meta) })
	t.Run("json", func(t *testing.T) { unknownInJSON(t, r, meta) })
	t.Run("csv", func(t *testing.T) { unknownInCSV(t, r, meta) })
	t.Run("digest", func(t *testing.T) { unknownInDigest(t, r, meta) })
	t.Run("email", func(t *testing.T) { unknownInEmail(t, r, meta) })
}

// unknownInTerminal is TestUnknownIsNotZeroEveryOutput's "terminal" case.
func unknownInTerminal(t *testing.T, r *analysis.Result, meta Meta) {
	var b bytes.Buffer
	if err := WriteSummary(&b, r, meta, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	dead := linesWith(out, "gpu-dead")
	if len(dead) != 1 || strings.Count(dead[0], unknownText) != 2 || zeroText.MatchString(dead[0]) {
		t.Errorf("gpu-dead's row %q: want its idle cost and utilization unknown, no zero", dead)
	}
	if half := linesWith(out, "gpu-half"); len(half) != 1 || !strings.Contains(half[0], "≥ ¥170.00") || !strings.Contains(half[0], "30.0%") {
		t.Errorf("gpu-half's row %q: want ≥ ¥170.00 and 30.0%%", half)
	}
	if full := linesWith(out, "gpu-full"); len(full) != 1 || !strings.Contains(full[0], "¥680.00") || strings.Contains(full[0], "≥") {
		t.Errorf("gpu-full's row %q: want ¥680.00 without ≥", full)
	}
	// The team slice of cv: nothing measured at all.
	b.Reset()
	if err := WriteSummary(&b, r.ForTeam("cv"), meta, false); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"Idle cost", "Allocated but idle", "Avg GPU utilization", "gpu-dead"} {
		for _, l := range linesWith(b.String(), key) {
			if !strings.Contains(l, unknownText) || zeroText.MatchString(l) {
				t.Errorf("cv's summary: %q: want unknown, no zero", l)
			}
		}
	}
}

// unknownInHTML is TestUnknownIsNotZeroEveryOutput's "html" case.
func unknownInHTML(t *testing.T, r *analysis.Result, meta Meta) {
	var b bytes.Buffer
	if err := WriteHTML(&b, r, meta); err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`(?s)<tr>.*?</tr>`).FindAllString(b.String(), -1)
	// row is the table row whose first cell is start.
	row := func(start string) string {
		for _, rw := range rows {
			if strings.HasPrefix(rw, "<tr>"+start) {
				return rw
			}
		}
		return ""
	}
	for _, c := range []struct {
		what, start string
		want        []string
	}{
		{"cv's team row", `<td>cv</td>`, []string{">unknown<", ">—<"}},
		{"detect's task row", `<td class="id">detect</td>`, []string{">unknown<"}},
	} {
		rw := row(c.start)
		for _, w := range c.want {
			if !strings.Contains(rw, w) {
				t.Errorf("%s lacks %s:\n%s", c.what, w, rw)
			}
		}
		if zeroText.MatchString(rw) {
			t.Errorf("%s shows a zero:\n%s", c.what, rw)
		}
	}
	var dead []string
	for _, rw := range rows {
		if strings.Contains(rw, "gpu-dead") || strings.Contains(rw, "gpu-<wbr>dead") {
			dead = append(dead, rw)
		}
	}
	// The trend chart's idle line has a gap at W47 ("-" is ECharts'
	// missing value), not a point at 0.
	if !strings.Contains(b.String(), `"Idle cost","type":"line","showSymbol":true,"data":[{"value":"-"},{"value":850,`) {
		t.Error("the trend chart's idle line does not leave W47 out")
	}
	// The idle card's parts: of a lower bound, lower bounds (850 − 20 = 830 held by no task).
	p, err := newPage(r, meta, time.UTC, nil)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, k := range p.KPIs {
		for _, pt := range k.Parts {
			parts = append(parts, pt.Value)
		}
	}
	if !slices.Equal(parts, []string{"≥ ¥830.00", "≥ ¥20.00"}) {
		t.Errorf("idle card parts %q, want ≥ ¥830.00 and ≥ ¥20.00", parts)
	}
	if len(dead) < 2 {
		t.Fatalf("gpu-dead has %d rows, want its resource and energy rows", len(dead))
	}
	for _, rw := range dead {
		// The energy row's power coverage is measured: 0.0 % of its
		// minutes had power. Its kWh and CO₂e are what nobody measured.
		figures := strings.Replace(rw, `<td class="num">0.0%</td><td class="num">unknown</td><td>none configured`, "", 1)
		if !strings.Contains(rw, ">unknown<") || zeroText.MatchString(figures) {
			t.Errorf("gpu-dead's row: want unknown, no zero:\n%s", rw)
		}
	}
}

// unknownInWorkbook is TestUnknownIsNotZeroEveryOutput's "workbook" case.
func unknownInWorkbook(t *testing.T, r *analysis.Result, meta Meta) {
	_, f := writeBookMeta(t, r, meta)
	// cell is the value of the column titled col in the row whose
	// first cell is key.
	cell := func(sheet, key, col string) (string, bool) {
		rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		hi := slices.IndexFunc(rows, func(r []string) bool { return slices.Contains(r, col) })
		if hi < 0 {
			t.Fatalf("%s: no column %q", sheet, col)
		}
		ci := slices.Index(rows[hi], col)
		for _, rw := range rows[hi+1:] {
			if len(rw) > 0 && rw[0] == key {
				if ci < len(rw) {
					return rw[ci], true
				}
				return "", true
			}
		}
		return "", false
	}
	for _, c := range []struct{ sheet, key, col, want string }{
		{sheetResources, "gpu-dead", "Idle cost", ""},
		{sheetResources, "gpu-dead", "Avg utilization", ""},
		{sheetResources, "gpu-dead", "Energy (kWh)", ""},
		{sheetResources, "gpu-full", "Idle cost", "680"},
		{sheetResources, "gpu-full", "Energy (kWh)", "5"},
		{sheetTeams, "cv", "Idle cost", ""},
		{sheetTeams, "nlp", "Idle cost", "850"},
		{sheetTasks, "detect", "Idle cost", ""},
		{sheetTasks, "lora", "Idle cost", "20"},
		{sheetTrend, "2026-W47", "Idle cost", ""}, // its total's row comes first
		{sheetTrend, "2026-W48", "Idle cost", "850"},
	} {
		got, ok := cell(c.sheet, c.key, c.col)
		if !ok {
			t.Errorf("%s: no row %s", c.sheet, c.key)
			continue
		}
		if got != c.want {
			t.Errorf("%s!%s %s = %q, want %q (blank: unknown, not 0)", c.sheet, c.key, c.col, got, c.want)
		}
	}
}

// unknownInJSON is TestUnknownIsNotZeroEveryOutput's "json" case.
func unknownInJSON(t *testing.T, r *analysis.Result, meta Meta) {
	var b bytes.Buffer
	if err := WriteJSON(&b, r, meta); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ByResource []map[string]any `json:"by_resource"`
		ByTeam     []map[string]any `json:"by_team"`
		Tasks      []map[string]any `json:"tasks"`
		Trend      struct {
			Weeks []map[string]any `json:"weeks"`
		} `json:"trend"`
		Energy struct {
			ByResource []map[string]any `json:"by_resource"`
		} `json:"energy"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	find := func(rows []map[string]any, key, val string) map[string]any {
		for _, m := range rows {
			if m[key] == val {
				return m
			}
		}
		t.Fatalf("no %s %s", key, val)
		return nil
	}
	for _, c := range []struct {
		what string
		row  map[string]any
		key  string
		want any // nil: null
	}{
		{"gpu-dead", find(doc.ByResource, "resource_id", "gpu-dead"), "idle_cost", nil},
		{"gpu-dead", find(doc.ByResource, "resource_id", "gpu-dead"), "avg_utilization", nil},
		{"gpu-dead", find(doc.ByResource, "resource_id", "gpu-dead"), "coverage", 0.0},
		{"gpu-half", find(doc.ByResource, "resource_id", "gpu-half"), "idle_cost", 170.0},
		{"gpu-half", find(doc.ByResource, "resource_id", "gpu-half"), "coverage", 0.5}, // 84 of 168 h
		{"cv", find(doc.ByTeam, "team", "cv"), "idle_cost", nil},
		{"cv", find(doc.ByTeam, "team", "cv"), "coverage", 0.0},
		{"nlp", find(doc.ByTeam, "team", "nlp"), "coverage", 0.75}, // 252 of 336 h
		{"detect", find(doc.Tasks, "task", "detect"), "idle_cost", nil},
		{"lora", find(doc.Tasks, "task", "lora"), "idle_cost", 20.0},
		{"gpu-dead energy", find(doc.Energy.ByResource, "resource_id", "gpu-dead"), "energy_kwh", nil},
		{"gpu-dead energy", find(doc.Energy.ByResource, "resource_id", "gpu-dead"), "co2e_kg", nil},
		{"week W47", find(doc.Trend.Weeks, "label", "2026-W47"), "idle_cost", nil},
		{"week W48", find(doc.Trend.Weeks, "label", "2026-W48"), "idle_cost", 850.0},
	} {
		got, ok := c.row[c.key]
		if !ok || got != c.want {
			t.Errorf("%s %s = %v (present %v), want %v", c.what, c.key, got, ok, c.want)
		}
	}
}

// unknownInCSV is TestUnknownIsNotZeroEveryOutput's "csv" case.
func unknownInCSV(t *testing.T, r *analysis.Result, meta Meta) {
	var b bytes.Buffer
	if err := WriteCSV(&b, r, "trend"); err != nil {
		t.Fatal(err)
	}
	// period…, week, start, end, scope, team, currency, cost, idle_cost, coverage: idle blank, not 0.00.
	for _, want := range []string{",2026-W47,2026-11-16,2026-11-22,total,,CNY,6552.00,,0,", ",2026-W47,2026-11-16,2026-11-22,team,cv,CNY,4032.00,,0,"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("trend csv lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteCSV(&b, r, "by-resource"); err != nil {
		t.Fatal(err)
	}
	// …, gpu_hours_unmonitored, idle_cost, unmonitored_cost, avg_utilization, previous_cost: blank, 4032.00, blank.
	if l := linesWith(b.String(), "gpu-dead"); len(l) != 1 || !strings.Contains(l[0], ",336,,4032.00,,0.00,") {
		t.Errorf("by-resource csv gpu-dead %q: want its idle cost and utilization blank", l)
	}
}

// unknownInDigest is TestUnknownIsNotZeroEveryOutput's "digest" case.
func unknownInDigest(t *testing.T, r *analysis.Result, meta Meta) {
	d, err := Digest(r, DigestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l := linesWith(d.Text, "Idle cost"); len(l) != 1 || !strings.Contains(l[0], "≥ ¥850.00") {
		t.Errorf("fleet digest idle %q: want ≥ ¥850.00", l)
	}
	d, err = Digest(r.ForTeam("cv"), DigestOptions{Team: "cv"})
	if err != nil {
		t.Fatal(err)
	}
	if l := linesWith(d.Text, "Idle cost"); len(l) != 1 || !strings.Contains(l[0], unknownText) || zeroText.MatchString(l[0]) {
		t.Errorf("cv digest idle %q: want unknown, no zero", l)
	}
}

// unknownInEmail is TestUnknownIsNotZeroEveryOutput's "email" case.
func unknownInEmail(t *testing.T, r *analysis.Result, meta Meta) {
	subject, text, html, err := EmailBody(r, EmailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(subject, "idle ≥ ¥850") {
		t.Errorf("subject %q: want idle ≥ ¥850", subject)
	}
	cv := linesWith(text, "  cv ")
	if len(cv) != 1 || !strings.Contains(cv[0], unknownText) || !strings.Contains(cv[0], unknownShare) || zeroText.MatchString(cv[0]) {
		t.Errorf("email's cv row %q: want unknown and —, no zero", cv)
	}
	if !strings.Contains(html, ">unknown<") {
		t.Error("the email's HTML shows no unknown idle for cv")
	}
	org := unknownResult().Totals
	subject, text, _, err = EmailBody(r.ForTeam("cv"), EmailOptions{Team: "cv", OrgTotals: &org})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(subject, "idle unknown") {
		t.Errorf("cv's subject %q: want idle unknown", subject)
	}
	for _, key := range []string{"Idle cost", "Avg GPU utilization"} {
		for _, l := range linesWith(text, key) {
			if !strings.Contains(l, unknownText) || zeroText.MatchString(l) {
				t.Errorf("cv's email: %q: want unknown, no zero", l)
			}
		}
	}
	if l := linesWith(text, "Whole organisation"); len(l) != 1 || !strings.Contains(l[0], "idle ≥ ¥850.00 (≥ 13.0%)") {
		// 850 / 6,552 = 12.97 %.
		t.Errorf("cv's email, the organisation's line %q: want idle ≥ ¥850.00 (≥ 13.0%%)", l)
	}
}
