package report

import (
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/workbook"
)

// summary writes the KPI table in columns A:B, the native charts beside it
// from column D (on screen on a laptop), and the helper tables the charts
// read from to the charts' right.
func (b *book) summary() error {
	f, st, r, t, meta := b.f, b.st, b.r, b.r.Totals, b.meta
	type kpi struct {
		label string
		value any
		style int
	}
	scope := "All teams"
	if meta.Team != "" {
		scope = "Team " + meta.Team
	}
	prev := t.PreviousCost
	var chg any
	if c, ok := change(t.Cost, prev); ok {
		chg = c
	}
	// Whether the figures can be trusted comes before them.
	complete := "yes"
	if inc := r.DataQuality.Incomplete; len(inc) > 0 {
		complete = "NO: " + strings.Join(inc, "; ")
	}
	// Nobody measured: a word where there is room for one, else a blank
	// cell, never 0 (unknown.go).
	m := t.IdleReading()
	idle, util := any(t.IdleCost), any(t.AvgGPUUtilization/100)
	if !m.Known() {
		idle = "unknown: no GPU-hour was monitored"
		util = idle
	}
	rows := []kpi{
		{"Period", r.Period.Label, st.text},
		{"From", r.Period.Start, st.date},
		{"To (exclusive)", r.Period.End, st.date},
		{"Time zone", b.loc.String(), st.text},
		{"Currency", r.Currency, st.text},
		{"Scope", scope, st.text},
		{"Data complete", complete, st.text},
		{"Telemetry coverage (monitored ÷ billed GPU-hours; idle is a lower bound below 100 %)", r.DataQuality.Coverage, st.percent},
		{"Total cost", t.Cost, st.money},
		{"Previous period cost", blankIfZero(prev), st.money},
		{"Change vs previous period", chg, st.percent},
		{"GPU cost", t.GPUCost, st.money},
		{"Non-GPU cost", t.NonGPUCost, st.money},
		{"Other charges (tax, credits, adjustments)", t.OtherCharges, st.money},
		{"Idle cost", idle, st.money},
		{"Idle share of total cost", measuredCell(idleShare(t), m), st.percent},
		{"Allocated but idle cost (fix the job)", measuredCell(t.AllocatedIdleCost, m), st.money},
		{"Unallocated cost (no task held the GPU)", t.UnallocatedCost, st.money},
		{"Unmonitored cost", t.UnmonitoredCost, st.money},
		{"Unused commitment cost", t.UnusedCommitmentCost, st.money},
		{"GPU-hours billed", t.GPUHoursBilled, st.hours},
		{"GPU-hours active", t.GPUHoursActive, st.hours},
		{"GPU-hours idle", t.GPUHoursIdle, st.hours},
		{"GPU-hours unmonitored", t.GPUHoursUnmonitored, st.hours},
		{"Average GPU utilization", util, st.percent},
		{"Monthly savings available", t.MonthlySavings, st.money},
	}
	if a := r.Advice; a != nil {
		// Only with decisions (finops advice): metrics.md §Advice.
		rows = append(rows, kpi{"Recommendations hidden (dismissed/snoozed)", a.Hidden, st.count},
			kpi{"Advice done: measured", len(a.Realised) - a.TooEarly, st.count},
			kpi{"Advice done: realised monthly savings", a.RealisedMonthlySavings, st.money},
			kpi{"Advice done: expected monthly savings", a.ExpectedMonthlySavings, st.money},
			kpi{"Advice done: too early to tell (under 7 days)", a.TooEarly, st.count})
	}
	rows = append(rows, []kpi{
		{"Findings", len(r.Findings), st.count},
		{"Unmonitored share of GPU-hours", r.DataQuality.UnmonitoredShare, st.percent},
		{"Rows rejected", r.DataQuality.RowsRejected, st.count},
	}...)
	if !meta.GeneratedAt.IsZero() {
		rows = append(rows, kpi{"Generated at", meta.GeneratedAt, st.date})
	}
	if meta.Version != "" {
		rows = append(rows, kpi{"finops version", meta.Version, st.text})
	}
	for _, x := range r.DataQuality.ExchangeRates {
		rows = append(rows, kpi{"Exchange rate: " + r.Currency + " per " + x.Currency, x.Rate, st.rate})
	}

	const sheet = sheetSummary
	for i, h := range []string{"Metric", "Value"} {
		cell, _ := excelize.CoordinatesToCellName(i+1, 1)
		if err := f.SetCellStr(sheet, cell, h); err != nil {
			return err
		}
	}
	if err := f.SetCellStyle(sheet, "A1", "B1", st.header); err != nil {
		return err
	}
	for i, k := range rows {
		row := i + 2
		if err := f.SetCellStr(sheet, fmt.Sprintf("A%d", row), k.label); err != nil {
			return err
		}
		cell := fmt.Sprintf("B%d", row)
		if _, err := b.setCell(sheet, cell, k.value); err != nil {
			return err
		}
		if err := f.SetCellStyle(sheet, cell, cell, k.style); err != nil {
			return err
		}
	}
	if err := f.SetColWidth(sheet, "A", "A", 42); err != nil {
		return err
	}
	if err := f.SetColWidth(sheet, "B", "B", 20); err != nil {
		return err
	}
	if err := workbook.FreezeHeader(f, sheet); err != nil {
		return err
	}
	if err := f.AutoFilter(sheet, fmt.Sprintf("A1:B%d", len(rows)+1), nil); err != nil {
		return err
	}
	return b.summaryCharts(len(rows) + 1)
}

