package plan

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/workbook"
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
	builders := []func(*Result, xstyles) (string, []workbook.Column, [][]any){
		planSheet, memorySheet, gpusSheet, optionsSheet, assumptionsSheet, specsSheet, pricesSheet,
	}
	for i, build := range builders {
		var sh struct {
			name string
			cols []workbook.Column
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
		if err := workbook.Table(f, sh.name, st.header, sh.cols, sh.rows, time.UTC); err != nil {
			return fmt.Errorf("plan: xlsx sheet %q: %w", sh.name, err)
		}
		// After the table: its autofilter replaces the fit-to-page property.
		if err := workbook.PrintSetup(f, sh.name); err != nil {
			return fmt.Errorf("plan: xlsx: %w", err)
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
	if err := workbook.Write(f, w); err != nil {
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
	s.header, err = workbook.HeaderStyle(f)
	add(&s.bold, &excelize.Style{Font: &excelize.Font{Bold: true}})
	add(&s.money, custom(amount.ExcelFormat(cur, 2)))
	add(&s.hours, custom("#,##0.0"))
	add(&s.gb, custom("#,##0.00"))
	add(&s.count, &excelize.Style{NumFmt: 3})
	add(&s.ratio, custom("0.00##"))
	add(&s.text, &excelize.Style{Alignment: &excelize.Alignment{Vertical: "top"}})
	return s, err
}

func planSheet(r *Result, st xstyles) (string, []workbook.Column, [][]any) {
	cols := []workbook.Column{{Title: "Scenario", Style: st.text, Max: 40}, {Title: "Kind"}, {Title: "Model", Max: 30}, {Title: "Memory (GB)", Style: st.gb},
		{Title: "Parallelism"}, {Title: "GPU model"}, {Title: "Provider", Max: 30}, {Title: "Mode"}, {Title: "Cards", Style: st.count},
		{Title: "Days", Style: st.hours}, {Title: "Card-hours", Style: st.hours}, {Title: "Budget", Style: st.money}, {Title: "Risk", Style: st.ratio},
		{Title: "Budget at high risk", Style: st.money}, {Title: "Risk high", Style: st.ratio}, {Title: "Meets deadline"},
		{Title: "How we got this", Max: 100}, {Title: "Warnings", Max: 100}}
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

func memorySheet(r *Result, st xstyles) (string, []workbook.Column, [][]any) {
	cols := []workbook.Column{{Title: "Scenario", Style: st.text, Max: 40}, {Title: "Term"}, {Title: "GB", Style: st.gb}, {Title: "How", Max: 120}}
	var rows [][]any
	for _, s := range r.Scenarios {
		for _, t := range s.Memory.Terms {
			rows = append(rows, []any{s.Name, t.Name, t.GB, t.How})
		}
	}
	return "Memory", cols, rows
}

func gpusSheet(r *Result, st xstyles) (string, []workbook.Column, [][]any) {
	cols := []workbook.Column{{Title: "Scenario", Style: st.text, Max: 40}, {Title: "GPU model"}, {Title: "VRAM (GB)", Style: st.gb}, {Title: "Usable (GB)", Style: st.gb},
		{Title: "TFLOPS", Style: st.gb}, {Title: "Fits"}, {Title: "Min cards", Style: st.count}, {Title: "Why", Max: 100}, {Title: "Card-hours", Style: st.hours},
		{Title: "Cost per effective TFLOP-hour", Style: st.ratio}, {Title: "Basis", Max: 60}, {Title: "Best cost", Style: st.money}, {Title: "Best option", Max: 50},
		{Title: "Rank by cost", Style: st.count}, {Title: "Rank by TFLOP-hour", Style: st.count}}
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

func optionsSheet(r *Result, st xstyles) (string, []workbook.Column, [][]any) {
	cols := []workbook.Column{{Title: "Scenario", Style: st.text, Max: 40}, {Title: "GPU model"}, {Title: "Provider", Max: 30}, {Title: "Mode"}, {Title: "Cards", Style: st.count},
		{Title: "Wall hours", Style: st.hours}, {Title: "Card-hours paid", Style: st.hours}, {Title: "Days rented", Style: st.hours}, {Title: "Months", Style: st.ratio},
		{Title: "Price", Style: st.money}, {Title: "Per"}, {Title: "Buffer", Style: st.ratio}, {Title: "Spot inflation", Style: st.ratio}, {Title: "Before risk", Style: st.money},
		{Title: "Risk", Style: st.ratio}, {Title: "Budget", Style: st.money}, {Title: "Risk high", Style: st.ratio}, {Title: "Budget at high risk", Style: st.money},
		{Title: "Meets deadline"}, {Title: "Chosen"}, {Title: "How we got this", Max: 120}, {Title: "Price source", Max: 80}}
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

func assumptionsSheet(r *Result, st xstyles) (string, []workbook.Column, [][]any) {
	a := r.Assumptions
	cols := []workbook.Column{{Title: "Setting", Style: st.text}, {Title: "Value", Max: 40}, {Title: "Meaning", Max: 100}}
	rows := [][]any{
		{"file", r.File, "the scenario file"},
		{"period", r.Period, "the period planned"},
		{"currency", r.Currency, "every amount of this workbook"},
		{"mfu", a.MFU, "model FLOPs utilization: the share of dense BF16 TFLOPS a job sustains"},
		{"concurrency_buffer", a.ConcurrencyBuffer, "extra card-hours for queueing and reruns, on hourly and spot jobs"},
		{"risk", a.Risk, "risk coefficient: the budget is the estimate × risk"},
		{"risk_high", a.RiskHigh, "the top of the risk range"},
		{"spot_inflation", a.SpotInflation, "runtime (or capacity) lost to spot interruptions and restarts"},
		{"overhead", a.Overhead, "framework and allocator overhead on memory, inference and data jobs"},
		{"training_overhead", a.TrainingOverhead, "framework and allocator overhead on memory, training jobs"},
		{"cuda_context_gib", a.CUDAContextGiB, "CUDA context per GPU, GiB"},
		{"usable_vram", a.UsableVRAM, "share of a card's VRAM a plan may fill"},
		{"monthly_min_days", a.MonthlyMinDays, "the shortest monthly rental, days"},
	}
	return "Assumptions", cols, rows
}

func specsSheet(r *Result, st xstyles) (string, []workbook.Column, [][]any) {
	cols := []workbook.Column{{Title: "GPU model", Style: st.text}, {Title: "Dense BF16 TFLOPS", Style: st.gb}, {Title: "VRAM (GB)", Style: st.gb},
		{Title: "Bandwidth (GB/s)", Style: st.gb}, {Title: "NVLink"}, {Title: "Source", Max: 60}}
	var rows [][]any
	for _, g := range r.GPUSpecs {
		rows = append(rows, []any{g.Model, g.TFLOPS, g.VRAMGB, g.BandwidthGBs, g.NVLink, g.Source})
	}
	return "GPU specs", cols, rows
}

func pricesSheet(r *Result, st xstyles) (string, []workbook.Column, [][]any) {
	cols := []workbook.Column{{Title: "Provider", Style: st.text, Max: 30}, {Title: "GPU model"}, {Title: "Hourly", Style: st.ratio}, {Title: "Monthly", Style: st.ratio},
		{Title: "Spot", Style: st.ratio}, {Title: "Currency"}, {Title: "As of"}, {Title: "Rate to " + r.Currency, Style: st.ratio}, {Title: "From"}}
	var rows [][]any
	for _, p := range r.Prices {
		rows = append(rows, []any{p.Provider, p.GPUModel, p.Hourly, p.Monthly, p.Spot, p.Currency, p.AsOf, p.FX, p.Origin})
	}
	return "Prices", cols, rows
}
