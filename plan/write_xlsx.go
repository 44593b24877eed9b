package plan

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/finops-oss/finops/amount"
	"github.com/finops-oss/finops/sanitize"
	"github.com/xuri/excelize/v2"
)

// WriteXLSX writes the plan as a workbook: Plan (one row per scenario with
// its budget and how it was got), Memory (every term), GPUs (fit and
// rankings per GPU model), Options (every priced way to rent), Assumptions,
// GPU specs and Prices. Every text cell goes through safeText.
func WriteXLSX(w io.Writer, r *Result) error {
	if r == nil {
		return fmt.Errorf("plan: nil result")
	}
	f := excelize.NewFile()
	defer f.Close()
	st, err := newXLSXStyles(f, r.Currency)
	if err != nil {
		return fmt.Errorf("plan: xlsx styles: %w", err)
	}
	builders := []func(*Result, xstyles) (string, []xcol, [][]any){
		planSheet, memorySheet, gpusSheet, optionsSheet, assumptionsSheet, specsSheet, pricesSheet,
	}
	for i, build := range builders {
		var sh struct {
			name string
			cols []xcol
			rows [][]any
		}
		sh.name, sh.cols, sh.rows = build(r, st)
		if i == 0 {
			if err := f.SetSheetName("Sheet1", sh.name); err != nil {
				return fmt.Errorf("plan: xlsx: %w", err)
			}
		} else if _, err := f.NewSheet(sh.name); err != nil {
			return fmt.Errorf("plan: xlsx sheet %q: %w", sh.name, err)
		}
		if err := writeXLSXTable(f, st, sh.name, sh.cols, sh.rows); err != nil {
			return fmt.Errorf("plan: xlsx sheet %q: %w", sh.name, err)
		}
	}
	f.SetActiveSheet(0)
	if err := f.SetDocProps(&excelize.DocProperties{
		Title:       sanitize.Cell("finops plan " + r.Period),
		Subject:     "GPU budget plan",
		Creator:     "finops",
		Description: "GPU memory, hours and budget per planned scenario (finops plan)",
		Category:    "plan",
	}); err != nil {
		return fmt.Errorf("plan: xlsx properties: %w", err)
	}
	if err := f.Write(w); err != nil {
		return fmt.Errorf("plan: write xlsx: %w", err)
	}
	return nil
}

// xstyles are the workbook's cell style ids.
type xstyles struct {
	header, bold, money, hours, gb, count, ratio, text int
}

func newXLSXStyles(f *excelize.File, cur string) (xstyles, error) {
	var s xstyles
	var err error
	add := func(dst *int, st *excelize.Style) {
		if err == nil {
			*dst, err = f.NewStyle(st)
		}
	}
	custom := func(format string) *excelize.Style { return &excelize.Style{CustomNumFmt: &format} }
	add(&s.header, &excelize.Style{
		Font:      &excelize.Font{Bold: true},
		Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"E7ECF3"}},
		Border:    []excelize.Border{{Type: "bottom", Color: "8A97A8", Style: 1}},
		Alignment: &excelize.Alignment{Vertical: "center", WrapText: true},
	})
	add(&s.bold, &excelize.Style{Font: &excelize.Font{Bold: true}})
	add(&s.money, custom(amount.ExcelFormat(cur, 2)))
	add(&s.hours, custom("#,##0.0"))
	add(&s.gb, custom("#,##0.00"))
	add(&s.count, &excelize.Style{NumFmt: 3})
	add(&s.ratio, custom("0.00##"))
	add(&s.text, &excelize.Style{Alignment: &excelize.Alignment{Vertical: "top"}})
	return s, err
}

// xcol is one column: header, data style, and a width cap (0: 60).
type xcol struct {
	title string
	style int
	max   int
}

