package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/termcol"
)

// The HTML charts. go-echarts builds the ECharts option objects; we do NOT use
// its renderers (Render, RenderSnippet): they reference the assets CDN, write
// the option JSON with HTML escaping off, HTML-unescape it again in snippets,
// and turn any string wrapped in "__f__" into raw JavaScript. Instead we take
// the option as a map (chart.JSON()) and marshal it ourselves with
// encoding/json, which escapes <, >, & and U+2028/U+2029, so the JSON is inert
// inside a <script> element whatever the labels contain.

// chartSpec is one chart panel on the page.
type chartSpec struct {
	ID     string         `json:"id"`
	Option map[string]any `json:"option"`
	Title  string         `json:"-"`
	Note   string         `json:"-"`
	Height int            `json:"-"` // px
}

// chartPalette is colour-blind friendly (Okabe–Ito, then greys) so stacked
// series stay distinguishable.
var chartPalette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000", "#999999", "#666666"}

// buildCharts returns the page's charts in display order; a chart without data
// is left out (the page says so instead).
func buildCharts(r *analysis.Result, loc *time.Location) []chartSpec {
	var out []chartSpec
	if m := dailyBy(r.Daily, loc, teamKey); len(m.Days) > 0 {
		out = append(out, chartSpec{ID: "chart-daily-team", Title: "Daily spend by team", Height: 360,
			Option: stackedBar(m, r.Currency)})
	}
	if m := dailyBy(r.Daily, loc, modelKey); len(m.Days) > 0 {
		out = append(out, chartSpec{ID: "chart-daily-model", Title: "Daily spend by GPU model", Height: 360,
			Option: stackedBar(m, r.Currency)})
	}
	if hm, rows, note := utilHeatmap(r.HourlyUtil, loc); hm != nil {
		out = append(out, chartSpec{ID: "chart-util-heatmap", Title: "GPU utilization by hour",
			Note:   strings.TrimSpace(note + " Empty cells are hours without telemetry (unmonitored)."),
			Height: min(1600, max(260, 110+22*rows)), Option: hm})
	}
	if idle := idleByResource(r.ByResource, 30); len(idle) > 0 {
		out = append(out, chartSpec{ID: "chart-idle-resource", Title: "Idle cost by resource",
			Height: max(220, 80+28*len(idle)), Option: idleBar(idle, r.Currency)})
	}
	if opt, note, rows := unitCostTrend(r.TaskDaily, r.Tasks, loc, r.Currency); opt != nil {
		out = append(out, chartSpec{ID: "chart-unit-cost", Title: "Unit cost per task", Note: note,
			Height: 320 + legendRowHeight*rows, Option: opt})
	}
	if spec := trendChart(r.Trend, r.Currency); spec != nil {
		out = append(out, *spec)
	}
	if opt, n := budgetBars(r.ByTeam, r.Currency); opt != nil {
		out = append(out, chartSpec{ID: "chart-budget", Title: "Spend vs budget this month",
			Note:   "Month to date, the month-end forecast at the current daily rate, and the monthly budget.",
			Height: max(240, 120+36*n), Option: opt})
	}
	return out
}

// maxTrendTasks bounds the unit-cost chart's lines and legend.
const maxTrendTasks = 6

// legendRowHeight is the height of one row of a wrapped legend, and
// legendRowWidth the width a row is assumed to have (a half-width chart on a
// laptop), so a legend that wraps gets the room it needs instead of paging.
const (
	legendRowHeight = 24
	legendRowWidth  = 480
)

// legendRows estimates how many rows a plain (wrapping) legend of names
// takes: about 7 px a character plus the symbol and gap.
func legendRows(names []string) int {
	rows, x := 1, 0
	for _, n := range names {
		w := 40 + 7*termcol.Width(n) // display columns: a Han character is two
		if x > 0 && x+w > legendRowWidth {
			rows, x = rows+1, 0
		}
		x += w
	}
	return rows
}

