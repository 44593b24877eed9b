package ingest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// costFallback says why a billing line's effective cost is its billed cost:
// a line of kind lineType whose column, which should hold the effective cost,
// is empty (a CUR SavingsPlanCoveredUsage line without
// savingsPlan/SavingsPlanEffectiveCost, a DiscountedUsage line without
// reservation/EffectiveCost).
type costFallback struct {
	lineType, column string
}

// fallbackTally counts one kind of fallback in a file: how many lines, the
// first of them, and the billed cost they were given as effective cost, per
// currency.
type fallbackTally struct {
	costFallback
	lines, first int
	amount       map[string]decimal.Decimal
}

// fallback counts a line the sink took whose effective cost fell back.
func (s *summarizer) fallback(f *costFallback, l *finops.BillingLine) {
	if f == nil {
		return
	}
	i := slices.IndexFunc(s.fallbacks, func(t *fallbackTally) bool { return t.costFallback == *f })
	if i < 0 {
		s.fallbacks = append(s.fallbacks, &fallbackTally{costFallback: *f, first: l.Line, amount: map[string]decimal.Decimal{}})
		i = len(s.fallbacks) - 1
	}
	t := s.fallbacks[i]
	t.lines++
	if l.BilledCost != nil {
		t.amount[l.Currency] = t.amount[l.Currency].Add(*l.BilledCost)
	}
}

// warnFallbacks turns the tallies into one warning each: a covered line
// without its effective cost is kept (its usage and its billed cost are
// real), but its effective cost is the on-demand price, above what the
// commitment made it cost, and the reader must know by how much at most.
func (s *summarizer) warnFallbacks() {
	for _, t := range s.fallbacks {
		var parts []string
		for _, c := range slices.Sorted(maps.Keys(t.amount)) {
			parts = append(parts, strings.TrimSpace(t.amount[c].String()+" "+c))
		}
		amount := strings.Join(parts, " + ")
		if amount == "" {
			amount = "0"
		}
		lines := fmt.Sprintf("%d %s lines (the first on this line) have", t.lines, t.lineType)
		if t.lines == 1 {
			lines = fmt.Sprintf("1 %s line (this one) has", t.lineType)
		}
		s.sum.Warn(&ParseError{File: s.name, Line: t.first, Field: t.column, Msg: fmt.Sprintf(
			"%s no %s: it counts at its unblended (on-demand) cost as effective cost, "+
				"%s in all, which overstates the effective cost by up to the commitment's discount; "+
				"export the report with its commitment columns filled and import it again",
			lines, t.column, amount)})
	}
	s.fallbacks = nil
}
