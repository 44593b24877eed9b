package report

import "github.com/finops-oss/finops"

// LineSource streams raw billing lines: it calls yield once per line, in
// order, and returns the first error yield returns (or its own). The workbook
// writes each line as it comes, so a month of 200,000 lines never sits in
// memory. The caller wires it to the store (store.EachLine); report itself
// never runs a query. A source may reuse the line it passes: yield copies
// what it keeps. The store's (store.LineStream) reads ahead on a goroutine of
// its own, so the lines are read while the sheet's cells are made.
type LineSource func(yield func(*finops.BillingLine) error) error
