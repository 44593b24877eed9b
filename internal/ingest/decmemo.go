package ingest

import (
	"strings"

	"github.com/shopspring/decimal"
)

// decMemo shares the decimal of a number cell between the lines that repeat
// its text: an export repeats a few prices, zeros and quantities on most of
// its lines (an hour of the same instance costs the same), and parsing each
// into a big.Int was a tenth of a FOCUS parse (issue #35). The lines hold
// the same pointer, which no one writes through (BillingLine's costs). It
// is bounded as memo is; a text it refuses is not remembered.
type decMemo map[string]*decimal.Decimal

// of is parseDecimal's result for s, shared with the earlier cells of s.
func (m decMemo) of(s string) (*decimal.Decimal, error) {
	if d, ok := m[s]; ok {
		return d, nil
	}
	d, err := parseDecimal(s)
	if err != nil {
		return nil, err
	}
	if len(m) < maxInterned {
		m[strings.Clone(s)] = &d // s may be the reader's buffer
	}
	return &d, nil
}