// The charts start in column D, leaving C as a narrow gap after the KPI
// table; they are chartWidth pixels wide, the ten columns D:M (7.5 units, 60
// px each as excelize places charts). The helper tables start at column O, a
// column's gap to the charts' right. A:M is 42 + 20 + 2 + 75 = 139 units,
// inside workbook.MaxPrintWidth, so the Summary prints at 74 % or more; chart
// text is 11 pt (axis labels were 9 pt, 6.6 pt printed), so it prints at 8 pt
// or more too.
const (
	chartCol   = "D"
	chartWidth = 600
	chartGap   = 2.0 // column C
	chartColW  = 7.5 // each of D:M
	// summaryPageRows is how many 20 px (15 pt) rows one printed page of
	// the Summary holds, at the least: A4 landscape is 595 − 2 × 43 = 509 pt
	// high inside the margins, at A:M's 80 % that is 636 pt of sheet, 42
	// rows; less the repeated header row and some slack for the programs'
	// rounding. (Letter, at 75 %, holds 46.)
	summaryPageRows = 38
	chartLast       = "M" // the charts' last column, the printed area's
	helperCol       = 15
)

// Chart text is dark grey (excelize's default axis labels are #D9D9D9,
// nearly invisible on white); the idle chart is one colour for one series.
const (
	axisColor = "404040"
	idleColor = "D55E00"
	utilColor = "0072B2"
)

// axis is a chart axis with readable labels and a title.
func axis(title string) excelize.ChartAxis {
	return excelize.ChartAxis{Font: excelize.Font{Color: axisColor, Size: workbook.BodyFontPt},
		Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: title, Font: &excelize.Font{Color: axisColor, Size: workbook.BodyFontPt}}}}}
}

// dailyTeamChart writes the daily cost by team ("Day", then team names;
// one row per day) as a helper table from row top, and returns its
// stacked column chart and the table's last row.
func (b *book) dailyTeamChart(daily matrix, top int) (*excelize.Chart, int, error) {
	const sheet = sheetSummary
	rows := make([][]any, len(daily.Days))
	for d, day := range daily.Days {
		rows[d] = []any{day}
		for s := range daily.Series {
			rows[d] = append(rows[d], daily.Values[s][d])
		}
	}
	styles := []int{0}
	for range daily.Series {
		styles = append(styles, b.st.money)
	}
	bottom, err := b.helperTable(sheet, top, append([]string{"Day"}, daily.Series...), rows, styles)
	if err != nil {
		return nil, 0, err
	}
	dayCol := colName(helperCol)
	ch := &excelize.Chart{
		Type:      excelize.ColStacked,
		Title:     chartTitle("Daily cost by team"),
		Legend:    excelize.ChartLegend{Position: "bottom", Font: &excelize.Font{Size: workbook.BodyFontPt}},
		Dimension: excelize.ChartDimension{Width: chartWidth, Height: 320},
		XAxis:     axis("Day"),
		YAxis:     axis("Cost (" + amount.Code(b.r.Currency) + ")"),
	}
	ch.YAxis.MajorGridLines = true
	ch.YAxis.NumFmt = excelize.ChartNumFmt{CustomNumFmt: amount.ExcelFormat(b.r.Currency, 0)}
	for s := range daily.Series {
		c := colName(helperCol + 1 + s)
		ch.Series = append(ch.Series, excelize.ChartSeries{
			Name:       ref(sheet, c, top, c, top),
			Categories: ref(sheet, dayCol, top+1, dayCol, bottom),
			Values:     ref(sheet, c, top+1, c, bottom),
		})
	}
	return ch, bottom, nil
}

