package store

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// TestEachLine: streaming gives the lines overlapping each window, in charge
// start then import order, with every field as imported. (Lines is built on
// EachLine.)
func TestEachLine(t *testing.T) {
	ctx := context.Background()
	h := func(hour int) time.Time { return utc(2025, 3, 1, hour, 0, 0) }
	full := &finops.BillingLine{Line: 2, Provider: "AWS", BillingAccount: "acct", SubAccount: "sub",
		ChargeStart: h(10), ChargeEnd: h(11), ChargeCategory: finops.ChargeUsage, ChargeClass: "correction",
		ChargeFrequency: "usage-based", PricingCategory: "standard", PricingMode: finops.ModeHourly,
		CommitmentStatus: "used", CommitmentID: "sp-1", ResourceID: "i-1", ResourceName: "=HYPERLINK(\"x\")",
		ResourceType: "instance", Service: "EC2", SKU: "sku", InstanceType: "g5.xlarge", Region: "us-east-1",
		GPUModel: "A10G", GPUCount: 1, BilledCost: dec("1.006"), EffectiveCost: dec("0.9"), ListCost: dec("1.2"),
		Currency: "USD", UsageQuantity: dec("1"), UsageUnit: "Hours", Tags: map[string]string{"team": "nlp"}}
	lines := []*finops.BillingLine{
		full,
		usageLine(3, "b", h(9), h(12), "2"),
		usageLine(4, "c", h(12), h(13), "3"),
		{Line: 5, ResourceID: "null-cost", ChargeStart: h(10), ChargeEnd: h(11), ChargeCategory: finops.ChargeTax},
	}
	s := openTest(t)
	mustImport(t, s, "lines.csv", feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: len(lines)}, lines, nil, nil))

	// Expected ids by hand: ordered by charge start, then import order.
	for _, tc := range []struct {
		from, to time.Time
		want     []string
	}{
		{h(10), h(11), []string{"b", "i-1", "null-cost"}}, // b runs 9–12; full and the tax line 10–11
		{h(0), h(24), []string{"b", "i-1", "null-cost", "c"}},
		{h(12), h(13), []string{"c"}}, // b ends at 12: excluded
		{h(20), h(21), nil},
	} {
		var got []string
		err := s.EachLine(ctx, tc.from, tc.to, func(l *finops.BillingLine) error {
			got = append(got, l.ResourceID)
			if l.ResourceID == "null-cost" && (l.BilledCost != nil || l.EffectiveCost != nil || l.ListCost != nil ||
				l.UsageQuantity != nil || l.Tags != nil || l.Provider != "" || l.UsageUnit != "") {
				t.Errorf("a line without costs, tags or a provider came back with some: %+v", *l)
			}
			if l.ResourceID == "i-1" {
				want := *full
				want.Line = l.Line
				if !linesEqual(*l, want) {
					t.Errorf("full line round trip:\n got %+v\nwant %+v", *l, want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("[%v, %v): lines %v, want %v", tc.from, tc.to, got, tc.want)
		}
		// Read ahead into one reused line, the same lines field by field:
		// the line without costs or tags after the one with them included.
		var each, ahead []finops.BillingLine
		if err := s.EachLine(ctx, tc.from, tc.to, func(l *finops.BillingLine) error { each = append(each, *l); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.EachLineAhead(ctx, tc.from, tc.to, func(l *finops.BillingLine) error { ahead = append(ahead, *l); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(each, ahead, linesEqual) {
			t.Errorf("[%v, %v): read ahead\n%+v\nwant\n%+v", tc.from, tc.to, ahead, each)
		}
	}
}

// TestEachLineRefusesShiftedFields: the text fields travel as one column
// joined by U+001F, which ingest refuses inside a field; a database that holds
// one anyway fails the read, naming the line, instead of giving every later
// field the previous one's value.
func TestEachLineRefusesShiftedFields(t *testing.T) {
	ctx := context.Background()
	h := func(hour int) time.Time { return utc(2025, 3, 1, hour, 0, 0) }
	s := openTest(t)
	mustImport(t, s, "lines.csv", feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: 1},
		[]*finops.BillingLine{usageLine(7, "r", h(9), h(10), "2")}, nil, nil))
	for _, v := range []string{"a\x1fb", "\x1f"} {
		if _, err := s.DB().ExecContext(ctx, `UPDATE billing_lines SET resource_name = ?`, v); err != nil {
			t.Fatal(err)
		}
		err := s.EachLine(ctx, h(0), h(24), func(l *finops.BillingLine) error {
			t.Errorf("resource name %q: a line came back: %+v", v, *l)
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), "corrupt billing line (source line 7)") {
			t.Errorf("resource name %q: err = %v, want a corrupt billing line naming source line 7", v, err)
		}
	}
}

// linesEqual compares two lines field by field, decimals by value.
func linesEqual(a, b finops.BillingLine) bool {
	if !decEq(a.BilledCost, b.BilledCost) || !decEq(a.EffectiveCost, b.EffectiveCost) ||
		!decEq(a.ListCost, b.ListCost) || !decEq(a.UsageQuantity, b.UsageQuantity) {
		return false
	}
	a.BilledCost, a.EffectiveCost, a.ListCost, a.UsageQuantity = nil, nil, nil, nil
	b.BilledCost, b.EffectiveCost, b.ListCost, b.UsageQuantity = nil, nil, nil, nil
	return reflect.DeepEqual(a, b)
}

// TestEachLineStopsOnError: the callback's error ends the scan and comes back
// unwrapped, so callers can tell their own errors from the store's.
func TestEachLineStopsOnError(t *testing.T) {
	ctx := context.Background()
	h := func(hour int) time.Time { return utc(2025, 3, 1, hour, 0, 0) }
	var lines []*finops.BillingLine
	for i := range 10 {
		lines = append(lines, usageLine(i+2, "r", h(i), h(i+1), "1"))
	}
	s := openTest(t)
	mustImport(t, s, "lines.csv", feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: len(lines)}, lines, nil, nil))

	stop := errors.New("enough")
	n := 0
	err := s.EachLine(ctx, h(0), h(24), func(*finops.BillingLine) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3 {
		t.Fatalf("err = %v after %d lines, want the callback's error after 3", err, n)
	}
	// The connection was released: the store still answers.
	if _, err := s.Lines(ctx, h(0), h(24)); err != nil {
		t.Fatal(err)
	}
	// A cancelled context is an error, not a silent empty scan.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.EachLine(cctx, h(0), h(24), func(*finops.BillingLine) error { return nil }); err == nil {
		t.Error("EachLine with a cancelled context succeeded")
	}
}

// TestLinesShareRepeatedValues: lines loaded for a period share equal tag
// sets, prices and strings instead of holding a copy each — what keeps a
// month of 200,000 lines small in memory — and stay equal by value.
func TestLinesShareRepeatedValues(t *testing.T) {
	h := func(hour int) time.Time { return utc(2025, 3, 1, hour, 0, 0) }
	var lines []*finops.BillingLine
	for i := 0; i < 3; i++ {
		l := usageLine(i+2, "i-shared", h(i), h(i+1), "1.006")
		l.Tags = map[string]string{"team": "nlp"}
		lines = append(lines, l)
	}
	s := openTest(t)
	mustImport(t, s, "shared.csv", feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: 3}, lines, nil, nil))
	got, err := s.Lines(context.Background(), h(0), h(24))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("lines = %d", len(got))
	}
	for _, l := range got[1:] {
		if reflect.ValueOf(l.Tags).Pointer() != reflect.ValueOf(got[0].Tags).Pointer() {
			t.Error("equal tag sets are separate maps")
		}
		if l.BilledCost == nil || l.BilledCost != got[0].BilledCost {
			t.Error("equal prices are separate decimals")
		}
		if l.Tags["team"] != "nlp" || l.BilledCost.String() != "1.006" || l.ResourceID != "i-shared" {
			t.Errorf("shared values changed: %+v", l)
		}
	}
}
