package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/templates"
)

// noChartsBanner is shown when the build has no embedded ECharts library. The
// page never falls back to a CDN: the report must open offline and must not
// leak that it was opened.
const noChartsBanner = "Charts are not available: this build has no embedded ECharts library (restore the committed templates/assets/echarts.min.js: git checkout -- templates/assets)."

// WriteHTML writes the report as one self-contained HTML file: inline CSS, the
// ECharts library inlined from the binary, chart options as inert JSON. It
// opens offline and loads nothing from the network.
func WriteHTML(w io.Writer, r *analysis.Result, meta Meta) error {
	return writeHTML(w, r, meta, templates.ECharts())
}

// writeHTML takes the ECharts library as a parameter so tests can render with
// and without it; nil renders the page without charts and with a banner.
func writeHTML(w io.Writer, r *analysis.Result, meta Meta, echarts []byte) error {
	if r == nil {
		return fmt.Errorf("report: nil result")
	}
	loc, err := reportZone(r)
	if err != nil {
		return err
	}
	p, err := newPage(r, meta, loc, echarts)
	if err != nil {
		return err
	}
	// Render to memory first so a template error never leaves half a page.
	var buf bytes.Buffer
	if err := templates.Report().Execute(&buf, p); err != nil {
		return fmt.Errorf("report: render html: %w", err)
	}
	// html/template escapes for HTML, not for invisible characters: they
	// go here, page-wide (sanitize.Document), the rule of every writer.
	if _, err := io.WriteString(w, sanitize.Document(buf.String())); err != nil {
		return fmt.Errorf("report: write html: %w", err)
	}
	return nil
}

// page is the template's view of the report: every value is already formatted,
// so the template has no logic beyond loops, and html/template escapes every
// string for its context.
type page struct {
	Title, Label, PeriodText, Zone, Currency string
	Team                                     string
	GeneratedAt, Version                     string
	Banner                                   string
	// Incomplete: why the numbers may be wrong, first on the page.
	Incomplete      []string
	Headline        string
	HasCharts       bool
	ECharts         template.JS
	ChartsJSON      template.JS
	Charts          []chartSpec
	EmptyCharts     []string
	KPIs            []kpiCard
	Findings        []findingItem
	MoreFindings    int
	Actions         []actionItem
	Recommendations []recRow
	AdviceNotes     []string // adviceNotes
	Resources       []resourceRow
	Teams           []teamRow
	Tasks           []taskRow
	Pools           []poolRow
	Watch           *watchView  // nil: the watch did nothing in the period
	Energy          *energyView // nil: no power was read (energy_view.go)
	Quality         qualityView
	// Chargeback (nil without rules) and Allocation (report.group_by): html_chargeback.go.
	Chargeback *chargebackView
	Allocation []allocationTable
	// Movers: the audience's movers, nil without a history (html_movers.go).
	Movers *moversView
}

type findingItem struct{ Severity, SevTone, Kind, Team, Resource, Money, Text, Overlap string }

type poolRow struct {
	Provider, GPU, Resources, GPUs, Current, Cards, Pool, Savings, Reason string
	Saves                                                                 bool
}

// kpiCard is one key figure with the period it covers ("this week", "per
// month"); Parts is its breakdown, drawn inside it.
type kpiCard struct {
	Label, Period, Value, Note, Tone string
	Parts                            []kpiPart
}

type kpiPart struct{ Label, Value, Note string }

type actionItem struct{ Action, Resource, GPU, Savings, Confidence, ConfTone, Reason string }

type recRow struct {
	// ID is the advice's id for finops advice; "" for keep.
	ID string

	Resource                                                                  template.HTML
	Team, GPU, Mode, Action, Current, Recommended, Savings, Active, Breakeven string
	Confidence, ConfTone, Reason                                              string
	Saves                                                                     bool
}

type resourceRow struct {
	Resource                                          template.HTML
	Provider, GPU, Pricing, Team, Cost                string
	Billed, Active, Idle, Unmonitored, IdleCost, Util string
}

type teamRow struct {
	Team, Cost, GPUCost, IdleCost, IdleShare, Previous, Change string
	MonthToDate, Forecast, Budget                              string
	OverBudget                                                 bool
}

type taskRow struct {
	Task                                                  template.HTML
	Team, Kind, Cost, GPUHours, IdleCost, Units, UnitCost string
}

type qualityView struct {
	UnmonitoredShare, UnmonitoredCost, RowsRejected string
	Sources                                         []sourceRow
	Warnings                                        []string
	ExchangeRates                                   []string   // "1 USD = 7.1 CNY"
	Shards                                          []shardRow // a rollup's shards (html_shards.go)
}