// placeCharts sizes the helper columns, stacks the charts down from D2,
// each starting a new printed page rather than crossing one's foot, and
// sets the print area to the KPI table and the charts.
func (b *book) placeCharts(charts []*excelize.Chart, lastHelperCol, kpiLast int) error {
	f := b.f
	const sheet = sheetSummary
	if len(charts) == 0 { // the KPI table alone prints
		_, err := workbook.PrintColumns(f, sheet, 2, kpiLast)
		return err
	}
	if err := f.SetColWidth(sheet, colName(helperCol), colName(helperCol), 24); err != nil {
		return err
	}
	if lastHelperCol > helperCol {
		if err := f.SetColWidth(sheet, colName(helperCol+1), colName(lastHelperCol), 14); err != nil {
			return err
		}
	}
	// The charts stack down from D2; the sheet prints the KPI table and the
	// charts (A:M), not the helper tables behind them.
	if err := f.SetColWidth(sheet, "C", "C", chartGap); err != nil {
		return err
	}
	if err := f.SetColWidth(sheet, chartCol, chartLast, chartColW); err != nil {
		return err
	}
	row, pageTop := 2, 1
	for _, c := range charts {
		// A chart that would cross the foot of a printed page starts the
		// next one: split, its halves printed on two pages.
		if rows := (int(c.Dimension.Height) + 19) / 20; row > pageTop && row+rows-1 >= pageTop+summaryPageRows {
			if err := f.InsertPageBreak(sheet, fmt.Sprintf("A%d", row)); err != nil {
				return err
			}
			pageTop = row
		}
		if err := f.AddChart(sheet, fmt.Sprintf("%s%d", chartCol, row), c); err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		row += int(c.Dimension.Height)/20 + 2 // default row height is 20 px
	}
	last := max(row, kpiLast)
	return f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Area", Scope: sheet,
		RefersTo: fmt.Sprintf("'%s'!$A$1:$%s$%d", sheet, chartLast, last)})
}

// summaryCharts writes two helper tables (daily cost per team; idle cost per
// resource) and a native chart over each. Excel charts must read from cells,
// so the numbers are on the sheet, where the reader can also check them.
func (b *book) summaryCharts(kpiLast int) error {
	st := b.st
	const sheet = sheetSummary

	daily := dailyBy(b.r.Daily, b.loc, teamKey)
	idle := idleByResource(b.r.ByResource, 20)

	// Daily cost by team: "Day", then team names; one row per day.
	nextRow := 1
	lastHelperCol := helperCol
	var charts []*excelize.Chart
	if len(daily.Days) > 0 && len(daily.Series) > 0 {
		ch, bottom, err := b.dailyTeamChart(daily, nextRow)
		if err != nil {
			return err
		}
		charts = append(charts, ch)
		lastHelperCol = max(lastHelperCol, helperCol+len(daily.Series))
		nextRow = bottom + 3
	}

	// Idle cost by resource, below the daily table.
	if len(idle) > 0 {
		top := nextRow
		rows := make([][]any, len(idle))
		for i, it := range idle {
			rows[i] = []any{it.Label, it.Value}
		}
		bottom, err := b.helperTable(sheet, top, []string{"Resource", "Idle cost"}, rows, []int{0, st.money})
		if err != nil {
			return err
		}
		ch := barChart(sheet, top, bottom, "Idle cost by resource", "Resource", "Idle cost ("+amount.Code(b.r.Currency)+")",
			max(240, 60+24*len(idle)), idleColor)
		ch.YAxis.NumFmt = excelize.ChartNumFmt{CustomNumFmt: amount.ExcelFormat(b.r.Currency, 0)}
		charts = append(charts, ch)
		lastHelperCol = max(lastHelperCol, helperCol+1)
		nextRow = bottom + 3
	}
	// Average utilization by GPU model, below the idle table.
	if models := b.r.GPUsByModel; len(models) > 0 {
		top := nextRow
		rows := make([][]any, len(models))
		for i, m := range models {
			var util any // blank where no GPU-hour of the model was monitored
			if m.UtilKnown() {
				util = m.AvgUtilization / 100
			}
			rows[i] = []any{orDefault(m.GPUModel, "unknown"), util, m.GPUHours}
		}
		bottom, err := b.helperTable(sheet, top, []string{"GPU model", "Avg utilization", "GPU-hours billed"}, rows,
			[]int{0, st.percent, st.hours})
		if err != nil {
			return err
		}
		ch := barChart(sheet, top, bottom, "Average utilization by GPU model", "GPU model", "Average utilization",
			max(220, 60+28*len(models)), utilColor)
		maxUtil := 1.0
		ch.YAxis.Minimum, ch.YAxis.Maximum = new(float64), &maxUtil
		ch.YAxis.NumFmt = excelize.ChartNumFmt{CustomNumFmt: "0%"}
		charts = append(charts, ch)
		lastHelperCol = max(lastHelperCol, helperCol+2)
	}
	return b.placeCharts(charts, lastHelperCol, kpiLast)
}

