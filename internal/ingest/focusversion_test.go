package ingest

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// A FOCUS 0.5 file (the 0.5 column IDs: AmortizedCost, ChargeType, Region;
// no EffectiveCost, ChargeCategory) is read as FOCUS 1.x: the amortized cost
// is the cost and ChargeType the charge category, and the summary and a
// warning name the version.
func TestFOCUS05(t *testing.T) {
	sum, sink := mustParse(t, "focus_0.5.csv", Options{})
	if sum.Format != FormatFOCUS || sum.FormatVersion != "0.5" || sum.Rows != 5 {
		t.Fatalf("format %q version %q rows %d, want focus 0.5 and 5 rows", sum.Format, sum.FormatVersion, sum.Rows)
	}
	// AmortizedCost: 32.7726 + 19.22 + 0 (the upfront purchase, amortized
	// over the usage it covers) + 105.28 − 50.00 = 107.2726. Read as 1.x
	// before, the total was BilledCost: 32.7726 + 0 + 1000.00 + 105.28 − 50.00
	// = 1088.0526.
	if want := decimal.RequireFromString("107.2726"); !sum.TotalCost.Equal(want) {
		t.Errorf("total %s, want %s", sum.TotalCost, want)
	}
	var billed decimal.Decimal
	for _, l := range sink.lines {
		billed = billed.Add(*l.BilledCost)
	}
	if want := decimal.RequireFromString("1088.0526"); !billed.Equal(want) {
		t.Errorf("Σ BilledCost %s, want %s", billed, want)
	}
	for i, want := range []struct {
		category, effective, region string
	}{
		{finops.ChargeUsage, "32.7726", "us-east-1"},
		{finops.ChargeUsage, "19.22", "us-east-1"},
		{finops.ChargePurchase, "0", "us-east-1"},
		{finops.ChargeTax, "105.28", ""},
		{finops.ChargeAdjustment, "-50", ""},
	} {
		l := sink.lines[i]
		if l.ChargeCategory != want.category || l.EffectiveCost == nil || !l.EffectiveCost.Equal(decimal.RequireFromString(want.effective)) ||
			l.Region != want.region || l.Provider != "AWS" || l.Currency != "USD" {
			t.Errorf("line %d: category %q effective %v region %q provider %q currency %q; want %+v",
				l.Line, l.ChargeCategory, l.EffectiveCost, l.Region, l.Provider, l.Currency, want)
		}
	}
	if sum.WarningCount != 1 {
		t.Fatalf("warnings %v, want 1", sum.Warnings)
	}
	wantErrParts(t, sum.Warnings[0], "focus_0.5.csv:1", "a FOCUS 0.5 export", "AmortizedCost as EffectiveCost",
		"ChargeType as ChargeCategory", "Region as RegionId", "export FOCUS 1.0 or later")
}

// The FOCUS validator's 0.5 sample spells the columns as the 0.5 drafts did
// (Provider, BilledCurrency, InvoiceIssuer, ResourceID): read as well.
func TestFOCUS05ValidatorSample(t *testing.T) {
	sum, sink := mustParse(t, "focus-validator/all_pass_0.5.csv", Options{})
	if sum.FormatVersion != "0.5" || sum.Rows != 2 {
		t.Fatalf("version %q rows %d", sum.FormatVersion, sum.Rows)
	}
	for i, want := range []struct{ category, provider, currency, effective, resource string }{
		{finops.ChargePurchase, "A", "AUD", "0.01", "r1"},
		{finops.ChargeAdjustment, "B", "USD", "1", "r2"},
	} {
		l := sink.lines[i]
		if l.ChargeCategory != want.category || l.Provider != want.provider || l.Currency != want.currency ||
			!l.EffectiveCost.Equal(decimal.RequireFromString(want.effective)) || l.ResourceID != want.resource {
			t.Errorf("line %d: %+v, want %+v", l.Line, *l, want)
		}
	}
	wantErrParts(t, sum.Warnings[0], "BilledCurrency as BillingCurrency", "Provider as ProviderName")
}