type sourceRow struct{ Name, Kind, Status, Tone, Detail string }

// chartTitles lists every chart the page can show, so that a chart without
// data still gets a visible "no data" panel.
var chartTitles = []string{"Daily spend by team", "Daily spend by GPU model", "GPU utilization by hour",
	"Idle cost by resource", "Unit cost per task", "Spend vs budget this month"}

// maxPageFindings is how many findings the page lists; the workbook has all.
const maxPageFindings = 10

func newPage(r *analysis.Result, meta Meta, loc *time.Location, echarts []byte) (*page, error) {
	cur := r.Currency
	p := &page{
		Title:      "finops " + r.Period.Label,
		Team:       meta.Team,
		Label:      r.Period.Label,
		PeriodText: periodText(r.Period, loc),
		Zone:       loc.String(),
		Currency:   cur,
		Version:    meta.Version,
	}
	if !meta.GeneratedAt.IsZero() {
		p.GeneratedAt = meta.GeneratedAt.In(loc).Format("2006-01-02 15:04 -07:00") // zone abbreviations are ambiguous (CST)
	}
	if meta.Team != "" {
		p.Title += " · team " + meta.Team
	}
	if err := p.setCharts(r, loc, echarts); err != nil {
		return nil, err
	}
	p.setKPIs(r)
	p.setAdvice(r)
	p.AdviceNotes = adviceNotes(r)
	p.setTables(r)
	p.setTeams(r)

	p.Watch = newWatchView(r, loc)
	view := audienceOf(meta.View, r, meta.Team, nil)
	p.Chargeback, p.Allocation = allocationViews(r, view)
	p.Movers = newMoversView(view.Movers, cur)
	p.Energy = newEnergyView(r)
	p.setQuality(r)
	return p, nil
}

// setCharts builds the charts, names the ones with no data, and inlines
// the chart library, or says in a banner that the page has none.
func (p *page) setCharts(r *analysis.Result, loc *time.Location, echarts []byte) error {
	p.Charts = buildCharts(r, loc)
	have := map[string]bool{}
	for _, c := range p.Charts {
		have[c.Title] = true
	}
	for _, title := range chartTitles {
		if !have[title] {
			p.EmptyCharts = append(p.EmptyCharts, title)
		}
	}
	if js, ok := inlineScript(echarts); ok {
		p.HasCharts, p.ECharts = true, js
		cj, err := chartsJSON(p.Charts)
		if err != nil {
			return err
		}
		p.ChartsJSON = cj
	} else {
		p.Banner = noChartsBanner
	}

	return nil
}

// setKPIs fills the headline and the key figures' cards.
func (p *page) setKPIs(r *analysis.Result) {
	cur, t := r.Currency, r.Totals
	unmonTone := ""
	if r.DataQuality.UnmonitoredShare > 0.30 {
		unmonTone = "bad"
	} else if r.DataQuality.UnmonitoredShare >= 0.10 {
		unmonTone = "warn"
	}
	costNote := changeText(t.Cost, r.Totals.PreviousCost)
	if n := otherChargesNote(cur, t); n != "" {
		costNote = strings.TrimPrefix(costNote+"; "+n, "; ")
	}
	p.Headline = headline(r)
	week := periodName(r.Period)
	idle := kpiCard{Label: "Idle cost", Period: week, Value: idleMoney(cur, t), Note: idleNote(t), Tone: idleTone(t)}
	if !t.IdleKnown() {
		idle.Tone = "warn"
	}
	p.Incomplete = r.DataQuality.Incomplete
	if t.IdleCost != 0 && (t.UnallocatedCost != 0 || t.AllocatedIdleCost != 0) {
		// The idle cost's two parts: shown inside its card, since they add
		// up to it rather than to more waste.
		idle.Parts = []kpiPart{
			// Parts of a lower bound are lower bounds too.
			{Label: "idle, no task held", Value: measuredMoney(cur, unheldIdle(t), t.IdleReading()), Note: "no task held the idle GPU: release the machine"},
			{Label: "allocated but idle", Value: measuredMoney(cur, t.AllocatedIdleCost, analysis.AllocatedIdleReading(r.Tasks)),
				Note: "a task held it unused: fix the job"},
		}
	}
	util := kpiCard{Label: "Avg GPU utilization", Period: week, Value: utilPct(t.AvgGPUUtilization), Note: "over monitored GPU-hours"}
	if !anyMonitored(t) {
		util.Value, util.Note = unknownText, noneMonitored
	}
	p.KPIs = []kpiCard{
		{Label: "Total cost", Period: week, Value: money(cur, t.Cost), Note: costNote},
		{Label: "GPU cost", Period: week, Value: money(cur, t.GPUCost), Note: hours(t.GPUHoursBilled) + " billed"},
		idle,
		{Label: "Unmonitored cost", Period: week, Value: money(cur, t.UnmonitoredCost), Note: percent(r.DataQuality.UnmonitoredShare) + " of GPU-hours unmonitored", Tone: unmonTone},
		util,
		{Label: "Savings available", Period: "per month", Value: money(cur, t.MonthlySavings), Note: "if every recommendation is applied", Tone: toneIf(t.MonthlySavings > 0, "good")},
	}
	if t.UnusedCommitmentCost != 0 {
		p.KPIs = append(p.KPIs, kpiCard{Label: "Unused commitments", Period: week, Value: money(cur, t.UnusedCommitmentCost), Tone: "warn"})
	}

}

