package report

import (
	"fmt"
	"io"
	"math"
	"time"
	"unicode/utf8"

	"github.com/finops-oss/finops/amount"
	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/sanitize"
	"github.com/xuri/excelize/v2"
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
// Idle waste, Recommendations, Pools); and two large sheets written with
// excelize's StreamWriter, so their size does not grow memory: Utilization
// (hourly), from r.HourlyUtil, and Billing lines, from meta.Lines. Every data
// string is written through safeText; numbers are numeric cells, instants are
// Excel dates in the report zone.
func WriteXLSX(w io.Writer, r *analysis.Result, meta Meta) error {
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
	b := &book{f: f, st: st, r: r, loc: loc, meta: meta}

	if err := f.SetSheetName("Sheet1", sheetSummary); err != nil {
		return fmt.Errorf("report: xlsx: %w", err)
	}
	steps := []struct {
		sheet string
		fill  func() error
	}{
		{sheetSummary, b.summary},
		{sheetFindings, b.findings},
		{sheetTeams, b.teams},
		{sheetTasks, b.tasks},
		{sheetResources, b.resources},
		{sheetIdle, b.idle},
		{sheetRecs, b.recommendations},
		{sheetPools, b.pools},
		{sheetUtil, b.utilization},   // streamed
		{sheetLines, b.billingLines}, // streamed
	}
	for _, s := range steps {
		if s.sheet != sheetSummary {
			if _, err := f.NewSheet(s.sheet); err != nil {
				return fmt.Errorf("report: xlsx sheet %q: %w", s.sheet, err)
			}
		}
		if err := s.fill(); err != nil {
			return fmt.Errorf("report: xlsx sheet %q: %w", s.sheet, err)
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
	return writeWorkbook(f, w, props, meta)
}

// writeWorkbook stamps the document properties (dated by meta, never by the
// clock) and writes the workbook out.
func writeWorkbook(f *excelize.File, w io.Writer, props *excelize.DocProperties, meta Meta) error {
	if !meta.GeneratedAt.IsZero() {
		props.Created = meta.GeneratedAt.UTC().Format(time.RFC3339)
		props.Modified = props.Created
	}
	if err := f.SetDocProps(props); err != nil {
		return fmt.Errorf("report: xlsx properties: %w", err)
	}
	if err := f.Write(w); err != nil {
		return fmt.Errorf("report: write xlsx: %w", err)
	}
	return nil
}

// book carries what every sheet writer needs.
type book struct {
	f    *excelize.File
	st   styles
	r    *analysis.Result
	loc  *time.Location
	meta Meta
}

// styles are the workbook's cell style ids.
type styles struct {
	header, bold          int
	money, unitMoney      int
	percent, hours, count int
	date, text            int
	amount                int // a cost in the line's own currency (raw billing lines)
	day                   int // a date without time
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
	add(&s.header, &excelize.Style{
		Font:      &excelize.Font{Bold: true},
		Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"E7ECF3"}},
		Border:    []excelize.Border{{Type: "bottom", Color: "8A97A8", Style: 1}},
		Alignment: &excelize.Alignment{Vertical: "center", WrapText: true},
	})
	add(&s.bold, &excelize.Style{Font: &excelize.Font{Bold: true}})
	add(&s.money, custom(amount.ExcelFormat(currency, 2)))
	add(&s.unitMoney, custom(amount.ExcelFormat(currency, 4)))
	add(&s.percent, custom("0.0%"))
	add(&s.hours, custom("#,##0.0"))
	add(&s.count, &excelize.Style{NumFmt: 3}) // #,##0
	add(&s.date, custom("yyyy-mm-dd hh:mm"))
	add(&s.text, &excelize.Style{Alignment: &excelize.Alignment{Vertical: "top"}})
	add(&s.amount, custom("#,##0.00##"))
	add(&s.day, custom("yyyy-mm-dd"))
	return s, err
}

// column describes one table column: its header, the style of its data cells
// and its width (0: computed from the content).
type column struct {
	title string
	style int
	width float64
}

// table writes a header row and data rows at the top left of sheet, then makes
// it a proper table: bold frozen header, autofilter, column styles and widths.
// Cells are written by type: string → safeText string cell, numbers → numeric
// cells, time.Time → Excel date in the report zone, nil → blank.
func (b *book) table(sheet string, cols []column, rows [][]any) error {
	f := b.f
	for i, c := range cols {
		cell, _ := excelize.CoordinatesToCellName(i+1, 1)
		if err := f.SetCellStr(sheet, cell, sanitize.Cell(c.title)); err != nil {
			return err
		}
	}
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = utf8.RuneCountInString(c.title)
	}
	for ri, row := range rows {
		for ci, v := range row {
			cell, _ := excelize.CoordinatesToCellName(ci+1, ri+2)
			n, err := b.setCell(sheet, cell, v)
			if err != nil {
				return err
			}
			if ci < len(widths) && n > widths[ci] {
				widths[ci] = n
			}
		}
	}
	last := len(rows) + 1
	for i, c := range cols {
		name, _ := excelize.ColumnNumberToName(i + 1)
		if len(rows) > 0 && c.style != 0 {
			if err := f.SetCellStyle(sheet, name+"2", fmt.Sprintf("%s%d", name, last), c.style); err != nil {
				return err
			}
		}
		w := c.width
		if w == 0 {
			w = math.Min(math.Max(float64(widths[i])+2, 8), 60)
		}
		if err := f.SetColWidth(sheet, name, name, w); err != nil {
			return err
		}
	}
	lastCol, _ := excelize.ColumnNumberToName(len(cols))
	if err := f.SetCellStyle(sheet, "A1", lastCol+"1", b.st.header); err != nil {
		return err
	}
	if err := freezeHeader(f, sheet); err != nil {
		return err
	}
	return f.AutoFilter(sheet, fmt.Sprintf("A1:%s%d", lastCol, last), nil)
}

// setCell writes one value and returns its approximate display width.
func (b *book) setCell(sheet, cell string, v any) (int, error) {
	switch v := v.(type) {
	case nil:
		return 0, nil
	case string:
		s := sanitize.Cell(v)
		return utf8.RuneCountInString(s), b.f.SetCellStr(sheet, cell, s)
	case time.Time:
		if v.IsZero() {
			return 0, nil
		}
		// excelize stores the wall-clock time of the value's location, so
		// converting to the report zone makes the cell show local time.
		return 16, b.f.SetCellValue(sheet, cell, v.In(b.loc))
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, nil // Excel has no NaN; a blank cell is honest
		}
		return 12, b.f.SetCellFloat(sheet, cell, v, -1, 64)
	case int:
		return 6, b.f.SetCellInt(sheet, cell, int64(v))
	default:
		return 0, fmt.Errorf("unsupported cell type %T", v)
	}
}

// freezeHeader freezes the first row so the header stays visible on scroll.
func freezeHeader(f *excelize.File, sheet string) error {
	return f.SetPanes(sheet, &excelize.Panes{
		Freeze:      true,
		YSplit:      1,
		TopLeftCell: "A2",
		ActivePane:  "bottomLeft",
		Selection:   []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}},
	})
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
