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
// column repeats it more often than not), then the texts seen, bounded as
// memo is; a text parseDecimal refuses is not remembered.
type decMemo struct {
	last seenDecimal // the previous line's
	seen map[string]seenDecimal
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
	e, ok := m.seen[s]
	if !ok {
		d, err := parseDecimal(s)
		if err != nil {
			return nil, err
		}
		e = seenDecimal{strings.Clone(s), &d} // s may be the reader's buffer
		if m.seen == nil {
			m.seen = map[string]seenDecimal{}
		}
		if len(m.seen) < maxInterned {
			m.seen[e.text] = e
		}
	}
	m.last = e
	return e.d, nil
}