// helperTable writes a chart's numbers from column helperCol, row top: a
// bold header, then one row per category, column c styled styles[c] (0:
// unstyled). It returns the table's last row.
func (b *book) helperTable(sheet string, top int, header []string, rows [][]any, styles []int) (int, error) {
	if err := b.helperHeader(sheet, top, header); err != nil {
		return 0, err
	}
	for i, row := range rows {
		for c, v := range row {
			if _, err := b.setCell(sheet, fmt.Sprintf("%s%d", colName(helperCol+c), top+1+i), v); err != nil {
				return 0, err
			}
		}
	}
	bottom := top + len(rows)
	for c, style := range styles {
		if style == 0 {
			continue
		}
		col := colName(helperCol + c)
		if err := b.f.SetCellStyle(sheet, fmt.Sprintf("%s%d", col, top+1), fmt.Sprintf("%s%d", col, bottom), style); err != nil {
			return 0, err
		}
	}
	return bottom, nil
}

// barChart is a horizontal bar chart, largest on top, of a helper table's
// second column (rows top+1..bottom) by its first, in one colour.
func barChart(sheet string, top, bottom int, title, xTitle, yTitle string, height int, color string) *excelize.Chart {
	lc, vc := colName(helperCol), colName(helperCol+1)
	ch := &excelize.Chart{
		Type:       excelize.Bar,
		Title:      chartTitle(title),
		Legend:     excelize.ChartLegend{Position: "none"},
		Dimension:  excelize.ChartDimension{Width: chartWidth, Height: uint(height)},
		VaryColors: new(bool), // one series, one colour (excelize varies them per bar)
		XAxis:      axis(xTitle),
		YAxis:      axis(yTitle),
		Series: []excelize.ChartSeries{{
			Name:       ref(sheet, vc, top, vc, top),
			Categories: ref(sheet, lc, top+1, lc, bottom),
			Values:     ref(sheet, vc, top+1, vc, bottom),
			Fill:       excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{color}},
		}},
	}
	ch.XAxis.ReverseOrder = true
	ch.YAxis.MajorGridLines = true
	return ch
}

// helperHeader writes a bold header row for a chart helper table.
func (b *book) helperHeader(sheet string, row int, titles []string) error {
	for i, t := range titles {
		cell := fmt.Sprintf("%s%d", colName(helperCol+i), row)
		if _, err := b.setCell(sheet, cell, t); err != nil {
			return err
		}
	}
	return b.f.SetCellStyle(sheet, fmt.Sprintf("%s%d", colName(helperCol), row),
		fmt.Sprintf("%s%d", colName(helperCol+len(titles)-1), row), b.st.header)
}

func chartTitle(s string) excelize.ChartTitle {
	return excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: s, Font: &excelize.Font{Bold: true, Size: 12}}}}
}

// ref is an absolute range reference such as Summary!$E$2:$E$8; the sheet name
// is quoted so names with spaces work.
func ref(sheet, c1 string, r1 int, c2 string, r2 int) string {
	return fmt.Sprintf("'%s'!$%s$%d:$%s$%d", strings.ReplaceAll(sheet, "'", "''"), c1, r1, c2, r2)
}

func colName(n int) string {
	s, _ := excelize.ColumnNumberToName(n)
	return s
}