// setAdvice fills the findings (the first maxPageFindings), the top
// actions and every recommendation.
func (p *page) setAdvice(r *analysis.Result) {
	cur := r.Currency
	views := findingViews(r)
	for i, f := range views {
		if i == maxPageFindings {
			p.MoreFindings = len(views) - i
			break
		}
		p.Findings = append(p.Findings, findingItem{
			Severity: f.Severity, SevTone: sevTone(f.Severity), Kind: f.Title, Team: f.Team,
			Resource: f.resource(), Money: findingMoney(cur, f.Finding), Text: f.Text, Overlap: f.Overlap,
		})
	}
	for _, rec := range topActions(r.Recommendations, 5) {
		p.Actions = append(p.Actions, actionItem{
			Action: actionText(rec.Action), Resource: analysis.ShortResourceID(rec.ResourceID), GPU: gpuText(rec.GPUModel, rec.GPUCount),
			Savings: money(cur, rec.MonthlySavings), Confidence: rec.Confidence, ConfTone: confTone(rec.Confidence),
			Reason: rec.Reason,
		})
	}
	teamOf := make(map[string]string, len(r.ByResource))
	for _, rc := range r.ByResource {
		teamOf[rc.ResourceID] = rc.Team
	}
	for _, rec := range r.Recommendations {
		breakeven := ""
		if rec.BreakevenHoursPerMonth != 0 {
			breakeven = hours(rec.BreakevenHoursPerMonth)
		}
		p.Recommendations = append(p.Recommendations, recRow{
			ID: rec.ID, Resource: breakableID(analysis.ShortResourceID(rec.ResourceID)), Team: teamOf[rec.ResourceID],
			GPU: gpuText(rec.GPUModel, rec.GPUCount), Mode: rec.CurrentMode,
			Action: actionText(rec.Action), Current: money(cur, rec.CurrentMonthlyCost),
			Recommended: money(cur, rec.RecommendedMonthlyCost), Savings: money(cur, rec.MonthlySavings),
			Active: hours(rec.ActiveHoursPerMonth), Breakeven: breakeven,
			Confidence: rec.Confidence, ConfTone: confTone(rec.Confidence), Reason: rec.Reason,
			Saves: rec.MonthlySavings > 0,
		})
	}
}

// setTables fills the resources, pools and tasks tables.
func (p *page) setTables(r *analysis.Result) {
	cur := r.Currency
	for _, rc := range r.ByResource {
		p.Resources = append(p.Resources, resourceRow{
			Resource: breakableID(resourceLabel(rc)), Provider: rc.Provider, GPU: gpuText(rc.GPUModel, rc.GPUCount),
			Pricing: rc.Pricing, Team: rc.Team, Cost: money(cur, rc.Cost),
			Billed: hours(rc.GPUHoursBilled), Active: hours(rc.GPUHoursActive), Idle: hours(rc.GPUHoursIdle),
			Unmonitored: hours(rc.GPUHoursUnmonitored), IdleCost: measuredMoney(cur, rc.IdleCost, rc.IdleReading()),
			Util: measuredUtil(rc.AvgUtilization, rc.IdleReading()),
		})
	}
	for _, pl := range r.Pools {
		p.Pools = append(p.Pools, poolRow{
			Provider: pl.Provider, GPU: pl.GPUModel, Resources: strconv.Itoa(pl.Resources), GPUs: strconv.Itoa(pl.GPUs),
			Current: money(cur, pl.CurrentMonthlyCost), Cards: strconv.Itoa(pl.MonthlyCards),
			Pool: money(cur, pl.PoolMonthlyCost), Savings: money(cur, pl.MonthlySavings), Reason: pl.Reason,
			Saves: pl.MonthlySavings > 0,
		})
	}
	for _, tk := range r.Tasks {
		units, unitCost := "", ""
		if tk.Units != 0 {
			units = strings.TrimSpace(amount.Group(tk.Units, unitsPrec(tk.Units)) + " " + tk.Unit)
			unitCost = unitMoney(cur, tk.UnitCost) + " / " + orDefault(tk.Unit, "unit")
		}
		p.Tasks = append(p.Tasks, taskRow{
			Task: breakableID(tk.Task), Team: tk.Team, Kind: tk.Kind, Cost: money(cur, tk.Cost), GPUHours: hours(tk.GPUHours),
			IdleCost: measuredMoney(cur, tk.IdleCost, tk.IdleReading()), Units: units, UnitCost: unitCost,
		})
	}

}

