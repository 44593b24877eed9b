package ingest

import (
	"strings"

	"github.com/shopspring/decimal"
)

// decMemo shares the decimal of a number cell between the lines that repeat
// its text: an export repeats a few prices, zeros and quantities on most of
// its lines (an hour of the same instance costs the same), and parsing each
// into a big.Int was a tenth of a FOCUS parse (issue #35). The lines hold
// the same pointer, which no one writes through (BillingLine's costs). One
// memo serves one column: the previous line's cell is looked at first (a
// column repeats it more often than not), then the texts seen (memo, with
// its bound); a text parseDecimal refuses is not remembered.
type decMemo struct {
	last seenDecimal // the previous line's
	seen memo[seenDecimal]
}

// seenDecimal is a cell's text, the memo's own copy, and its decimal.
type seenDecimal struct {
	text string
	d    *decimal.Decimal
}

// of is parseDecimal's result for s, shared with the earlier cells of s.
func (m *decMemo) of(s string) (*decimal.Decimal, error) {
	if m.last.d != nil && s == m.last.text {
		return m.last.d, nil
	}
	if m.seen == nil {
		m.seen = memo[seenDecimal]{}
	}
	e, ok := m.seen.of(s, parseSeenDecimal)
	if !ok {
		_, err := parseDecimal(s) // the reason, for the refusal
		return nil, err
	}
	m.last = e
	return e.d, nil
}

// parseSeenDecimal is parseDecimal for decMemo; s may be the reader's
// buffer.
func parseSeenDecimal(s string) (seenDecimal, bool) {
	d, err := parseDecimal(s)
	if err != nil {
		return seenDecimal{}, false
	}
	return seenDecimal{strings.Clone(s), &d}, true
}
