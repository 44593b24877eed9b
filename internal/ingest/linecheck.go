package ingest

import (
	"fmt"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/shopspring/decimal"
)

// What every billing reader's lines must satisfy before they reach a sink,
// checked in one place (checkLine) so that no format can let one through.
//
// A charge period outside 2000–2100 is a placeholder or a typo (9999-12-31,
// 0001-01-01): spread over centuries it would make the line's cost vanish
// from every report and the file's period meaningless. A line longer than a
// billing period is possible (a yearly reservation fee) but suspect, so it
// is kept and warned about. A blank currency is a bad field: counting it as
// the reporting currency is a silent exchange rate of 1.
var (
	minChargeTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	maxChargeTime = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

const (
	// maxBillingPeriod is the longest billing period (a 31-day month); a
	// line longer than it, unless one-time, is warned about.
	maxBillingPeriod = 31 * 24 * time.Hour
	// maxWarnings is how many warnings a Summary keeps; WarningCount counts all.
	maxWarnings = 20
)

// lineFields names the fields a billing format reads a line's charge period,
// currency and amounts from, for the errors and warnings of checkLine.
type lineFields struct {
	start, end, currency string
	// billed, effective and list name the cells of the line's amounts,
	// which checkLine bounds. "" is an amount the reader works out from
	// several (CUR's effective cost, GCP's cost with credits, Vast.ai's
	// charge totals and cents): the reader bounds those parts where it
	// reads them, and a sum of bounded parts may exceed the bound.
	billed, effective, list string
	// currencyFix says how to give a blank currency one, beyond --currency.
	currencyFix string
}

// lineFielder is a billing reader that names its fields.
type lineFielder interface{ lineFields() lineFields }

// fieldsOf names p's fields, or generic ones when p does not say.
func fieldsOf(p any) lineFields {
	if f, ok := p.(lineFielder); ok {
		return f.lineFields()
	}
	return lineFields{start: "start", end: "end", currency: "currency"}
}

// checkLine checks one billing line of file: its currency (a blank one
// becomes currency, the explicit default of --currency or the source's
// config, else the line is refused), and its charge period (refused outside
// 2000–2100; warned about when longer than a billing period). It may set
// l.Currency.
func checkLine(file string, f lineFields, currency string, l *finops.BillingLine) (warn, perr *ParseError) {
	for _, a := range []struct {
		d     *decimal.Decimal
		field string
	}{{l.BilledCost, f.billed}, {l.EffectiveCost, f.effective}, {l.ListCost, f.list}} {
		if a.field != "" && a.d != nil && checkAmount(*a.d) != nil {
			return nil, fieldErr(file, l.Line, a.field, implausibleAmount, a.d.String())
		}
	}
	if perr := checkTags(file, l); perr != nil {
		return nil, perr
	}
	if strings.TrimSpace(l.Currency) == "" {
		if currency == "" {
			fix := "pass --currency CODE (or set currency: on the billing source in the config) to say which currency the file's blank ones are"
			if f.currencyFix != "" {
				fix = f.currencyFix + ", or " + fix
			}
			return nil, &ParseError{File: file, Line: l.Line, Field: f.currency,
				Msg: "the currency is blank, and finops never assumes one (a USD bill read as CNY would be silently wrong): " + fix}
		}
		l.Currency = strings.ToUpper(currency)
	}
	for _, b := range []struct {
		t     time.Time
		field string
	}{{l.ChargeStart, f.start}, {l.ChargeEnd, f.end}} {
		if b.t.Before(minChargeTime) || b.t.After(maxChargeTime) {
			return nil, &ParseError{File: file, Line: l.Line, Field: b.field,
				Msg: fmt.Sprintf("expected a charge period between %d and %d, found %s: a placeholder date or a typo; fix the export",
					minChargeTime.Year(), maxChargeTime.Year(), b.t.UTC().Format(time.RFC3339))}
		}
	}
	if d := l.ChargeEnd.Sub(l.ChargeStart); d > maxBillingPeriod && l.ChargeFrequency != "one-time" {
		warn = &ParseError{File: file, Line: l.Line, Field: f.end,
			Msg: fmt.Sprintf("the charge period %s .. %s is %.1f days long, more than a billing period (31 days), and the charge is not one-time: "+
				"its cost is spread evenly over the whole period; check the dates",
				l.ChargeStart.UTC().Format(time.RFC3339), l.ChargeEnd.UTC().Format(time.RFC3339), d.Hours()/24)}
	}
	return warn, nil
}

// checkTags refuses a tag key or value with a control or invisible
// formatting character (sanitize.UnsafeRune: C1, U+2028, bidi and
// zero-width characters too), a line break or a tab: the identifier rule
// (sanitize.FindUnsafe with nothing kept, as checkIDs applies it). A CSV
// field is checked as read, but a Tags JSON string ("\u0000", "\u001b[2J",
// "\r\n") or a Parquet map reaches the tags decoded, and from there the team
// CSV, the page and the email: a tag is one line of text.
func checkTags(file string, l *finops.BillingLine) *ParseError {
	for k, v := range l.Tags {
		for _, s := range [2]string{k, v} {
			j, r := sanitize.FindUnsafe(s, "")
			if j < 0 {
				continue
			}
			msg := fmt.Sprintf("tag %q: %s", k, controlMsg(r))
			if strings.ContainsRune(textKeep, r) {
				msg = fmt.Sprintf("tag %q holds a line break or tab (%s): a tag is one line of text; fix the export", k, sanitize.RuneName(r))
			}
			return &ParseError{File: file, Line: l.Line, Field: "Tags", Msg: msg}
		}
	}
	return nil
}

// lineChecker applies checkLine for one file's reader and counts what it
// found in the file's Summary.
type lineChecker struct {
	file     string
	fields   lineFields
	currency string
	sum      *summarizer
}

func newLineChecker(opt Options, fields lineFields, sum *summarizer) *lineChecker {
	return &lineChecker{file: opt.Name, fields: fields, currency: strings.TrimSpace(opt.Currency), sum: sum}
}

// check checks l (read from the JSON record at path, "" for CSV) and records
// a warning; a non-nil result is the line's refusal.
func (c *lineChecker) check(l *finops.BillingLine, path string) *ParseError {
	warn, perr := checkLine(c.file, c.fields, c.currency, l)
	// A JSON record's fields are named by its path; the names are only
	// built for the lines that need them, not for every line.
	for _, e := range []*ParseError{warn, perr} {
		if e != nil && path != "" && e.Field != "" {
			e.Field = path + "." + e.Field
		}
	}
	if warn != nil {
		c.sum.sum.Warn(warn)
	}
	return perr
}

// colName is column i's name in hdr, or want (the column a format would
// read) when the header has no such column.
func colName(hdr []string, i int, want string) string {
	if i < 0 {
		return want + " (no such column)"
	}
	return columnName(hdr, i)
}

func (p *focusParser) lineFields() lineFields {
	return lineFields{start: columnName(p.hdr, p.start), end: columnName(p.hdr, p.end),
		currency: colName(p.hdr, p.currency, "BillingCurrency"),
		billed:   columnName(p.hdr, p.billed), effective: columnName(p.hdr, p.effective), list: columnName(p.hdr, p.list)}
}

func (p *curParser) lineFields() lineFields {
	start, end := p.start, p.end
	if start < 0 || end < 0 {
		start, end = p.interval, p.interval
	}
	return lineFields{start: columnName(p.hdr, start), end: columnName(p.hdr, end),
		currency: colName(p.hdr, p.currency, "lineItem/CurrencyCode"),
		billed:   columnName(p.hdr, p.unblended), list: columnName(p.hdr, p.listCost)}
}

func (p *azureParser) lineFields() lineFields {
	// The cost column is the billed or the effective cost, by the row's basis.
	cost := columnName(p.hdr, p.cost)
	return lineFields{start: columnName(p.hdr, p.date), end: columnName(p.hdr, p.date),
		currency: colName(p.hdr, p.currency, "BillingCurrency"),
		billed:   cost, effective: cost, list: columnName(p.hdr, p.payg)}
}

// gcpLineFields are the GCP export's fields, in its CSV and JSON forms alike.
var gcpLineFields = lineFields{start: gcpStart, end: gcpEnd, currency: gcpCurrency, billed: gcpCost, list: gcpListCost}

func (*gcpCSVParser) lineFields() lineFields { return gcpLineFields }

func (p *rentalParser) lineFields() lineFields {
	name := func(field string) string {
		if i, ok := p.cols[field]; ok {
			return columnName(p.hdr, i)
		}
		return field
	}
	return lineFields{start: name("start"), end: name("end"), currency: name("currency"),
		currencyFix: fmt.Sprintf("add currency: to mapping %q in the config", p.mapping),
		billed:      name("cost"), list: name("list_cost")}
}

// RunPod and Vast.ai bill in US dollars only (their APIs name no other
// currency), so their readers set USD; the fields are for period errors.

func (*runpodParser) lineFields() lineFields {
	return lineFields{start: "time", end: "timeBilledMs", currency: "currency", billed: "amount"}
}

func (*vastParser) lineFields() lineFields {
	return lineFields{start: "start", end: "end", currency: "currency"}
}
