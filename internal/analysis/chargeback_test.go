package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

// chargeBill is a day of five lines, 112.00 in all:
//
//	gpu-ml      GPU, team ml by the config's resources     48.00  project=llm   account A1
//	gpu-inf     GPU, tag team=infer                        24.00  project=chat  account A1
//	gpu-shared  GPU, no team; 1/60 a minute: 12 h at util 0 (idle), then
//	            12 h at util 90 (active)                   24.00  project=llm   account A1
//	disk        storage, tag team=data                     10.00  project=lake  account A2
//	tax         tax, no tags, no account                    6.00
//
// Direct cost: ml 48.00, infer 24.00, data 10.00, unassigned 30.00
// (gpu-shared 24.00 + tax 6.00). The unassigned team's idle is gpu-shared's
// 12 h × 1.00 = 12.00: the idle pool. The unallocated pool is the rest of
// the unassigned cost: 30.00 − 12.00 = 18.00.
func chargeBill(tax string) *Input {
	day := day0
	end := day.Add(24 * time.Hour)
	tagged := func(l finops.BillingLine, account string, tags ...string) finops.BillingLine {
		l.BillingAccount = account
		l.Tags = map[string]string{}
		for i := 0; i+1 < len(tags); i += 2 {
			l.Tags[tags[i]] = tags[i+1]
		}
		return l
	}
	disk := finops.BillingLine{Provider: "TestCloud", ResourceID: "disk-1", ChargeStart: day, ChargeEnd: end,
		ChargeCategory: finops.ChargeUsage, EffectiveCost: dec("10.00"), Currency: "USD"}
	taxLine := finops.BillingLine{Provider: "TestCloud", ChargeStart: day, ChargeEnd: end,
		ChargeCategory: finops.ChargeTax, EffectiveCost: dec(tax), Currency: "USD"}
	return &Input{
		Window:   Window{Start: day, End: end, Label: "2026-11-02"},
		Lookback: Window{Start: day, End: end},
		Lines: []finops.BillingLine{
			tagged(gpuLine("gpu-ml", finops.ModeHourly, "48.00", day, end, 1), "A1", "project", "llm"),
			tagged(gpuLine("gpu-inf", finops.ModeHourly, "24.00", day, end, 1), "A1", "team", "infer", "project", "chat"),
			tagged(gpuLine("gpu-shared", finops.ModeHourly, "24.00", day, end, 1), "A1", "project", "llm"),
			tagged(disk, "A2", "team", "data", "project", "lake"),
			taxLine,
		},
		GPUs:      []finops.GPUSeries{series("GPU-S", "gpu-shared", day, seg{720, 0}, seg{720, 90})},
		Resources: []Resource{{ID: "gpu-ml", Team: "ml"}},
		Teams:     []Team{{Name: "ml"}, {Name: "infer"}, {Name: "data"}},
		Params:    DefaultParams(),
	}
}

// cents is v in whole cents.
func cents(v float64) int64 { return int64(math.Round(v * 100)) }

