package workbook

import (
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"
)

// Printing (README §Printing): every sheet a person would print fits one
// landscape page wide, on A4 or Letter, with its text at 8 pt or more; the
// sheets too long to print (hourly utilization, raw billing lines) print
// nothing. The numbers below are what that rests on.
const (
	// MarginSide and MarginEnd are the page margins in inches: narrow, so
	// the width left for the table is known rather than each program's
	// default (LibreOffice's 0.79 in, Excel's 0.7 in).
	MarginSide = 0.4
	MarginEnd  = 0.6 // top and bottom; the header and footer sit at 0.3 in

	// PrintableWidthPt is the narrower of the two papers' widths inside the
	// margins, landscape, in points: Letter, 11 in − 2 × 0.4 in (A4's is
	// 297 mm − 0.8 in = 784 pt). A sheet fitted to it fits A4 too, at a
	// larger scale.
	PrintableWidthPt = (11 - 2*MarginSide) * 72

	// PointsPerWidthUnit is how wide LibreOffice draws one unit of a
	// column's width (the spreadsheet's "characters"), at 100 %: 7 pt,
	// measured from its PDF of a sheet of known widths (LibreOffice 7.4).
	// Excel draws one at about 5.3 pt (7 px + padding), so a sheet that fits
	// in LibreOffice fits in Excel at a larger scale.
	PointsPerWidthUnit = 7.0

	// BodyFontPt is the cell font (excelize's default, Calibri 11) and
	// MinPrintedFontPt the smallest size a sheet may print its text at.
	BodyFontPt       = 11.0
	MinPrintedFontPt = 8.0
)

// MaxPrintWidth is the most width units a print area may hold: fitted one
// page wide, the page's scale is PrintableWidthPt ÷ (its width ×
// PointsPerWidthUnit), which must keep BodyFontPt at MinPrintedFontPt or
// more. Programs round the scale down to a whole percent, hence the floor:
// 734.4 pt × 11 ÷ 8 ÷ 7 = 144.3 units before rounding, 140 after
// (LibreOffice picks 74 % for 140 units on Letter: 11 × 0.74 = 8.1 pt).
const MaxPrintWidth = 140.0

// PrintScale is the scale a print area width units wide prints at when
// fitted one page wide on Letter landscape (on A4 it is larger): 1 when it
// fits, else the page width over its width, rounded down to a whole percent
// as LibreOffice and Excel do.
func PrintScale(width float64) float64 {
	need := width * PointsPerWidthUnit
	if need <= PrintableWidthPt {
		return 1
	}
	return float64(int(100*PrintableWidthPt/need)) / 100
}

// PrintColumns sets sheet's print area to rows 1..lastRow of its leading
// columns: at most cols of them (the columns that matter, which each sheet
// puts first), and no more than fit in MaxPrintWidth by their widths on the
// sheet, so the printed text stays at MinPrintedFontPt or more. The first
// column always prints. It returns how many columns the area holds.
func PrintColumns(f *excelize.File, sheet string, cols, lastRow int) (int, error) {
	n, total := 0, 0.0
	for c := 1; c <= max(cols, 1); c++ {
		name, _ := excelize.ColumnNumberToName(c)
		w, err := f.GetColWidth(sheet, name)
		if err != nil {
			return 0, fmt.Errorf("workbook: width of %q column %s: %w", sheet, name, err)
		}
		if n > 0 && total+w > MaxPrintWidth {
			break
		}
		n, total = c, total+w
	}
	last, _ := excelize.ColumnNumberToName(n)
	if err := f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Area", Scope: sheet,
		RefersTo: fmt.Sprintf("%s!$A$1:$%s$%d", quoteSheet(sheet), last, max(lastRow, 1))}); err != nil {
		return 0, fmt.Errorf("workbook: print area of %q: %w", sheet, err)
	}
	return n, nil
}

// NoPrint leaves sheet out of printing: its print area is one cell that is
// always empty (column col of row 1, right of the table), which LibreOffice
// and Excel skip when they print the workbook ("suppress empty pages"), and
// it has no repeated title row. Hiding the sheet would also keep it from
// printing, but would hide it from the reader on screen too.
func NoPrint(f *excelize.File, sheet string, col int) error {
	name, err := excelize.ColumnNumberToName(col)
	if err != nil {
		return fmt.Errorf("workbook: no-print cell of %q: %w", sheet, err)
	}
	_ = f.DeleteDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Titles", Scope: sheet}) // absent is fine
	if err := f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Area", Scope: sheet,
		RefersTo: fmt.Sprintf("%s!$%s$1:$%s$1", quoteSheet(sheet), name, name)}); err != nil {
		return fmt.Errorf("workbook: print area of %q: %w", sheet, err)
	}
	return nil
}

// setMargins sets the page margins PrintableWidthPt assumes.
func setMargins(f *excelize.File, sheet string) error {
	side, end, hf := MarginSide, MarginEnd, 0.3
	return f.SetPageMargins(sheet, &excelize.PageLayoutMarginsOptions{
		Left: &side, Right: &side, Top: &end, Bottom: &end, Header: &hf, Footer: &hf})
}

// quoteSheet is sheet as a formula names it: in single quotes, a quote
// doubled.
func quoteSheet(sheet string) string {
	return "'" + strings.ReplaceAll(sheet, "'", "''") + "'"
}