// writeXLSXTable writes a header and rows at A1 and makes them a table:
// bold frozen header, autofilter, column styles and widths from the content.
func writeXLSXTable(f *excelize.File, st xstyles, sheet string, cols []xcol, rows [][]any) error {
	widths := make([]int, len(cols))
	for i, c := range cols {
		cell, _ := excelize.CoordinatesToCellName(i+1, 1)
		if err := f.SetCellStr(sheet, cell, sanitize.Cell(c.title)); err != nil {
			return err
		}
		widths[i] = utf8.RuneCountInString(c.title)
	}
	for ri, row := range rows {
		for ci, v := range row {
			cell, _ := excelize.CoordinatesToCellName(ci+1, ri+2)
			n, err := setXLSXCell(f, sheet, cell, v)
			if err != nil {
				return err
			}
			widths[ci] = max(widths[ci], n)
		}
	}
	last, _ := excelize.CoordinatesToCellName(len(cols), 1)
	if err := f.SetCellStyle(sheet, "A1", last, st.header); err != nil {
		return err
	}
	for i, c := range cols {
		col, _ := excelize.ColumnNumberToName(i + 1)
		if len(rows) > 0 && c.style != 0 {
			if err := f.SetCellStyle(sheet, col+"2", fmt.Sprintf("%s%d", col, len(rows)+1), c.style); err != nil {
				return err
			}
		}
		limit := c.max
		if limit == 0 {
			limit = 60
		}
		if err := f.SetColWidth(sheet, col, col, float64(min(max(widths[i], 6), limit)+2)); err != nil {
			return err
		}
	}
	if err := f.SetPanes(sheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	lastCell, _ := excelize.CoordinatesToCellName(len(cols), len(rows)+1)
	return f.AutoFilter(sheet, "A1:"+lastCell, nil)
}

// setXLSXCell writes one value by type and returns its display width:
// strings through safeText as string cells, numbers as numbers, bools as
// yes/no, nil and nil pointers as blanks.
func setXLSXCell(f *excelize.File, sheet, cell string, v any) (int, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case string:
		s := sanitize.Cell(x)
		return utf8.RuneCountInString(s), f.SetCellStr(sheet, cell, s)
	case bool:
		s := "no"
		if x {
			s = "yes"
		}
		return len(s), f.SetCellStr(sheet, cell, s)
	case int:
		return len(fmt.Sprint(x)) + 1, f.SetCellInt(sheet, cell, int64(x))
	case float64:
		return len(fixed(x, 2)) + 2, f.SetCellFloat(sheet, cell, x, -1, 64)
	case *float64:
		if x == nil {
			return 0, nil
		}
		return setXLSXCell(f, sheet, cell, *x)
	}
	return 0, fmt.Errorf("unsupported cell value %T", v)
}

func planSheet(r *Result, st xstyles) (string, []xcol, [][]any) {
	cols := []xcol{{"Scenario", st.text, 40}, {"Kind", 0, 0}, {"Model", 0, 30}, {"Memory (GB)", st.gb, 0},
		{"Parallelism", 0, 0}, {"GPU model", 0, 0}, {"Provider", 0, 30}, {"Mode", 0, 0}, {"Cards", st.count, 0},
		{"Days", st.hours, 0}, {"Card-hours", st.hours, 0}, {"Budget", st.money, 0}, {"Risk", st.ratio, 0},
		{"Budget at high risk", st.money, 0}, {"Risk high", st.ratio, 0}, {"Meets deadline", 0, 0},
		{"How we got this", 0, 100}, {"Warnings", 0, 100}}
	var rows [][]any
	for _, s := range r.Scenarios {
		row := []any{s.Name, s.Kind, s.Model.Name, s.Memory.TotalGB, s.Parallelism}
		if p := s.Plan; p != nil {
			row = append(row, p.GPUModel, p.Provider, p.Mode, p.GPUs, p.WallHours/24, p.CardHours, p.CostLow, p.Risk,
				p.CostHigh, p.RiskHigh, p.MeetsDeadline, p.How)
		} else {
			row = append(row, nil, nil, "no plan", nil, nil, nil, nil, nil, nil, nil, nil, nil)
		}
		row = append(row, strings.Join(s.Warnings, "; "))
		rows = append(rows, row)
	}
	rows = append(rows, []any{"TOTAL", nil, nil, nil, nil, nil, nil, fmt.Sprintf("%d of %d planned", r.Total.Planned, len(r.Scenarios)),
		nil, nil, nil, r.Total.Cost, nil, r.Total.CostHigh, nil, nil, "sum of the planned scenarios' budgets", strings.Join(r.Warnings, "; ")})
	return "Plan", cols, rows
}

func memorySheet(r *Result, st xstyles) (string, []xcol, [][]any) {
	cols := []xcol{{"Scenario", st.text, 40}, {"Term", 0, 0}, {"GB", st.gb, 0}, {"How", 0, 120}}
	var rows [][]any
	for _, s := range r.Scenarios {
		for _, t := range s.Memory.Terms {
			rows = append(rows, []any{s.Name, t.Name, t.GB, t.How})
		}
	}
	return "Memory", cols, rows
}

func gpusSheet(r *Result, st xstyles) (string, []xcol, [][]any) {
	cols := []xcol{{"Scenario", st.text, 40}, {"GPU model", 0, 0}, {"VRAM (GB)", st.gb, 0}, {"Usable (GB)", st.gb, 0},
		{"TFLOPS", st.gb, 0}, {"Fits", 0, 0}, {"Min cards", st.count, 0}, {"Why", 0, 100}, {"Card-hours", st.hours, 0},
		{"Cost per effective TFLOP-hour", st.ratio, 0}, {"Basis", 0, 60}, {"Best cost", st.money, 0}, {"Best option", 0, 50},
		{"Rank by cost", st.count, 0}, {"Rank by TFLOP-hour", st.count, 0}}
	var rows [][]any
	for _, s := range r.Scenarios {
		for _, g := range s.GPUs {
			rank := func(n int) any {
				if n == 0 {
					return nil
				}
				return n
			}
			ch := any(nil)
			if g.CardHours > 0 {
				ch = g.CardHours
			}
			rows = append(rows, []any{s.Name, g.GPUModel, g.VRAMGB, g.UsableGB, g.TFLOPS, g.Fits, g.MinGPUs, g.Why, ch,
				g.CostPerTFLOPHour, g.TFLOPHourBasis, g.BestCost, g.BestOption, rank(g.RankByCost), rank(g.RankByTFLOPHour)})
		}
	}
	return "GPUs", cols, rows
}