func TestChargeback(t *testing.T) {
	type row struct{ direct, unal, idle, charged int64 } // cents
	for _, tc := range []struct {
		name  string
		tax   string // the tax line: the unallocated pool's non-GPU part
		rules ChargebackRules
		total int64
		pools [2]int64 // unallocated, idle
		want  map[string]row
	}{{
		// Weights are the direct costs 4800 : 2400 : 1000 (of 8200).
		// Unallocated 1800: 1053.66, 526.83, 219.51 → floors 1053, 526, 219
		// (1798); the 2 left go to the largest remainders, infer (.83) and ml
		// (.66): 1054, 527, 219.
		// Idle 1200: 702.44, 351.22, 146.34 → 702, 351, 146 (1199); the 1 left
		// to ml (.44): 703, 351, 146.
		name: "proportional", tax: "6.00",
		rules: ChargebackRules{Unallocated: SpreadProportional, Idle: SpreadProportional},
		total: 11200, pools: [2]int64{1800, 1200},
		want: map[string]row{
			"ml":         {4800, 1054, 703, 6557},
			"infer":      {2400, 527, 351, 3278},
			"data":       {1000, 219, 146, 1365},
			"unassigned": {3000, -1800, -1200, 0},
		},
	}, {
		// 1800 / 3 = 600 and 1200 / 3 = 400 each.
		name: "even", tax: "6.00",
		rules: ChargebackRules{Unallocated: SpreadEven, Idle: SpreadEven},
		total: 11200, pools: [2]int64{1800, 1200},
		want: map[string]row{
			"ml":         {4800, 600, 400, 5800},
			"infer":      {2400, 600, 400, 3400},
			"data":       {1000, 600, 400, 2000},
			"unassigned": {3000, -1800, -1200, 0},
		},
	}, {
		name: "named teams", tax: "6.00",
		rules: ChargebackRules{Unallocated: "team:data", Idle: "team:ML"},
		total: 11200, pools: [2]int64{1800, 1200},
		want: map[string]row{
			"ml":         {4800, 0, 1200, 6000},
			"infer":      {2400, 0, 0, 2400},
			"data":       {1000, 1800, 0, 2800},
			"unassigned": {3000, -1800, -1200, 0},
		},
	}, {
		// Idle none: the idle pool stays with unassigned; the unallocated pool
		// goes as in "proportional".
		name: "idle kept", tax: "6.00",
		rules: ChargebackRules{Unallocated: SpreadProportional, Idle: SpreadNone},
		total: 11200, pools: [2]int64{1800, 1200},
		want: map[string]row{
			"ml":         {4800, 1054, 0, 5854},
			"infer":      {2400, 527, 0, 2927},
			"data":       {1000, 219, 0, 1219},
			"unassigned": {3000, -1800, 0, 1200},
		},
	}, {
		// Tax 82.00: unassigned 24.00 + 82.00 = 106.00, the unallocated pool
		// 106.00 − 12.00 = 94.00, and 100.00 with the idle pool, both spread
		// evenly over three teams: 9400 / 3 = 3133.33 and 1200 / 3 = 400.
		// The 1 cent left of 9400 (3133 × 3 = 9399) goes to the first of
		// the equal remainders in by_team's order (cost, largest first): ml.
		// Bill 48 + 24 + 24 + 10 + 82 = 188.00.
		name: "awkward even split", tax: "82.00",
		rules: ChargebackRules{Unallocated: SpreadEven, Idle: SpreadEven},
		total: 18800, pools: [2]int64{9400, 1200},
		want: map[string]row{
			"ml":         {4800, 3134, 400, 8334},
			"infer":      {2400, 3133, 400, 5933},
			"data":       {1000, 3133, 400, 4533},
			"unassigned": {10600, -9400, -1200, 0},
		},
	}, {
		// Tax 64.00: unassigned 88.00, unallocated pool 76.00, and with idle
		// 88.00 spread in proportion to 4800 : 2400 : 1000.
		// Unallocated 7600: 4448.78, 2224.39, 926.83 → 4448, 2224, 926 (7598);
		// +1 to data (.83) and ml (.78): 4449, 2224, 927.
		// Idle 1200: 703, 351, 146 as in "proportional".
		// Bill 48 + 24 + 24 + 10 + 64 = 170.00.
		name: "awkward proportional split", tax: "64.00",
		rules: ChargebackRules{Unallocated: SpreadProportional, Idle: SpreadProportional},
		total: 17000, pools: [2]int64{7600, 1200},
		want: map[string]row{
			"ml":         {4800, 4449, 703, 9952},
			"infer":      {2400, 2224, 351, 4975},
			"data":       {1000, 927, 146, 2073},
			"unassigned": {8800, -7600, -1200, 0},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			in := chargeBill(tc.tax)
			in.Params.Chargeback = tc.rules
			r, err := Analyze(in)
			if err != nil {
				t.Fatal(err)
			}
			cb := r.Chargeback
			if cb == nil {
				t.Fatal("no chargeback")
			}
			if got := cents(cb.Total); got != tc.total || got != cents(r.Totals.Cost) {
				t.Errorf("total = %d cents, totals.cost %d cents, want %d", got, cents(r.Totals.Cost), tc.total)
			}
			if p := [2]int64{cents(cb.UnallocatedPool), cents(cb.IdlePool)}; p != tc.pools {
				t.Errorf("pools (unallocated, idle) = %v, want %v", p, tc.pools)
			}
			var sum int64
			for _, tr := range cb.Teams {
				sum += cents(tr.ChargedBack)
				got := row{cents(tr.Direct), cents(tr.Unallocated), cents(tr.Idle), cents(tr.ChargedBack)}
				if want, ok := tc.want[tr.Team]; !ok || got != want {
					t.Errorf("%s: %+v, want %+v", tr.Team, got, want)
				}
			}
			if len(cb.Teams) != len(tc.want) {
				t.Errorf("%d rows, want %d: %+v", len(cb.Teams), len(tc.want), cb.Teams)
			}
			if sum != tc.total {
				t.Errorf("charged back adds up to %d cents, want the bill %d", sum, tc.total)
			}
		})
	}
}