// unitCostTrend is one line per task with units: its cost per unit on each
// day of the window. Days without units are gaps, not zeros. Tasks are
// ranked by cost; units differ between tasks (per run, per 1M tokens), so
// when unit costs span more than two orders of magnitude the axis is
// logarithmic rather than flattening the cheap tasks onto zero.
func unitCostTrend(days []analysis.TaskDay, tasks []analysis.TaskCost, loc *time.Location, currency string) (map[string]any, string, int) {
	type key struct{ day, task string }
	cost, units := map[key]float64{}, map[key]float64{}
	total := map[string]float64{}
	var span daySpan
	for _, d := range days {
		day := span.add(d.Day, loc)
		k := key{day.Format(time.DateOnly), d.Task}
		cost[k] += d.Cost
		units[k] += d.Units
		if d.Units > 0 {
			total[d.Task] += d.Cost
		}
	}
	if len(total) == 0 {
		return nil, "", 0
	}
	unit := map[string]string{}
	for _, t := range tasks {
		unit[t.Task] = t.Unit
	}
	names := byTotal(total)
	note := "Cost per unit each day; gaps are days without units."
	if len(names) > maxTrendTasks {
		note += fmt.Sprintf(" The %d most expensive of %d tasks.", maxTrendTasks, len(names))
		names = names[:maxTrendTasks]
	}
	labels := span.labels(loc)
	lo, hi := math.Inf(1), 0.0
	var series []string
	line := charts.NewLine()
	line.Assets.ClearPresetAssets()
	for _, n := range names {
		data := make([]opts.LineData, len(labels))
		for i, day := range labels {
			k := key{day, n}
			if units[k] > 0 {
				v := cost[k] / units[k]
				data[i] = opts.LineData{Value: roundSig(v, 4)}
				if v > 0 {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			} else {
				data[i] = opts.LineData{Value: "-"} // ECharts: no point
			}
		}
		name := n
		if u := unit[n]; u != "" {
			name += " (per " + u + ")"
		}
		series = append(series, chartText(name))
		line.AddSeries(chartText(name), data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}))
	}
	yAxis := opts.YAxis{Type: "value", Name: amount.Code(currency) + " / unit", Scale: opts.Bool(true)}
	if hi > 0 && lo > 0 && hi/lo > 100 {
		yAxis.Type = "log"
		note += " Logarithmic scale: the tasks' units differ widely."
	}
	// A plain legend wraps; a scrolling one pages ("1/2") and hides lines.
	rows := legendRows(series)
	line.SetGlobalOptions(append(baseOpts(),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "plain", Bottom: "0"}),
		charts.WithGridOpts(opts.Grid{Left: axisNameRoom, Right: "16", Top: "32", Bottom: strconv.Itoa(16 + legendRowHeight*rows), ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category"}),
		charts.WithYAxisOpts(yAxis),
	)...)
	line.SetXAxis(labels)
	line.Validate()
	return line.JSON(), note, rows
}

// axisNameRoom is the grid's left margin of charts with a named vertical
// axis: ECharts centres the name ("CNY / unit") over the axis line, outside
// what containLabel reserves, so with short tick labels half of it would be
// cut off at the chart's left edge.
const axisNameRoom = "36"

// valueAxisBelow is a horizontal value axis named by the currency, the name
// centred under the axis: at the axis' right end it ran past the chart.
func valueAxisBelow(currency string) opts.XAxis {
	return opts.XAxis{Type: "value", Name: amount.Code(currency), NameLocation: "middle", NameGap: 26}
}