func optionsSheet(r *Result, st xstyles) (string, []xcol, [][]any) {
	cols := []xcol{{"Scenario", st.text, 40}, {"GPU model", 0, 0}, {"Provider", 0, 30}, {"Mode", 0, 0}, {"Cards", st.count, 0},
		{"Wall hours", st.hours, 0}, {"Card-hours paid", st.hours, 0}, {"Days rented", st.hours, 0}, {"Months", st.ratio, 0},
		{"Price", st.money, 0}, {"Per", 0, 0}, {"Buffer", st.ratio, 0}, {"Spot inflation", st.ratio, 0}, {"Before risk", st.money, 0},
		{"Risk", st.ratio, 0}, {"Budget", st.money, 0}, {"Risk high", st.ratio, 0}, {"Budget at high risk", st.money, 0},
		{"Meets deadline", 0, 0}, {"Chosen", 0, 0}, {"How we got this", 0, 120}, {"Price source", 0, 80}}
	var rows [][]any
	for _, s := range r.Scenarios {
		for _, o := range s.Options {
			chosen := s.Plan != nil && *s.Plan == o
			opt := func(v float64) any {
				if v == 0 {
					return nil
				}
				return v
			}
			rows = append(rows, []any{s.Name, o.GPUModel, o.Provider, o.Mode, o.GPUs, o.WallHours, o.CardHours, opt(o.Days),
				opt(o.Months), o.Price, o.PriceUnit, o.Buffer, opt(o.SpotInflation), o.Base, o.Risk, o.CostLow, o.RiskHigh,
				o.CostHigh, o.MeetsDeadline, chosen, o.How, o.PriceSource})
		}
	}
	return "Options", cols, rows
}

func assumptionsSheet(r *Result, st xstyles) (string, []xcol, [][]any) {
	a := r.Assumptions
	cols := []xcol{{"Setting", st.text, 0}, {"Value", 0, 40}, {"Meaning", 0, 100}}
	rows := [][]any{
		{"file", r.File, "the scenario file"},
		{"period", r.Period, "the period planned"},
		{"currency", r.Currency, "every amount of this workbook"},
		{"mfu", a.MFU, "model FLOPs utilization: the share of dense BF16 TFLOPS a job sustains"},
		{"concurrency_buffer", a.ConcurrencyBuffer, "extra card-hours for queueing and reruns, on hourly and spot jobs"},
		{"risk", a.Risk, "risk coefficient: the budget is the estimate × risk"},
		{"risk_high", a.RiskHigh, "the top of the risk range"},
		{"spot_inflation", a.SpotInflation, "runtime (or capacity) lost to spot interruptions and restarts"},
		{"overhead", a.Overhead, "framework and allocator overhead on memory"},
		{"cuda_context_gib", a.CUDAContextGiB, "CUDA context per GPU, GiB"},
		{"usable_vram", a.UsableVRAM, "share of a card's VRAM a plan may fill"},
		{"monthly_min_days", a.MonthlyMinDays, "the shortest monthly rental, days"},
	}
	return "Assumptions", cols, rows
}

func specsSheet(r *Result, st xstyles) (string, []xcol, [][]any) {
	cols := []xcol{{"GPU model", st.text, 0}, {"Dense BF16 TFLOPS", st.gb, 0}, {"VRAM (GB)", st.gb, 0},
		{"Bandwidth (GB/s)", st.gb, 0}, {"NVLink", 0, 0}, {"Source", 0, 60}}
	var rows [][]any
	for _, g := range r.GPUSpecs {
		rows = append(rows, []any{g.Model, g.TFLOPS, g.VRAMGB, g.BandwidthGBs, g.NVLink, g.Source})
	}
	return "GPU specs", cols, rows
}

func pricesSheet(r *Result, st xstyles) (string, []xcol, [][]any) {
	cols := []xcol{{"Provider", st.text, 30}, {"GPU model", 0, 0}, {"Hourly", st.ratio, 0}, {"Monthly", st.ratio, 0},
		{"Spot", st.ratio, 0}, {"Currency", 0, 0}, {"As of", 0, 0}, {"Rate to " + r.Currency, st.ratio, 0}, {"From", 0, 0}}
	var rows [][]any
	for _, p := range r.Prices {
		rows = append(rows, []any{p.Provider, p.GPUModel, p.Hourly, p.Monthly, p.Spot, p.Currency, p.AsOf, p.FX, p.Origin})
	}
	return "Prices", cols, rows
}
