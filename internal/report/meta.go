// Package report renders an analysis.Result as the finops reports: the JSON
// summary (the scripting contract of product.md), the Excel workbook, the
// self-contained HTML page, the email body and the terminal summary. It only
// formats: no SQL, no clock, no network; whatever varies per run (the
// generation time, the version, the raw billing lines) comes in through Meta.
package report

import (
	"time"

	"github.com/shopspring/decimal"
)

// Meta is what a report needs besides the Result: what it says about its own
// production, and the raw data too large to hold in the Result. It is passed
// in rather than read from the clock or the store so that reports are
// reproducible and testable.
type Meta struct {
	GeneratedAt time.Time // shown in the report; zero omits it
	Version     string    // finops version; "" omits it
	// DatabaseID is the store's id (store.DatabaseID), written in the JSON
	// summary's source; "" (a rollup) omits it.
	DatabaseID string
	// Team names the team whose slice (analysis.Result.ForTeam) the Result
	// is; "" for the whole organisation. It appears in titles and file names.
	Team string
	// View is the audience's chargeback and movers, the same its email and
	// digest show (audience.go); nil builds it from the Result.
	View *Audience
	// Lines streams the window's raw billing lines into the workbook's
	// "Billing lines" sheet; nil leaves that sheet with its header only.
	Lines LineSource
	// FX holds the exchange rates into the reporting currency by currency
	// code (the config's fx, analysis.Params.FX), for the Billing lines
	// sheet's reporting-currency column; nil where the lines are in one.
	FX map[string]decimal.Decimal
	// Sheet is told each workbook sheet filled (done of total), for a
	// progress bar; nil tells nothing.
	Sheet func(name string, done, total int)
	// sheetRows, in tests, caps a streamed sheet's rows below Excel's limit
	// (0: the limit) so that its continuation sheets can be seen.
	sheetRows int
}