// budgetBars compares each team's month-to-date spend and month-end forecast
// with its monthly budget. Teams with neither a budget nor spend this month
// are left out; nil when no team is left.
func budgetBars(teams []analysis.TeamCost, currency string) (map[string]any, int) {
	var names []string
	var mtd, forecast, budget []opts.BarData
	for _, t := range teams {
		if t.Budget == nil && t.MonthToDate == 0 && t.MonthForecast == 0 {
			continue
		}
		names = append(names, chartText(t.Team))
		mtd = append(mtd, opts.BarData{Value: round2(t.MonthToDate)})
		fc := opts.BarData{Value: round2(t.MonthForecast)}
		if t.Budget != nil && t.MonthForecast > *t.Budget {
			fc.ItemStyle = &opts.ItemStyle{Color: "#D55E00"} // over budget
		}
		forecast = append(forecast, fc)
		if t.Budget != nil {
			budget = append(budget, opts.BarData{Value: round2(*t.Budget)})
		} else {
			budget = append(budget, opts.BarData{Value: "-"})
		}
	}
	if len(names) == 0 {
		return nil, 0
	}
	bar := charts.NewBar()
	bar.Assets.ClearPresetAssets()
	bar.SetGlobalOptions(append(baseOpts(),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "0"}),
		charts.WithGridOpts(opts.Grid{Left: "8", Right: "24", Top: "36", Bottom: "32", ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(valueAxisBelow(currency)),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Inverse: opts.Bool(true),
			AxisLabel: &opts.AxisLabel{Width: 160, Overflow: "truncate"}}),
	)...)
	bar.SetXAxis(names).XYReversal()
	bar.AddSeries("Month to date", mtd, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#0072B2"}))
	bar.AddSeries("Forecast (month end)", forecast, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#56B4E9"}))
	bar.AddSeries("Monthly budget", budget, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#999999"}))
	bar.Validate()
	return bar.JSON(), len(names)
}

// roundSig keeps digits significant digits (unit costs can be fractions of
// a cent); NaN, infinities and 0 come out 0.
func roundSig(v float64, digits int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow10(digits - 1 - int(math.Floor(math.Log10(math.Abs(v)))))
	return math.Round(v*p) / p
}

func baseOpts() []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithColorsOpts(opts.Colors(chartPalette)),
		charts.WithAnimation(false), // print and screenshots capture the final state
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(false)}),
	}
}

// stackedBar is a daily stacked column chart, one series per key.
func stackedBar(m matrix, currency string) map[string]any {
	bar := charts.NewBar()
	bar.Assets.ClearPresetAssets() // never reference the go-echarts CDN
	bar.SetGlobalOptions(append(baseOpts(),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0"}),
		charts.WithGridOpts(opts.Grid{Left: axisNameRoom, Right: "16", Top: "24", Bottom: "40", ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: amount.Code(currency)}),
	)...)
	bar.SetXAxis(m.Days)
	for s, name := range m.Series {
		data := make([]opts.BarData, len(m.Days))
		for d := range m.Days {
			data[d] = opts.BarData{Value: round2(m.Values[s][d])}
		}
		bar.AddSeries(chartText(name), data, charts.WithBarChartOpts(opts.BarChart{Stack: "total"}))
	}
	bar.Validate()
	return bar.JSON()
}