// setTeams fills the teams' table: cost, idle, change and budget.
func (p *page) setTeams(r *analysis.Result) {
	cur := r.Currency
	for _, tc := range r.ByTeam {
		budget := ""
		if tc.Budget != nil {
			budget = money(cur, *tc.Budget)
		}
		row := teamRow{
			Team: tc.Team, Cost: money(cur, tc.Cost), GPUCost: money(cur, tc.GPUCost),
			IdleCost: measuredMoney(cur, tc.IdleCost, tc.IdleReading()), IdleShare: measuredShare(tc.IdleCost, tc.Cost, tc.IdleReading()),
			Budget:     budget,
			OverBudget: tc.Budget != nil && tc.MonthForecast > *tc.Budget,
		}
		if tc.PreviousCost != 0 {
			row.Previous = money(cur, tc.PreviousCost)
			row.Change = strings.TrimSuffix(changeText(tc.Cost, tc.PreviousCost), " vs previous period")
		}
		if tc.MonthToDate != 0 || tc.MonthForecast != 0 {
			row.MonthToDate, row.Forecast = money(cur, tc.MonthToDate), money(cur, tc.MonthForecast)
		}
		p.Teams = append(p.Teams, row)
	}
}

// setQuality fills the data-quality box.
func (p *page) setQuality(r *analysis.Result) {
	cur, t := r.Currency, r.Totals
	dq := r.DataQuality
	p.Quality = qualityView{
		UnmonitoredShare: percent(dq.UnmonitoredShare),
		UnmonitoredCost:  money(cur, t.UnmonitoredCost),
		RowsRejected:     strconv.Itoa(dq.RowsRejected),
		Warnings:         dq.Warnings,
		Shards:           shardRows(r),
	}
	for _, x := range dq.ExchangeRates {
		p.Quality.ExchangeRates = append(p.Quality.ExchangeRates, rateText(x, cur))
	}
	for _, s := range dq.Sources {
		p.Quality.Sources = append(p.Quality.Sources, sourceRow{Name: s.Name, Kind: s.Kind, Status: s.Status, Tone: statusTone(s.Status), Detail: s.Detail})
	}
}

// inlineScript prepares the ECharts library for a <script> element. The HTML
// parser ends a script at the first "</script" and enters a different state at
// "<!--", whatever the JavaScript means; the pinned library contains neither,
// but a library that does is refused rather than allowed to corrupt the page.
func inlineScript(js []byte) (template.JS, bool) {
	if len(js) == 0 {
		return "", false
	}
	lower := bytes.ToLower(js)
	if bytes.Contains(lower, []byte("</script")) || bytes.Contains(lower, []byte("<!--")) || bytes.Contains(lower, []byte("<script")) {
		return "", false
	}
	return template.JS(js), true
}

func otherChargesNote(cur string, t analysis.Totals) string {
	if t.OtherCharges == 0 {
		return ""
	}
	return "incl. " + money(cur, t.OtherCharges) + " tax, credits and adjustments"
}

func gpuText(model string, count int) string {
	switch {
	case model == "":
		return ""
	case count > 1:
		return strconv.Itoa(count) + "× " + model
	}
	return model
}

func unitsPrec(v float64) int {
	if v == float64(int64(v)) {
		return 0
	}
	return 2
}

func toneIf(ok bool, tone string) string {
	if ok {
		return tone
	}
	return ""
}

// confTone maps a confidence to a CSS class suffix from a fixed set, so data
// never chooses class names.
func confTone(c string) string {
	switch c {
	case "high", "medium", "low":
		return c
	}
	return "unknown"
}

// sevTone maps a finding severity to a CSS class suffix from a fixed set.
func sevTone(s string) string {
	switch s {
	case "high":
		return "bad"
	case "medium":
		return "warn"
	case "low":
		return "info"
	}
	return "unknown"
}

func statusTone(s string) string {
	switch s {
	case "ok":
		return "ok"
	case "stale", "partial":
		return "warn"
	case "missing", "failed":
		return "bad"
	}
	return "unknown"
}
