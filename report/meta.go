// Package report renders an analysis.Result as the finops reports: the JSON
// summary (the scripting contract of product.md), the Excel workbook, the
// self-contained HTML page and the terminal summary. It only formats: no SQL,
// no clock, no network; whatever varies per run (the generation time, the
// version) comes in through Meta.
package report

import "time"

// Meta is what a report says about its own production. It is passed in rather
// than read from the clock so that reports are reproducible and testable.
type Meta struct {
	GeneratedAt time.Time // shown in the report; zero omits it
	Version     string    // finops version; "" omits it
}