// TestChargebackNoneIsToday: with both rules none (the default) there is
// no chargeback key.
func TestChargebackNoneIsToday(t *testing.T) {
	for _, rules := range []ChargebackRules{{}, {Unallocated: SpreadNone, Idle: SpreadNone}} {
		in := chargeBill("6.00")
		in.Params.Chargeback = rules
		r, err := Analyze(in)
		if err != nil {
			t.Fatal(err)
		}
		if r.Chargeback != nil || r.Allocation != nil {
			t.Errorf("%+v: chargeback %+v, allocation %+v; want neither", rules, r.Chargeback, r.Allocation)
		}
	}
}

// TestChargebackNobodyToSpreadTo: a bill with no team but unassigned keeps
// its pools there, and says so.
func TestChargebackNobodyToSpreadTo(t *testing.T) {
	in := oneDay() // 57.60 on gpu-1, no team; 28.80 of it idle
	in.Params.Chargeback = ChargebackRules{Unallocated: SpreadEven, Idle: SpreadProportional}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	cb := r.Chargeback
	if len(cb.Teams) != 1 || cents(cb.Teams[0].ChargedBack) != 5760 || cents(cb.Teams[0].Idle) != 0 {
		t.Errorf("teams = %+v, want unassigned keeping 57.60", cb.Teams)
	}
	if n := strings.Count(strings.Join(r.DataQuality.Warnings, "\n"), "no team to spread"); n != 2 {
		t.Errorf("warnings %q: want both pools said to stay", r.DataQuality.Warnings)
	}
}

func TestRoundToTotal(t *testing.T) {
	for _, tc := range []struct {
		total   int64
		amounts []float64
		want    []int64
	}{
		{10000, []float64{10000.0 / 3, 10000.0 / 3, 10000.0 / 3}, []int64{3334, 3333, 3333}}, // ties: the first
		{-10000, []float64{-10000.0 / 3, -10000.0 / 3, -10000.0 / 3}, []int64{-3333, -3333, -3334}},
		{100, []float64{33.5, 33.4, 33.1}, []int64{34, 33, 33}},
		// The floors add up to 101, over the total: the smallest remainder gives one back.
		{100, []float64{51.3, 50.2}, []int64{51, 49}},
		{5, []float64{1, 1}, []int64{3, 2}}, // a difference larger than the amounts goes round again
		{0, nil, []int64{}},
	} {
		got := roundToTotal(tc.total, tc.amounts)
		if len(got) != len(tc.want) {
			t.Errorf("roundToTotal(%d, %v) = %v, want %v", tc.total, tc.amounts, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("roundToTotal(%d, %v) = %v, want %v", tc.total, tc.amounts, got, tc.want)
				break
			}
		}
	}
}

// TestChargebackOwnIdleStays: gpu-ml, ml's own resource, idles 6 of its 24
// hours (48.00 a day is 2.00 an hour: 12.00 idle). That idle is in ml's
// direct cost and stays there: the report's idle is 12.00 + 12.00 = 24.00,
// but the idle pool is still gpu-shared's 12.00 alone, spread evenly as
// 400 cents a team, ml included, and ml's charged back is the same as
// without its idle (5800 cents, as in TestChargeback's "even").
func TestChargebackOwnIdleStays(t *testing.T) {
	in := chargeBill("6.00")
	in.GPUs = append(in.GPUs, series("GPU-M", "gpu-ml", day0, seg{360, 0}, seg{1080, 90}))
	in.Params.Chargeback = ChargebackRules{Unallocated: SpreadEven, Idle: SpreadEven}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := cents(r.Totals.IdleCost); got != 2400 {
		t.Errorf("totals.idle_cost = %d cents, want 2400", got)
	}
	cb := r.Chargeback
	if got := cents(cb.IdlePool); got != 1200 {
		t.Errorf("idle pool = %d cents, want 1200 (gpu-shared's only)", got)
	}
	for _, tr := range cb.Teams {
		if tr.Team != "ml" {
			continue
		}
		if got := [3]int64{cents(tr.Direct), cents(tr.Idle), cents(tr.ChargedBack)}; got != [3]int64{4800, 400, 5800} {
			t.Errorf("ml (direct, idle share, charged back) = %v, want [4800 400 5800]", got)
		}
	}
	for _, tc := range r.ByTeam {
		if tc.Team == "ml" && cents(tc.IdleCost) != 1200 {
			t.Errorf("ml's own idle = %d cents, want 1200", cents(tc.IdleCost))
		}
	}
}