// idleBar is a horizontal bar chart, largest idle cost on top.
func idleBar(items []labelled, currency string) map[string]any {
	bar := charts.NewBar()
	bar.Assets.ClearPresetAssets()
	labels := make([]string, len(items))
	data := make([]opts.BarData, len(items))
	for i, it := range items {
		labels[i] = chartText(it.Label)
		data[i] = opts.BarData{Value: round2(it.Value)}
	}
	bar.SetGlobalOptions(append(baseOpts(),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithGridOpts(opts.Grid{Left: "8", Right: "24", Top: "16", Bottom: "32", ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(valueAxisBelow(currency)),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Inverse: opts.Bool(true),
			AxisLabel: &opts.AxisLabel{Width: 220, Overflow: "truncate"}}),
	)...)
	bar.SetXAxis(labels).XYReversal()
	bar.AddSeries("Idle cost", data, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#D55E00"}))
	bar.Validate()
	return bar.JSON()
}

// utilHeatmap is GPU × hour utilization. Hours without telemetry get no data
// point, so they show as empty cells rather than as 0 % (which would read as
// idle). The colour bands are metrics.md's utilization bands.
// A fleet past maxHeatmapGPUs shows its maxHeatmapGPUs most idle GPUs (the
// note says so; the workbook's Utilization sheet has all): 10,000 GPUs'
// week was a 45 MB page whose chart no browser could draw, nor anyone read.
func utilHeatmap(hoursIn []analysis.GPUHours, loc *time.Location) (_ map[string]any, rows int, note string) {
	if len(hoursIn) == 0 {
		return nil, 0, ""
	}
	gpuLabel := heatLabel
	names := rowNames(hoursIn) // over every GPU: a resource's GPU 3 stays GPU 3 when GPU 2 is not shown
	hoursIn, note = mostIdleGPUs(hoursIn, maxHeatmapGPUs)
	var instants []time.Time
	seenHour := map[time.Time]bool{}
	seenGPU := map[string]bool{}
	var gpus []string
	for i := range hoursIn {
		h := &hoursIn[i]
		for k := range h.Util {
			if t := h.Hour(k).UTC(); !seenHour[t] {
				seenHour[t] = true
				instants = append(instants, t)
			}
		}
		if g := gpuLabel(h); !seenGPU[g] {
			seenGPU[g] = true
			gpus = append(gpus, g)
		}
	}
	slices.SortFunc(instants, func(a, b time.Time) int { return a.Compare(b) })
	slices.SortFunc(gpus, cmp.Compare)
	xIndex := make(map[time.Time]int, len(instants))
	xLabels := make([]string, len(instants))
	for i, t := range instants {
		xIndex[t] = i
		xLabels[i] = t.In(loc).Format("01-02 15:04")
	}
	yIndex := make(map[string]int, len(gpus))
	yLabels := make([]string, len(gpus))
	for i, g := range gpus {
		yIndex[g] = i
		yLabels[i] = chartText(names[g])
	}
	n := 0
	for i := range hoursIn {
		for _, u := range hoursIn[i].Util {
			if !math.IsNaN(u) {
				n++
			}
		}
	}
	data := make([]heatCell, 0, n)
	for i := range hoursIn {
		h := &hoursIn[i]
		y := float64(yIndex[gpuLabel(h)])
		x0 := xIndex[h.Start.UTC()]
		for k, u := range h.Util {
			if math.IsNaN(u) {
				continue // unmonitored: leave the cell empty
			}
			// A row's hours are consecutive columns unless another row's
			// hours fall between them (a window starting off the hour).
			x, t := x0+k, h.Hour(k).UTC()
			if x >= len(instants) || !instants[x].Equal(t) {
				x = xIndex[t]
			}
			data = append(data, heatCell{Value: [3]float64{float64(x), y, round1(u)}})
		}
	}

	hm := charts.NewHeatMap()
	hm.Assets.ClearPresetAssets()
	global := append(baseOpts(),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithGridOpts(opts.Grid{Left: "8", Right: "40", Top: "40", Bottom: "56", ContainLabel: opts.Bool(true)}), // room for the last time label
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Data: xLabels, SplitArea: &opts.SplitArea{Show: opts.Bool(true)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: yLabels, SplitArea: &opts.SplitArea{Show: opts.Bool(true)},
			AxisLabel: &opts.AxisLabel{Width: 220, Overflow: "truncate"}}),
		charts.WithVisualMapOpts(opts.VisualMap{
			Type: "piecewise", Orient: "horizontal", Left: "center", Top: "0", // the zoom slider is at the bottom
			Pieces: []opts.Piece{
				{Lt: 10, Color: "#d9d9d9"},          // idle
				{Gte: 10, Lt: 50, Color: "#fdd49e"}, // low
				{Gte: 50, Lt: 80, Color: "#9ecae1"}, // fair
				{Gte: 80, Lte: 95, Color: "#2b8cbe"},
				{Gt: 95, Color: "#084081"}, // saturated
			},
		}),
	)
	if len(xLabels) > 72 {
		global = append(global, charts.WithDataZoomOpts(opts.DataZoom{Type: "slider", XAxisIndex: []int{0}}))
	}
	hm.SetGlobalOptions(global...)
	hm.AddSeries("Utilization %", nil, func(s *charts.SingleSeries) {
		if len(data) > 0 {
			s.Data = data
		}
	})
	hm.Validate()
	return hm.JSON(), len(gpus), note
}

// rowNames names each heatmap row (by heatLabel) by its resource and the
// GPU's index within it ("a100x2 · GPU 1"): a GPU UUID cut to fit says
// nothing, and the tooltip has no room either. The index is by the GPUs'
// sorted ids, stable run to run; a GPU without a resource, or a resource
// that is its own GPU, keeps its label.
func rowNames(hours []analysis.GPUHours) map[string]string {
	type idGPU struct{ id, gpu string }
	parts := map[string]idGPU{}
	var gpus []string
	for i := range hours {
		h := &hours[i]
		g := heatLabel(h)
		if _, seen := parts[g]; !seen {
			parts[g] = idGPU{analysis.ShortResourceID(h.ResourceID), h.GPU}
			gpus = append(gpus, g)
		}
	}
	slices.Sort(gpus) // ids of one resource in order
	names, perResource := make(map[string]string, len(gpus)), map[string]int{}
	for _, g := range gpus {
		names[g] = g
		if p := parts[g]; p.id != "" && p.gpu != "" && p.id != p.gpu {
			names[g] = p.id + " · GPU " + strconv.Itoa(perResource[p.id])
			perResource[p.id]++
		}
	}
	return names
}

