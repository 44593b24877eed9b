// Package workbook holds what finops' Excel workbooks share (the weekly
// report, the quarterly review, the plan): the header style, and data tables
// with typed, sanitised cells, sized columns, a frozen header and an
// autofilter.
package workbook

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/xuri/excelize/v2"
)

// HeaderStyle adds the header rows' style to f: bold on a light fill, a rule
// below, wrapped.
func HeaderStyle(f *excelize.File) (int, error) {
	return f.NewStyle(&excelize.Style{
		Font:      &excelize.Font{Bold: true},
		Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"E7ECF3"}},
		Border:    []excelize.Border{{Type: "bottom", Color: "8A97A8", Style: 1}},
		Alignment: &excelize.Alignment{Vertical: "center", WrapText: true},
	})
}

// Column is one column of a table: its header, the style of its data cells,
// and its width: Width when set, else from the content and the header's
// longest word (the header wraps: a column sized to "Change vs previous
// period" on one line made the By team sheet too wide to print at 8 pt),
// between 8 and Max (60 when 0).
type Column struct {
	Title string
	Style int
	Width float64
	Max   float64
}

// Table writes a header row (style header) and rows from A1 of sheet, then
// styles the data columns, sizes them, freezes the header and sets an
// autofilter over the rows. Cells are written by SetCell; loc is the zone
// instants are shown in.
func Table(f *excelize.File, sheet string, header int, cols []Column, rows [][]any, loc *time.Location) error {
	widths := make([]int, len(cols))
	for i, c := range cols {
		cell, _ := excelize.CoordinatesToCellName(i+1, 1)
		if err := f.SetCellStr(sheet, cell, sanitize.Cell(c.Title)); err != nil {
			return err
		}
		widths[i] = longestWord(c.Title)
	}
	for ri, row := range rows {
		for ci, v := range row {
			cell, _ := excelize.CoordinatesToCellName(ci+1, ri+2)
			n, err := SetCell(f, sheet, cell, v, loc)
			if err != nil {
				return err
			}
			if ci < len(widths) {
				widths[ci] = max(widths[ci], n)
			}
		}
	}
	last := len(rows) + 1
	for i, c := range cols {
		name, _ := excelize.ColumnNumberToName(i + 1)
		if len(rows) > 0 && c.Style != 0 {
			if err := f.SetCellStyle(sheet, name+"2", fmt.Sprintf("%s%d", name, last), c.Style); err != nil {
				return err
			}
		}
		w := c.Width
		if w == 0 {
			limit := c.Max
			if limit == 0 {
				limit = 60
			}
			w = math.Min(math.Max(float64(widths[i])+2, 8), limit)
		}
		if err := f.SetColWidth(sheet, name, name, w); err != nil {
			return err
		}
	}
	lastCol, _ := excelize.ColumnNumberToName(len(cols))
	if err := f.SetCellStyle(sheet, "A1", lastCol+"1", header); err != nil {
		return err
	}
	if err := FreezeHeader(f, sheet); err != nil {
		return err
	}
	return f.AutoFilter(sheet, fmt.Sprintf("A1:%s%d", lastCol, last), nil)
}

// SetCell writes one value by its type and returns its approximate display
// width. Text goes through sanitize.Cell (a formula from a bill stays text);
// a bool is yes/no; a NaN or infinite number, a nil pointer and a zero time
// are blank cells, which Excel shows honestly (it has no NaN); an instant is
// shown in loc (excelize stores the wall clock of the value's location).
func SetCell(f *excelize.File, sheet, cell string, v any, loc *time.Location) (int, error) {
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
		return len(strconv.Itoa(x)) + 1, f.SetCellInt(sheet, cell, int64(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, nil
		}
		return 12, f.SetCellFloat(sheet, cell, x, -1, 64)
	case *float64:
		if x == nil {
			return 0, nil
		}
		return SetCell(f, sheet, cell, *x, loc)
	case time.Time:
		if x.IsZero() {
			return 0, nil
		}
		if loc == nil {
			loc = time.UTC
		}
		return 16, f.SetCellValue(sheet, cell, x.In(loc))
	}
	return 0, fmt.Errorf("unsupported cell value %T", v)
}

// longestWord is the length in characters of title's longest word, the
// narrowest a wrapped header can be without breaking a word.
func longestWord(title string) int {
	n := 0
	for _, w := range strings.Fields(title) {
		n = max(n, utf8.RuneCountInString(w))
	}
	return n
}

// FreezeHeader freezes the first row so the header stays visible on scroll.
func FreezeHeader(f *excelize.File, sheet string) error {
	return f.SetPanes(sheet, &excelize.Panes{
		Freeze:      true,
		YSplit:      1,
		TopLeftCell: "A2",
		ActivePane:  "bottomLeft",
		Selection:   []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}},
	})
}

// PrintSetup makes a sheet print as a reader expects: landscape, one page
// wide (as many pages high as it takes), the header row repeated on every
// page, and the margins PrintColumns counts on (print.go). Without it
// LibreOffice prints a wide sheet's columns on pages of their own (92 pages
// for a week's report). On a streamed sheet it must come before
// NewStreamWriter, which copies the sheet's settings.
func PrintSetup(f *excelize.File, sheet string) error {
	landscape, wide, high := "landscape", 1, 0
	if err := f.SetPageLayout(sheet, &excelize.PageLayoutOptions{Orientation: &landscape, FitToWidth: &wide, FitToHeight: &high}); err != nil {
		return fmt.Errorf("workbook: page layout of %q: %w", sheet, err)
	}
	if err := setMargins(f, sheet); err != nil {
		return fmt.Errorf("workbook: margins of %q: %w", sheet, err)
	}
	fit := true
	if err := f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
		return fmt.Errorf("workbook: sheet properties of %q: %w", sheet, err)
	}
	if err := f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Titles", Scope: sheet,
		RefersTo: quoteSheet(sheet) + "!$1:$1"}); err != nil {
		return fmt.Errorf("workbook: print titles of %q: %w", sheet, err)
	}
	return nil
}

// Paper sizes as SpreadsheetML numbers them (ECMA-376 §18.3.1.64).
const (
	PaperLetter = 1
	PaperA4     = 9
)

// PaperFor is the paper a reader in zone prints on: Letter for the Americas'
// zones (America/*, and the legacy US/* and Canada/* names), A4 elsewhere.
// The config has no locale: its timezone is the one signal of where the
// reader is. Without a size LibreOffice and Excel use their own locale's,
// which printed a Shanghai team's workbook on Letter.
func PaperFor(zone string) int {
	for _, p := range []string{"America/", "US/", "Canada/"} {
		if strings.HasPrefix(zone, p) {
			return PaperLetter
		}
	}
	return PaperA4
}

// SetPaper sets the paper size sheet prints on. Like PrintSetup, on a
// streamed sheet it must come before NewStreamWriter.
func SetPaper(f *excelize.File, sheet string, size int) error {
	if err := f.SetPageLayout(sheet, &excelize.PageLayoutOptions{Size: &size}); err != nil {
		return fmt.Errorf("workbook: paper size of %q: %w", sheet, err)
	}
	return nil
}
