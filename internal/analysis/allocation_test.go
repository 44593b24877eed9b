package analysis

import (
	"fmt"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// TestAllocation groups chargeBill (112.00) by each dimension; the tax line
// has no tag and no account, so it falls in "(untagged)":
//
//	tag:project  llm 48 + 24 = 72.00, chat 24.00, lake 10.00, (untagged) 6.00
//	account      A1 48 + 24 + 24 = 96.00, A2 10.00, (untagged) 6.00
//	provider     TestCloud 112.00
//	team         ml 48.00, unassigned 30.00, infer 24.00, data 10.00
//	tag:nobody   (untagged) 112.00
func TestAllocation(t *testing.T) {
	in := chargeBill("6.00")
	in.Params.GroupBy = []string{"tag:project", "account", "provider", "team", "tag:nobody"}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"tag:project: llm 7200, chat 2400, lake 1000, (untagged) 600",
		"account: A1 9600, A2 1000, (untagged) 600",
		"provider: TestCloud 11200",
		"team: ml 4800, unassigned 3000, infer 2400, data 1000",
		"tag:nobody: (untagged) 11200",
	}
	if len(r.Allocation) != len(want) {
		t.Fatalf("%d dimensions, want %d: %+v", len(r.Allocation), len(want), r.Allocation)
	}
	for i, al := range r.Allocation {
		got := al.Dimension + ":"
		var sum int64
		var share float64
		for j, g := range al.Groups {
			if j > 0 {
				got += ","
			}
			got += fmt.Sprintf(" %s %d", g.Value, cents(g.Cost))
			sum += cents(g.Cost)
			share += g.Share
		}
		if got != want[i] {
			t.Errorf("got  %s\nwant %s", got, want[i])
		}
		if sum != 11200 {
			t.Errorf("%s: groups add up to %d cents, want the bill 11200", al.Dimension, sum)
		}
		testnum.NearRel(t, al.Dimension+" shares", share, 1, 1e-6)
	}
	if r.Chargeback != nil {
		t.Errorf("chargeback %+v without rules", r.Chargeback)
	}
}

// TestAllocationCapsGroups: a tag with a value per line (a request id)
// keeps the 499 largest values and folds the rest into one group, which
// still adds up: 600 lines of 1.00 … 6.99 (line i costs 100 + i cents), the
// 101 cheapest (1.00 … 2.00) in "(other) 101 values" = Σ (100 + i) cents for
// i in 0…100 = 10100 + 5050 = 15150, the largest group; then req-599, 6.99.
func TestAllocationCapsGroups(t *testing.T) {
	var lines []finops.BillingLine
	for i := range 600 {
		l := finops.BillingLine{Provider: "TestCloud", ChargeStart: day0, ChargeEnd: day0.Add(time.Hour),
			ChargeCategory: finops.ChargeUsage, EffectiveCost: dec(fmt.Sprintf("%d.%02d", 1+i/100, i%100)),
			Currency: "USD", Tags: map[string]string{"request": fmt.Sprintf("req-%03d", i)}}
		lines = append(lines, l)
	}
	in := &Input{Window: Window{Start: day0, End: day0.Add(24 * time.Hour)}, Lines: lines, Params: DefaultParams()}
	in.Params.GroupBy = []string{"tag:request"}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	g := r.Allocation[0].Groups
	if len(g) != maxGroups {
		t.Fatalf("%d groups, want %d", len(g), maxGroups)
	}
	var sum int64
	for _, x := range g {
		sum += cents(x.Cost)
	}
	if g[0].Value != "(other) 101 values" || cents(g[0].Cost) != 15150 || g[1].Value != "req-599" || cents(g[1].Cost) != 699 {
		t.Errorf("first groups %+v, want (other) 101 values 151.50 and req-599 6.99", g[:2])
	}
	// Σ (100 + i) for i in 0…599 = 60000 + 179700 = 239700.
	if sum != 239700 {
		t.Errorf("groups add up to %d cents, want 239700", sum)
	}
}
