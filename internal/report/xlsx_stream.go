package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/tagjson"
	"github.com/finops-oss/finops/internal/workbook"
)

// The two large sheets, written with excelize's StreamWriter (header,
// settings) and workbook.Rows (the data rows, deflated into a temporary
// file as they come and spliced in by workbook.Write), so memory stays flat
// however many rows there are. Rules of the stream API that shape this
// file: column widths and panes are set before the first row; rows are
// written in order; no normal-mode cell call touches these sheets; Flush is
// called exactly once per sheet; charts never go on them (the Summary
// charts read from normal-mode helper tables).

// streamColumn is one column of a streamed sheet; widths are fixed since the
// content is not known in advance.
type streamColumn struct {
	title string
	width float64
}

// streamSheet writes the header of a streamed sheet and returns a function
// that appends one row and a function that finishes the sheet (autofilter
// over the rows written, then the single Flush). A sheet holds at most
// Excel's 1,048,576 rows (Meta.sheetRows in tests): past them the rows go on in
// continuation sheets "<sheet> (2)", "(3)" …, each with the header, placed
// right after it, so no row is dropped (a week of 10,000 GPUs is 1.68 million
// GPU-hours; a month of a large fleet's bill is millions of lines).
func (b *book) streamSheet(sheet string, cols []streamColumn) (add func([]any) error, done func() error, err error) {
	limit := b.meta.sheetRows
	if limit == 0 {
		limit = excelize.TotalRows
	}
	name, part, row := sheet, 1, 1
	sw, rows, err := b.openStream(name, cols)
	if err != nil {
		return nil, nil, err
	}
	done = func() error {
		// The autofilter is worksheet metadata that Flush writes after the
		// rows, so it can cover exactly the rows written.
		last, _ := excelize.ColumnNumberToName(len(cols))
		if err := b.f.AutoFilter(name, fmt.Sprintf("A1:%s%d", last, max(row, 2)), nil); err != nil {
			return err
		}
		// The data rows are in rows (workbook.Rows: the same XML as SetRow,
		// without its per-cell garbage); the sheet holds their placeholder,
		// which workbook.Write replaces with them.
		if rows.Len() > 0 {
			if err := sw.SetRow("A2", rows.Placeholder()); err != nil {
				return err
			}
		}
		return sw.Flush()
	}
	add = func(values []any) error {
		if err := b.ctx.Err(); err != nil {
			return err
		}
		if row == limit {
			if err := done(); err != nil {
				return err
			}
			part++
			name, row = fmt.Sprintf("%s (%d)", sheet, part), 1
			if _, err := b.f.NewSheet(name); err != nil {
				return err
			}
			if err := b.printSetup(name); err != nil {
				return err
			}
			if sw, rows, err = b.openStream(name, cols); err != nil {
				return err
			}
		}
		row++
		return rows.SetRow(row, values)
	}
	return add, done, nil
}

// openStream starts a streamed sheet: column widths, the frozen header row;
// its data rows go to the workbook.Rows it returns, which the book keeps
// for writeWorkbook.
func (b *book) openStream(sheet string, cols []streamColumn) (*excelize.StreamWriter, *workbook.Rows, error) {
	sw, err := b.openStreamWriter(sheet, cols)
	if err != nil {
		return nil, nil, err
	}
	rows, err := workbook.NewRows(b.f)
	if err != nil {
		return nil, nil, err
	}
	b.rows = append(b.rows, rows)
	return sw, rows, nil
}

// openStreamWriter makes sheet's StreamWriter with its header row.
func (b *book) openStreamWriter(sheet string, cols []streamColumn) (*excelize.StreamWriter, error) {
	sw, err := b.f.NewStreamWriter(sheet)
	if err != nil {
		return nil, err
	}
	for i, c := range cols {
		if err := sw.SetColWidth(i+1, i+1, c.width); err != nil {
			return nil, err
		}
	}
	// Hourly rows and raw billing lines are for filtering and pivoting on
	// screen: printed, they were 36 of a week's 49 pages.
	if err := workbook.NoPrint(b.f, sheet, len(cols)+2); err != nil {
		return nil, err
	}
	if err := sw.SetPanes(&excelize.Panes{
		Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft",
		Selection: []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}},
	}); err != nil {
		return nil, err
	}
	header := make([]any, len(cols))
	for i, c := range cols {
		header[i] = excelize.Cell{StyleID: b.st.header, Value: c.title}
	}
	if err := sw.SetRow("A1", header, excelize.RowOpts{Height: 30}); err != nil {
		return nil, err
	}
	return sw, nil
}

// utilization writes one row per GPU and hour: the heatmap's data, for
// pivoting. An hour without telemetry has a blank utilization and the band
// "unmonitored", never 0 % (which would read as idle).
func (b *book) utilization() error {
	st := b.st
	add, done, err := b.streamSheet(sheetUtil, []streamColumn{
		{"Resource ID", 28}, {"GPU", 40}, {"Hour (" + b.loc.String() + ")", 18}, {"Utilization", 12}, {"Band", 12},
	})
	if err != nil {
		return err
	}
	r := newStreamRow(5)
	for i := range b.r.HourlyUtil {
		g := &b.r.HourlyUtil[i]
		r.str(0, st.text, g.ResourceID)
		r.str(1, st.text, g.GPU)
		for h, u := range g.Util {
			r.time(2, st.date, g.Hour(h).In(b.loc))
			if !math.IsNaN(u) && !math.IsInf(u, 0) {
				r.float(3, st.percent, u/100)
				r.str(4, st.text, utilBand(u))
			} else {
				r.blank(3)
				r.str(4, st.text, "unmonitored")
			}
			if err := add(r.values()); err != nil {
				return err
			}
		}
	}
	return done()
}

