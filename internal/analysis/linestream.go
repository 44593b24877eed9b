package analysis

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/finops-oss/finops"
)

// LineStream gives an Input's billing lines one at a time from where they
// are kept, instead of Input.Lines holding them all: a quarter of a fleet's
// lines is hundreds of MB as finops.BillingLine. The analysis walks Each once,
// for the window and its trends together, and keeps of each line only what
// it adds up and, for a GPU usage line, a few numbers (charge).
type LineStream struct {
	// Each calls fn for every line Lines would hold, in the same order, and
	// returns fn's error as is. fn does not keep the line after it returns,
	// so Each may reuse it.
	Each func(ctx context.Context, fn func(*finops.BillingLine) error) error
	// Currencies are the currencies of the lines in upper case ("" for lines
	// without one, which convert as the reporting currency): the reporting
	// currency and its rates are needed before the first line is added up.
	// A line in a currency neither listed nor given a rate (Params.FX) stops
	// the analysis with an error.
	Currencies []string
	// First and Last are the earliest charge start and the latest charge end
	// (or start, where that is later) of the lines, which clip the window
	// before they are walked; HasLines is false when there are none.
	First, Last time.Time
	HasLines    bool
}

// lineCurrencies are the currencies of in's lines in upper case.
func lineCurrencies(in *Input) []string {
	if in.LineStream != nil {
		return in.LineStream.Currencies
	}
	var out []string
	seen := map[string]bool{}
	for i := range in.Lines {
		if c := strings.ToUpper(in.Lines[i].Currency); !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// eachLine calls fn for each of in's lines, from Lines or from LineStream.
// A streamed line's currency must be one conv converts: conv was made from
// the stream's Currencies, and a currency it lacks would convert to nothing.
func eachLine(ctx context.Context, in *Input, conv *converter, fn func(*finops.BillingLine)) error {
	if in.LineStream == nil {
		for i := range in.Lines {
			fn(&in.Lines[i])
		}
		return nil
	}
	var last string // the currency checked last: the store shares its strings, and most lines repeat it
	return in.LineStream.Each(ctx, func(l *finops.BillingLine) error {
		if l.Currency != last {
			if _, ok := conv.rates[strings.ToUpper(l.Currency)]; !ok && l.Currency != "" {
				return fmt.Errorf("analysis: a billing line (line %d of its file) is in %s, which the stream's currencies (%s) did not list and no fx rate converts",
					l.Line, l.Currency, strings.Join(in.LineStream.Currencies, ", "))
			}
			last = l.Currency
		}
		fn(l)
		return nil
	})
}
