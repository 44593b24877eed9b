package report

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/workbook"
)

// Worksheet names, in tab order. They are fixed, valid names (31 UTF-16 units
// at most, none of :\/?*[]); TestSheetNamesAreSanitised checks each is its
// own sheetName. A sheet named after data must go through sheetName.
const (
	sheetSummary   = "Summary"
	sheetFindings  = "Findings"
	sheetTeams     = "By team"
	sheetTasks     = "By task"
	sheetResources = "By resource"
	sheetIdle      = "Idle waste"
	sheetRecs      = "Recommendations"
	sheetPools     = "Pools"
	sheetUtil      = "Utilization (hourly)"
	sheetLines     = "Billing lines"
)

// sheetOrder is the workbook's tab order.
var sheetOrder = []string{sheetSummary, sheetFindings, sheetTeams, sheetTasks, sheetResources, sheetIdle,
	sheetRecs, sheetPools, sheetUtil, sheetLines}

// WriteXLSX writes the workbook: a Summary sheet with the KPIs and native
// Excel charts; one sheet per table (Findings, By team, By task, By resource,
// Idle waste, Recommendations, Pools, and Watch when r.Watch is set); and two
// large sheets written with excelize's StreamWriter, so their size does not
// grow memory: Utilization (hourly), from r.HourlyUtil, and Billing lines,
// from meta.Lines. Every data string is written through safeText; numbers are
// numeric cells, instants are Excel dates in the report zone.
func WriteXLSX(w io.Writer, r *analysis.Result, meta Meta) error {
	return writeXLSX(context.Background(), w, r, meta)
}

// writeXLSX is WriteXLSX stopping with ctx's error once ctx is done: between
// sheets, and between rows of the streamed ones.
func writeXLSX(ctx context.Context, w io.Writer, r *analysis.Result, meta Meta) error {
	if r == nil {
		return fmt.Errorf("report: nil result")
	}
	loc, err := reportZone(r)
	if err != nil {
		return err
	}
	f := excelize.NewFile()
	defer f.Close()

	st, err := newStyles(f, r.Currency)
	if err != nil {
		return fmt.Errorf("report: xlsx styles: %w", err)
	}
	b := &book{ctx: ctx, f: f, st: st, r: r, loc: loc, meta: meta, view: audienceOf(meta.View, r, meta.Team, nil)}
	defer b.closeRows()

	if err := f.SetSheetName("Sheet1", sheetSummary); err != nil {
		return fmt.Errorf("report: xlsx: %w", err)
	}
	type step struct {
		sheet    string
		fill     func() error
		streamed bool
	}
	steps := []step{
		{sheetSummary, b.summary, false},
		{sheetFindings, b.findings, false},
		{sheetTeams, b.teams, false},
		{sheetTasks, b.tasks, false},
		{sheetResources, b.resources, false},
		{sheetIdle, b.idle, false},
		{sheetRecs, b.recommendations, false},
		{sheetPools, b.pools, false},
		{sheetUtil, b.utilization, true},
		{sheetLines, b.billingLines, true},
	}
	if r.Watch != nil {
		steps = slices.Insert(steps, slices.IndexFunc(steps, func(s step) bool { return s.sheet == sheetUtil }),
			step{sheetWatch, b.watch, false})
	}
	if len(r.Shards) > 0 {
		steps = slices.Insert(steps, 1, step{sheetShards, b.shards, false})
	}
	// Chargeback, Movers, then Allocation, after By team (xlsx_chargeback.go,
	// xlsx_movers.go): the audience's, as its email and page show them.
	at := slices.IndexFunc(steps, func(s step) bool { return s.sheet == sheetTeams }) + 1
	if b.view.Chargeback != nil {
		steps = slices.Insert(steps, at, step{sheetChargeback, b.chargeback, false})
		at++
	}
	if b.view.Movers != nil {
		steps = slices.Insert(steps, at, step{sheetMovers, b.movers, false})
		at++
	}
	if len(r.Allocation) > 0 {
		steps = slices.Insert(steps, at, step{sheetAllocation, b.allocation, false})
	}
	if r.Trend != nil {
		steps = slices.Insert(steps, slices.IndexFunc(steps, func(s step) bool { return s.sheet == sheetUtil }),
			step{sheetTrend, b.trendSheet, false})
	}
	for i, s := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if meta.Sheet != nil && i > 0 {
			meta.Sheet(steps[i-1].sheet, i, len(steps))
		}
		if s.sheet != sheetSummary {
			if _, err := f.NewSheet(s.sheet); err != nil {
				return fmt.Errorf("report: xlsx sheet %q: %w", s.sheet, err)
			}
		}
		// A streamed sheet takes its page setup when its stream writer is
		// made; any other after its table, since excelize's AutoFilter
		// replaces the sheet properties that hold fit-to-page.
		if s.streamed {
			if err := b.printSetup(s.sheet); err != nil {
				return fmt.Errorf("report: xlsx: %w", err)
			}
		}
		if err := s.fill(); err != nil {
			return fmt.Errorf("report: xlsx sheet %q: %w", s.sheet, err)
		}
		if !s.streamed {
			if err := b.printSetup(s.sheet); err != nil {
				return fmt.Errorf("report: xlsx: %w", err)
			}
		}
	}
	f.SetActiveSheet(0)

	title := "finops " + sanitize.Control(r.Period.Label)
	if meta.Team != "" {
		title += " · team " + sanitize.Control(meta.Team)
	}
	props := &excelize.DocProperties{
		Title:       title,
		Subject:     "GPU cost and utilization report",
		Creator:     "finops",
		Keywords:    "finops, GPU, cost",
		Description: "GPU cost, idle waste and rent-mode recommendations for " + sanitize.Control(periodText(r.Period, loc)),
		Category:    "report",
		Version:     sanitize.Control(meta.Version),
	}
	return writeWorkbook(f, w, props, meta, b.rows...)
}

