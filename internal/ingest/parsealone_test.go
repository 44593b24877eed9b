package ingest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// TestLinesParseAsAlone holds the invariant under every cache a parser
// keeps from one line to the next (the previous line's cells, lastCells;
// the decimals and tag sets it shares, decMemo, memo; the interner): a
// line read in a file is the line read alone, every field, whatever came
// before it. Generated FOCUS files repeat each column's previous cell half
// of the time and otherwise draw from values that differ only in case,
// in trailing zeros, or by being empty or NULL.
func TestLinesParseAsAlone(t *testing.T) {
	cols := []struct {
		name string
		pool []string
	}{
		{"ProviderName", []string{"AWS", "Microsoft", "aws", ""}},
		{"BillingAccountId", []string{"1234567890123", "0123", "", "NULL"}},
		{"SubAccountId", []string{"51738928782", "/subscriptions/64e3", ""}},
		{"ChargeCategory", []string{"Usage", "usage", "USAGE", "Purchase", "Tax", "Credit"}},
		{"ChargeClass", []string{"", "NULL", "Correction", "correction"}},
		{"ChargeFrequency", []string{"Usage-Based", "Usage-based", "Recurring", "One-Time", ""}},
		{"PricingCategory", []string{"Standard", "standard", "Dynamic", "Committed", "NULL"}},
		{"CommitmentDiscountStatus", []string{"", "Used", "Unused", "used"}},
		{"CommitmentDiscountId", []string{"", "ri-1", "RI-1"}},
		{"ResourceId", []string{"i-0f1", "i-0F1", "arn:aws:ec2:us-east-1:1:instance/i-9", ""}},
		{"ResourceName", []string{"", "trainer", "Trainer", "NULL"}},
		{"ResourceType", []string{"", "Virtual machine", "virtual machine"}},
		{"ServiceName", []string{"Amazon Elastic Compute Cloud", "Azure Machine Learning", ""}},
		{"SkuId", []string{"G95FST5FTYV3JSRX", "1010107", "", "007"}},
		{"RegionId", []string{"us-east-1", "US-EAST-1", "eastus2", ""}},
		{"BillingCurrency", []string{"USD", "usd", "Usd", "EUR"}},
		{"ConsumedUnit", []string{"Hours", "hours", "GB", ""}},
		{"BilledCost", []string{"0", "1.5", "1.50", "-0.00000000747", "2e1", "20"}},
		{"EffectiveCost", []string{"0", "1.5", "1.50", "", "NULL"}},
		{"ListCost", []string{"0.087", "0.0870", "NULL"}},
		{"ConsumedQuantity", []string{"1", "1.000", "24", ""}},
		{"Tags", []string{"", `"{""team"": ""ml""}"`, `"{""team"": ""ML""}"`, "{}"}},
		{"x_Team", []string{"", "infra"}},
	}
	header := "ChargePeriodStart,ChargePeriodEnd"
	for _, c := range cols {
		header += "," + c.name
	}
	for seed := range uint64(30) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 35))
			prev := make([]string, len(cols))
			var rows []string
			for i := range 1 + r.IntN(80) {
				row := []string{"2026-11-01T00:00:00Z", fmt.Sprintf("2026-11-01T%02d:00:00Z", 1+i%20)}
				for k, c := range cols {
					if i == 0 || r.IntN(2) == 0 {
						prev[k] = c.pool[r.IntN(len(c.pool))]
					}
					row = append(row, prev[k])
				}
				rows = append(rows, strings.Join(row, ","))
			}
			all := parseAll(t, header, rows...)
			if len(all) != len(rows) {
				t.Fatalf("%d lines of %d rows", len(all), len(rows))
			}
			for i, row := range rows {
				alone := parseAll(t, header, row)[0]
				if got, want := lineText(all[i]), lineText(alone); got != want {
					t.Fatalf("line %d (%s):\nin the file %s\nalone       %s", i+2, row, got, want)
				}
			}
		})
	}
}

// parseAll parses a CSV of the header and rows, which must all be read.
func parseAll(t *testing.T, header string, rows ...string) []*finops.BillingLine {
	t.Helper()
	return parseRows(t, Options{Name: "alone.csv"}, header, rows...)
}

// parseRows parses a CSV of the header and rows with opt and returns its
// lines; a row refused fails the test.
func parseRows(t *testing.T, opt Options, header string, rows ...string) []*finops.BillingLine {
	t.Helper()
	sink := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(header+"\n"+strings.Join(rows, "\n")+"\n"), opt, sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Rejected) > 0 {
		t.Fatalf("rejected: %v", sum.Rejected)
	}
	return sink.lines
}

// lineText is every field of a line but its number, decimals with their
// exponent (1.5 and 1.50 are told apart), tags in key order.
func lineText(l *finops.BillingLine) string {
	dec := func(d *decimal.Decimal) string {
		if d == nil {
			return "nil"
		}
		return fmt.Sprintf("%s@%d", d.String(), d.Exponent())
	}
	c := *l
	c.Line = 0
	c.BilledCost, c.EffectiveCost, c.ListCost, c.UsageQuantity = nil, nil, nil, nil
	return fmt.Sprintf("%+v billed=%s effective=%s list=%s quantity=%s", c,
		dec(l.BilledCost), dec(l.EffectiveCost), dec(l.ListCost), dec(l.UsageQuantity))
}