// maxHeatmapGPUs is the most GPUs the utilization heatmap shows.
const maxHeatmapGPUs = 1000

// heatLabel is a heatmap row's GPU: its resource's short id and the GPU.
func heatLabel(h *analysis.GPUHours) string {
	id := analysis.ShortResourceID(h.ResourceID)
	switch {
	case h.GPU == "":
		return id
	case id == "" || id == h.GPU:
		return h.GPU
	}
	return id + " / " + h.GPU
}

// mostIdleGPUs is the rows of hours' limit GPUs with the most idle hours (a
// mean under 10 %, the heatmap's idle band), then the lowest mean
// utilization, then by name; all of them, and no note, when there are no
// more than limit.
func mostIdleGPUs(hours []analysis.GPUHours, limit int) ([]analysis.GPUHours, string) {
	type tally struct {
		idle, n int
		sum     float64
	}
	by := map[string]*tally{}
	var labels []string
	for i := range hours {
		l := heatLabel(&hours[i])
		t := by[l]
		if t == nil {
			t = &tally{}
			by[l] = t
			labels = append(labels, l)
		}
		for _, u := range hours[i].Util {
			if math.IsNaN(u) {
				continue
			}
			t.n++
			t.sum += u
			if u < 10 {
				t.idle++
			}
		}
	}
	if len(labels) <= limit {
		return hours, ""
	}
	mean := func(t *tally) float64 {
		if t.n == 0 {
			return math.Inf(1) // no telemetry at all: nothing to show
		}
		return t.sum / float64(t.n)
	}
	slices.SortFunc(labels, func(a, b string) int {
		ta, tb := by[a], by[b]
		return cmp.Or(cmp.Compare(tb.idle, ta.idle), cmp.Compare(mean(ta), mean(tb)), cmp.Compare(a, b))
	})
	keep := make(map[string]bool, limit)
	for _, l := range labels[:limit] {
		keep[l] = true
	}
	out := make([]analysis.GPUHours, 0, limit)
	for i := range hours {
		if keep[heatLabel(&hours[i])] {
			out = append(out, hours[i])
		}
	}
	return out, fmt.Sprintf("The %s of %s GPUs with the most idle hours (under 10 %%); the workbook's Utilization (hourly) sheet has every GPU.",
		amount.Group(float64(limit), 0), amount.Group(float64(len(labels)), 0))
}

// heatCell is a heatmap cell as opts.HeatMapData marshals it,
// {"value":[x,y,v]} (whole numbers print alike as float64 and int), without
// its two interface values: a week of 10,000 GPUs is 1.68 M cells, 40 MB as
// these and 360 MB allocated as HeatMapData around boxed [3]any.
type heatCell struct {
	Value [3]float64 `json:"value"`
}

// chartsJSON serialises the chart specs for the page's init script. The
// output must be safe between <script> and </script>: encoding/json escapes
// <, > and & as \u003c… and the line separators U+2028/2029, and we verify it
// rather than trust it, since a break-out here is script injection.
func chartsJSON(specs []chartSpec) (template.JS, error) {
	if specs == nil {
		specs = []chartSpec{}
	}
	b, err := json.Marshal(specs)
	if err != nil {
		return "", fmt.Errorf("report: chart options: %w", err)
	}
	b = sanitize.JSON(b) // no control or invisible character raw, whatever a label held
	if bytes.ContainsAny(b, "<>&") || bytes.Contains(b, []byte("\u2028")) || bytes.Contains(b, []byte("\u2029")) {
		return "", fmt.Errorf("report: chart options are not script-safe")
	}
	return template.JS(b), nil
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
func round1(v float64) float64 { return math.Round(v*10) / 10 }