// lineColumns are the columns of the raw Billing lines sheet: the normalized
// record as ingested (costs in the line's own currency, formatted in it), plus
// its share of the report window and that share's cost, in the line's currency
// and in the reporting currency (config fx), so the sheet reconciles with the
// totals even when the lines are in several currencies.
var lineColumns = []streamColumn{
	{"Provider", 12}, {"Billing account", 16}, {"Sub-account", 16},
	{"Charge start", 17}, {"Charge end", 17},
	{"Charge category", 12}, {"Charge class", 10}, {"Charge frequency", 12},
	{"Pricing category", 12}, {"Pricing mode", 10}, {"Commitment status", 10}, {"Commitment ID", 16},
	{"Resource ID", 26}, {"Resource name", 22}, {"Resource type", 14}, {"Service", 14}, {"SKU", 14},
	{"Instance type", 14}, {"Region", 12}, {"GPU model", 12}, {"GPUs", 6},
	{"Billed cost", 12}, {"Effective cost", 12}, {"List cost", 12}, {"Currency", 8},
	{"Usage quantity", 12}, {"Usage unit", 10},
	{"Share in period", 10}, {"Cost in period", 13}, {"Cost in period", 14},
	{"Tag: team", 14}, {"Tags", 40}, {"Source line", 8},
}

// billingLines streams meta.Lines into the Billing lines sheet.
func (b *book) billingLines() error {
	st := b.st
	cols := make([]streamColumn, len(lineColumns))
	copy(cols, lineColumns)
	zone := " (" + b.loc.String() + ")"
	cols[3].title += zone
	cols[4].title += zone
	cols[28].title += " (line currency)"
	cols[29].title += " (" + amount.Code(b.r.Currency) + ")"
	add, done, err := b.streamSheet(sheetLines, cols)
	if err != nil {
		return err
	}
	if b.meta.Lines != nil {
		ps, pe := b.r.Period.Start, b.r.Period.End
		r := newStreamRow(len(cols))
		num := func(i int, d *decimal.Decimal, style int) {
			if d == nil {
				r.blank(i)
				return
			}
			r.float(i, style, d.InexactFloat64())
		}
		instant := func(i int, t time.Time) {
			if t.IsZero() {
				r.blank(i)
				return
			}
			r.time(i, st.date, t.In(b.loc))
		}
		// The Tags column's JSON is made once per tag set.
		var tags tagjson.Cache                                 // the Tags column: the store shares one map among lines of the same tags
		err = b.meta.Lines(func(l *finops.BillingLine) error { // add stops on b.ctx
			r.text(0, st.text, l.Provider)
			r.text(1, st.text, l.BillingAccount)
			r.text(2, st.text, l.SubAccount)
			instant(3, l.ChargeStart)
			instant(4, l.ChargeEnd)
			for i, s := range [...]string{l.ChargeCategory, l.ChargeClass, l.ChargeFrequency,
				l.PricingCategory, l.PricingMode, l.CommitmentStatus, l.CommitmentID,
				l.ResourceID, l.ResourceName, l.ResourceType, l.Service, l.SKU,
				l.InstanceType, l.Region, l.GPUModel} {
				r.text(5+i, st.text, s)
			}
			r.blank(20)
			if l.GPUCount != 0 {
				r.int(20, st.count, l.GPUCount)
			}
			own, err := b.currencyStyle(l.Currency)
			if err != nil {
				return err
			}
			num(21, l.BilledCost, own)
			num(22, l.EffectiveCost, own)
			num(23, l.ListCost, own)
			r.text(24, st.text, l.Currency)
			num(25, l.UsageQuantity, st.amount)
			r.text(26, st.text, l.UsageUnit)
			sh := analysis.LineShare(l.ChargeStart, l.ChargeEnd, ps, pe)
			r.float(27, st.percent, sh.InexactFloat64())
			r.blank(28)
			r.blank(29)
			if c, ok := l.Cost(); ok {
				c = c.Mul(sh)
				r.float(28, own, c.InexactFloat64())
				if rate, ok := b.rate(l.Currency); ok {
					r.float(29, st.money, c.Mul(rate).InexactFloat64())
				}
			}
			r.text(30, st.text, l.Tags["team"])
			r.blank(31)
			if len(l.Tags) > 0 {
				r.text(31, st.text, tags.Of(l.Tags)) // keys sorted: stable output
			}
			r.blank(32)
			if l.Line > 0 {
				r.int(32, st.count, l.Line)
			}
			return add(r.values())
		})
		if err != nil {
			return fmt.Errorf("billing lines: %w", err)
		}
	}
	return done()
}

// rate is what one unit of currency code is worth in the reporting currency
// (Meta.FX, the config's fx); a line without a currency is in the reporting
// one. ok is false where no rate is known: the cell stays blank, not 1:1.
func (b *book) rate(code string) (decimal.Decimal, bool) {
	code = strings.ToUpper(code)
	if code == "" || code == strings.ToUpper(b.r.Currency) {
		return decimal.NewFromInt(1), true
	}
	for c, r := range b.meta.FX { // keys as the config spells them
		if strings.EqualFold(c, code) {
			return r, true
		}
	}
	return decimal.Decimal{}, false
}