// closeRows removes what the streamed sheets' rows spilled to disk.
func (b *book) closeRows() {
	for _, r := range b.rows {
		r.Close()
	}
}

// writeWorkbook stamps the document properties (dated by meta, never by the
// clock) and writes the workbook out, with the streamed sheets' rows.
func writeWorkbook(f *excelize.File, w io.Writer, props *excelize.DocProperties, meta Meta, rows ...*workbook.Rows) error {
	if !meta.GeneratedAt.IsZero() {
		props.Created = meta.GeneratedAt.UTC().Format(time.RFC3339)
		props.Modified = props.Created
	}
	if err := f.SetDocProps(props); err != nil {
		return fmt.Errorf("report: xlsx properties: %w", err)
	}
	if err := workbook.Write(f, w, rows...); err != nil { // deflated on every core, straight to w
		return fmt.Errorf("report: write xlsx: %w", err)
	}
	return nil
}

// book carries what every sheet writer needs.
type book struct {
	ctx  context.Context // of the one WriteXLSX call the book lives for
	f    *excelize.File
	st   styles
	r    *analysis.Result
	loc  *time.Location
	meta Meta
	view *Audience // the chargeback and movers the audience's other outputs show
	// rows are the streamed sheets' data rows, for writeWorkbook.
	rows []*workbook.Rows
	// moneyIn holds the style of amounts in each currency the raw billing
	// lines are in, made on first use.
	moneyIn map[string]int
}

// currencyStyle is the style of an amount in currency code (a line's own),
// with its symbol or code; "" is a bare number.
func (b *book) currencyStyle(code string) (int, error) {
	code = amount.Code(code)
	if code == "" {
		return b.st.amount, nil
	}
	if id, ok := b.moneyIn[code]; ok {
		return id, nil
	}
	format := amount.ExcelFormat(code, 2)
	id, err := b.f.NewStyle(&excelize.Style{CustomNumFmt: &format})
	if err != nil {
		return 0, err
	}
	if b.moneyIn == nil {
		b.moneyIn = map[string]int{}
	}
	b.moneyIn[code] = id
	return id, nil
}

// styles are the workbook's cell style ids.
type styles struct {
	header, bold          int
	money, unitMoney      int
	percent, hours, count int
	date, text            int
	wrapped               int // long text, wrapped in its column rather than spilling past the print width
	amount                int // a cost in the line's own currency (raw billing lines)
	day                   int // a date without time
	rate                  int // an exchange rate, to its last configured digit
}

func newStyles(f *excelize.File, currency string) (styles, error) {
	var s styles
	var err error
	add := func(dst *int, st *excelize.Style) {
		if err != nil {
			return
		}
		*dst, err = f.NewStyle(st)
	}
	custom := func(format string) *excelize.Style {
		return &excelize.Style{CustomNumFmt: &format}
	}
	s.header, err = workbook.HeaderStyle(f)
	add(&s.bold, &excelize.Style{Font: &excelize.Font{Bold: true}})
	add(&s.money, custom(amount.ExcelFormat(currency, 2)))
	add(&s.unitMoney, custom(amount.ExcelFormat(currency, 4)))
	add(&s.percent, custom("0.0%"))
	add(&s.hours, custom("#,##0.0"))
	add(&s.count, &excelize.Style{NumFmt: 3}) // #,##0
	add(&s.date, custom("yyyy-mm-dd hh:mm"))
	add(&s.text, &excelize.Style{Alignment: &excelize.Alignment{Vertical: "top"}})
	add(&s.wrapped, &excelize.Style{Alignment: &excelize.Alignment{Vertical: "top", WrapText: true}})
	add(&s.amount, custom("#,##0.00##"))
	add(&s.day, custom("yyyy-mm-dd"))
	add(&s.rate, custom("0.0#########"))
	return s, err
}

// table writes a data table on its own sheet (workbook.Table) that prints
// as many of its columns as fit one page wide at 8 pt (printTable).
func (b *book) table(sheet string, cols []workbook.Column, rows [][]any) error {
	return b.printTable(sheet, cols, rows, len(cols))
}

// printTable writes a data table (workbook.Table) whose print area is its
// first keys columns, or as many of them as fit (workbook.PrintColumns).
func (b *book) printTable(sheet string, cols []workbook.Column, rows [][]any, keys int) error {
	if err := workbook.Table(b.f, sheet, b.st.header, cols, rows, b.loc); err != nil {
		return err
	}
	_, err := workbook.PrintColumns(b.f, sheet, keys, len(rows)+1)
	return err
}

// printSetup sets sheet's page setup (workbook.PrintSetup) on the paper of
// the report's zone (workbook.PaperFor).
func (b *book) printSetup(sheet string) error {
	if err := workbook.PrintSetup(b.f, sheet); err != nil {
		return err
	}
	return workbook.SetPaper(b.f, sheet, workbook.PaperFor(b.loc.String()))
}

// setCell writes one value (workbook.SetCell) and returns its display width.
func (b *book) setCell(sheet, cell string, v any) (int, error) {
	return workbook.SetCell(b.f, sheet, cell, v, b.loc)
}

// optional returns nil (a blank cell) for a nil pointer.
func optional(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// blankIfZero returns nil for 0, for figures where 0 means "unknown" or "not
// applicable" (a unit cost without units, a breakeven without prices).
func blankIfZero(v float64) any {
	if v == 0 {
		return nil
	}
	return v
}
