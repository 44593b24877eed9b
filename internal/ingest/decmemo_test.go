package ingest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestSharedDecimalsAreTheCells holds the invariant of decMemo: a line's
// costs and quantity are parseDecimal of its own cells — coefficient and
// exponent — whichever lines repeated the text before it, also past the
// memo's bound. Generated FOCUS files draw the cells from texts that are
// equal in value and apart in text ("1.5", "1.50", "0", "-0", "2e1"), and
// from unique ones; a test that shared nothing would prove nothing.
func TestSharedDecimalsAreTheCells(t *testing.T) {
	pool := []string{"0", "-0", "0.00000000000", "1.5", "1.50", "2e1", "20", "-0.00000000747", "0.087", "NULL", ""}
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 35))
			n := 200
			if seed == 0 {
				n = maxInterned + 500 // unique cells fill the memo, then it only reads
			}
			cell := func(i int) string {
				if r.IntN(3) == 0 || seed == 0 && i < maxInterned+100 {
					return fmt.Sprintf("%d.%03d", r.IntN(1000), i%1000)
				}
				return pool[r.IntN(len(pool))]
			}
			var b strings.Builder
			b.WriteString("BilledCost,EffectiveCost,ListCost,ConsumedQuantity,ChargePeriodStart,ChargePeriodEnd\n")
			var rows [][4]string
			for i := range n {
				var row [4]string
				for k := range row {
					row[k] = cell(i)
				}
				if row[0] == "" || row[0] == "NULL" {
					row[0] = "1" // BilledCost holds a number on every line
				}
				rows = append(rows, row)
				fmt.Fprintf(&b, "%s,%s,%s,%s,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z\n", row[0], row[1], row[2], row[3])
			}
			sink := &recSink{}
			if _, err := Parse(t.Context(), strings.NewReader(b.String()), Options{Name: "d.csv", Currency: "USD"}, sink); err != nil {
				t.Fatal(err)
			}
			if len(sink.lines) != n {
				t.Fatalf("%d lines of %d", len(sink.lines), n)
			}
			shared := map[*decimal.Decimal]int{}
			for i, l := range sink.lines {
				for k, got := range []*decimal.Decimal{l.BilledCost, l.EffectiveCost, l.ListCost, l.UsageQuantity} {
					text := rows[i][k]
					if text == "" || text == "NULL" {
						if got != nil {
							t.Fatalf("line %d column %d: %v for a null cell", i+2, k, got)
						}
						continue
					}
					want, err := parseDecimal(text)
					if err != nil {
						t.Fatal(err)
					}
					if got == nil || got.Coefficient().Cmp(want.Coefficient()) != 0 || got.Exponent() != want.Exponent() {
						t.Fatalf("line %d column %d: %v for the cell %q, want %v (exponent %d)", i+2, k, got, text, want, want.Exponent())
					}
					shared[got]++
				}
			}
			if len(shared) == n*4 {
				t.Error("no line shares a decimal: the test proves nothing")
			}
		})
	}
}
