package finops

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestBillingLineCost(t *testing.T) {
	d := func(s string) *decimal.Decimal { v := decimal.RequireFromString(s); return &v }
	for _, c := range []struct {
		name              string
		billed, effective *decimal.Decimal
		want              string
		ok                bool
	}{
		{"effective wins", d("10"), d("7.25"), "7.25", true},
		{"billed when effective is null", d("10"), nil, "10", true},
		{"an effective zero is a cost", d("10"), d("0"), "0", true},
		{"both null: no cost, not zero", nil, nil, "0", false},
	} {
		l := BillingLine{BilledCost: c.billed, EffectiveCost: c.effective}
		got, ok := l.Cost()
		if ok != c.ok || !got.Equal(decimal.RequireFromString(c.want)) {
			t.Errorf("%s: Cost() = %s, %v; want %s, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestIsGPUUsage(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	zero, one := decimal.Zero, decimal.NewFromInt(1)
	gpu := func(edit func(*BillingLine)) BillingLine {
		l := BillingLine{ChargeCategory: ChargeUsage, GPUModel: "H100-80GB", GPUCount: 8,
			ChargeStart: t0, ChargeEnd: t0.Add(time.Hour), UsageQuantity: &one}
		edit(&l)
		return l
	}
	for _, c := range []struct {
		name string
		l    BillingLine
		want bool
	}{
		{"GPU usage", gpu(func(*BillingLine) {}), true},
		{"no usage quantity", gpu(func(l *BillingLine) { l.UsageQuantity = nil }), true},
		{"used commitment", gpu(func(l *BillingLine) { l.CommitmentStatus = "used" }), true},
		{"tax", gpu(func(l *BillingLine) { l.ChargeCategory = ChargeTax }), false},
		{"credit", gpu(func(l *BillingLine) { l.ChargeCategory = ChargeCredit }), false},
		{"purchase", gpu(func(l *BillingLine) { l.ChargeCategory = ChargePurchase }), false},
		{"adjustment", gpu(func(l *BillingLine) { l.ChargeCategory = ChargeAdjustment }), false},
		{"no GPU model", gpu(func(l *BillingLine) { l.GPUModel = "" }), false},
		{"no GPUs", gpu(func(l *BillingLine) { l.GPUCount = 0 }), false},
		{"unused commitment", gpu(func(l *BillingLine) { l.CommitmentStatus = "unused" }), false},
		{"zero-length period", gpu(func(l *BillingLine) { l.ChargeEnd = l.ChargeStart }), false},
		{"period backwards", gpu(func(l *BillingLine) { l.ChargeEnd = l.ChargeStart.Add(-time.Minute) }), false},
		{"usage quantity 0", gpu(func(l *BillingLine) { l.UsageQuantity = &zero }), false},
	} {
		if got := c.l.IsGPUUsage(); got != c.want {
			t.Errorf("%s: IsGPUUsage() = %v, want %v", c.name, got, c.want)
		}
	}
}