// FOCUS 1.0-preview: ChargeCategory and EffectiveCost, but ChargeSubcategory
// and UsageQuantity instead of 1.0's ChargeClass, CommitmentDiscountStatus,
// the Credit category and ConsumedQuantity.
func TestFOCUS10Preview(t *testing.T) {
	csv := "ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,BillingCurrency,ChargeCategory,ChargeSubcategory,PricingCategory,UsageQuantity,UsageUnit,ProviderName\n" +
		"2024-01-01T00:00:00Z,2024-01-01T01:00:00Z,0,3.00,USD,Usage,Used Commitment,Commitment-Based,1,Hours,AWS\n" +
		"2024-01-01T00:00:00Z,2024-01-01T01:00:00Z,0,1.50,USD,Usage,Unused Commitment,Commitment-Based,,,AWS\n" +
		"2024-01-01T00:00:00Z,2024-01-02T00:00:00Z,-5.00,-5.00,USD,Adjustment,Credit,,,,AWS\n" +
		"2024-01-01T00:00:00Z,2024-01-02T00:00:00Z,-2.00,-2.00,USD,Adjustment,Refund,,,,AWS\n" +
		"2024-01-01T00:00:00Z,2024-01-01T02:00:00Z,8.00,8.00,USD,Usage,On-Demand,On-Demand,2,Hours,AWS\n"
	sink := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(csv), Options{Name: "preview.csv"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if sum.FormatVersion != "1.0-preview" || sum.Rows != 5 {
		t.Fatalf("version %q rows %d", sum.FormatVersion, sum.Rows)
	}
	// 3.00 + 1.50 − 5.00 − 2.00 + 8.00 = 5.50
	if want := decimal.RequireFromString("5.50"); !sum.TotalCost.Equal(want) {
		t.Errorf("total %s, want %s", sum.TotalCost, want)
	}
	for i, want := range []struct {
		category, class, status, pricing, mode, qty, unit string
	}{
		{finops.ChargeUsage, "", "used", "committed", finops.ModeCommitted, "1", "Hours"},
		{finops.ChargeUsage, "", "unused", "committed", finops.ModeCommitted, "", ""},
		{finops.ChargeCredit, "", "", "", "", "", ""},
		{finops.ChargeAdjustment, "correction", "", "", "", "", ""},
		{finops.ChargeUsage, "", "", "standard", "", "2", "Hours"},
	} {
		l := sink.lines[i]
		qty := ""
		if l.UsageQuantity != nil {
			qty = l.UsageQuantity.String()
		}
		if l.ChargeCategory != want.category || l.ChargeClass != want.class || l.CommitmentStatus != want.status ||
			l.PricingCategory != want.pricing || l.PricingMode != want.mode || qty != want.qty || l.UsageUnit != want.unit {
			t.Errorf("line %d: category %q class %q status %q pricing %q mode %q qty %q unit %q; want %+v", l.Line,
				l.ChargeCategory, l.ChargeClass, l.CommitmentStatus, l.PricingCategory, l.PricingMode, qty, l.UsageUnit, want)
		}
	}
	wantErrParts(t, sum.Warnings[0], "preview.csv:1", "a FOCUS 1.0-preview export", "UsageQuantity as ConsumedQuantity",
		"Refund as ChargeClass Correction")
}

// A ChargeType that is none of FOCUS 0.5's values is a bad field; a FOCUS
// 1.x file says no version and gets no warning for it.
func TestFOCUSVersionRows(t *testing.T) {
	head := "ChargePeriodStart,ChargePeriodEnd,BilledCost,AmortizedCost,BillingCurrency,ChargeType\n"
	ok := "2023-06-01T00:00:00Z,2023-06-01T01:00:00Z,1,1,USD,Usage\n"
	sum, err := Parse(t.Context(), strings.NewReader(head+"2023-06-01T00:00:00Z,2023-06-01T01:00:00Z,1,1,USD,Refund\n"+ok),
		Options{Name: "bill.csv", MaxBadRows: 1}, &countSink{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Rejected) != 1 {
		t.Fatalf("rejected %v, want 1", sum.Rejected)
	}
	wantErrParts(t, sum.Rejected[0], "bill.csv:2", `field "ChargeType"`, "Usage, Purchase, Tax or Adjustment", `found "Refund"`)

	sum, _ = mustParse(t, "focus_sample.csv", Options{})
	if sum.FormatVersion != "" {
		t.Errorf("FOCUS 1.0 sample read as version %q", sum.FormatVersion)
	}
	for _, w := range sum.Warnings {
		if strings.Contains(w.Msg, "a FOCUS") {
			t.Errorf("FOCUS 1.0 sample warned about its version: %v", w)
		}
	}
}
