package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
)

// maxTrendTeams bounds the trend chart's stacked teams; the rest are one
// "other teams" bar.
const maxTrendTeams = 8

// trendChart is the weekly history: each week's cost stacked by team, the
// idle cost as a line, and the weeks flagged marked on the axis ("▲" above,
// "▼" below its range); the note names the flags, the weeks whose idle is a
// lower bound and the absent weeks. nil without a history.
func trendChart(t *analysis.Trend, cur string) (spec *chartSpec) {
	if t == nil || len(t.Weeks) == 0 {
		return nil
	}
	totals := map[string]float64{}
	for _, w := range t.Weeks {
		for _, tt := range w.Teams {
			totals[tt.Team] += tt.Cost
		}
	}
	teams := byTotal(totals)
	other := len(teams) > maxTrendTeams
	if other {
		teams = teams[:maxTrendTeams-1]
	}
	labels := make([]string, len(t.Weeks))
	idle := make([]opts.LineData, len(t.Weeks))
	for i, w := range t.Weeks {
		labels[i] = w.Label + weekMark(w.Anomaly)
		v := opts.LineData{Value: amount.RoundMinor(cur, w.IdleCost)}
		if !w.IdleReading().Known() {
			// No point where nobody measured: a gap in the line, not a 0.
			v.Value = "-"
		}
		if w.IdleLowerBound {
			v.Symbol, v.SymbolSize = "emptyCircle", 10
		}
		idle[i] = v
	}
	bar := charts.NewBar()
	bar.Assets.ClearPresetAssets() // never reference the go-echarts CDN
	var series []string
	for _, name := range teams {
		data := make([]opts.BarData, len(t.Weeks))
		for i, w := range t.Weeks {
			data[i] = opts.BarData{Value: amount.RoundMinor(cur, teamCost(w, name))}
		}
		series = append(series, chartText(name))
		bar.AddSeries(chartText(name), data, charts.WithBarChartOpts(opts.BarChart{Stack: "cost"}))
	}
	if other {
		kept := map[string]bool{}
		for _, n := range teams {
			kept[n] = true
		}
		data := make([]opts.BarData, len(t.Weeks))
		for i, w := range t.Weeks {
			sum := 0.0
			for _, tt := range w.Teams {
				if !kept[tt.Team] {
					sum += tt.Cost
				}
			}
			data[i] = opts.BarData{Value: amount.RoundMinor(cur, sum)}
		}
		series = append(series, "other teams")
		bar.AddSeries("other teams", data, charts.WithBarChartOpts(opts.BarChart{Stack: "cost"}))
	}
	line := charts.NewLine()
	line.AddSeries("Idle cost", idle, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: "#D55E00"}), charts.WithLineStyleOpts(opts.LineStyle{Type: "dashed"}))
	series = append(series, "Idle cost")
	rows := legendRows(series)
	bar.SetGlobalOptions(append(baseOpts(),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "plain", Bottom: "0"}),
		charts.WithGridOpts(opts.Grid{Left: axisNameRoom, Right: "16", Top: "32", Bottom: strconv.Itoa(16 + legendRowHeight*rows),
			ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: amount.Code(cur)}),
	)...)
	bar.SetXAxis(labels)
	bar.Overlap(line)
	bar.Validate()
	return &chartSpec{ID: "chart-trend", Title: "Weekly cost and idle, by team", Note: trendNote(t),
		Height: 340 + legendRowHeight*rows, Option: bar.JSON()}
}

func teamCost(w analysis.TrendWeek, team string) float64 {
	for _, tt := range w.Teams {
		if tt.Team == team {
			return tt.Cost
		}
	}
	return 0
}

// weekMark marks a flagged week on the axis.
func weekMark(flag string) string {
	switch flag {
	case analysis.AnomalyHigh:
		return " ▲"
	case analysis.AnomalyLow:
		return " ▼"
	}
	return ""
}

// trendNote says what the chart's marks mean and which figures are flagged.
func trendNote(t *analysis.Trend) string {
	var parts []string
	var flagged, lower []string
	for _, w := range t.Weeks {
		if s := anomalyText(w.Anomaly); s != "" {
			flagged = append(flagged, w.Label+" total "+s)
		}
		for _, tt := range w.Teams {
			if s := anomalyText(tt.Anomaly); s != "" {
				flagged = append(flagged, w.Label+" "+chartText(tt.Team)+" "+s)
			}
		}
		for _, r := range w.Resources {
			if s := anomalyText(r.Anomaly); s != "" {
				flagged = append(flagged, w.Label+" "+analysis.ShortResourceID(chartText(r.ResourceID))+" "+s)
			}
		}
		if w.IdleLowerBound {
			lower = append(lower, w.Label)
		}
	}
	parts = append(parts, fmt.Sprintf("Cost per week stacked by team; the dashed line is the idle cost. ▲/▼: the week's total is outside "+
		"the range of the %d weeks before it.", analysis.MoverWeeks))
	if len(flagged) > 0 {
		parts = append(parts, "Flagged: "+strings.Join(flagged, "; ")+".")
	}
	if last := t.Weeks[len(t.Weeks)-1]; last.Anomaly == analysis.AnomalyNoHist {
		parts = append(parts, notEnoughHistory(t))
	}
	if len(lower) > 0 {
		parts = append(parts, "Telemetry covered too little of "+strings.Join(lower, ", ")+
			" (hollow points): their idle cost is a lower bound.")
	}
	if len(t.AbsentWeeks) > 0 {
		parts = append(parts, "No data before "+t.Weeks[0].Label+": "+strings.Join(t.AbsentWeeks, ", ")+" are absent, not zero.")
	}
	return strings.Join(parts, " ")
}
