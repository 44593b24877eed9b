package rollup

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/report"
	"github.com/finops-oss/finops/internal/testnum"
)

// TestCombineRefuses: shards that do not go together are refused, naming
// them and saying what to do.
func TestCombineRefuses(t *testing.T) {
	w47 := euShard()
	w47.Period.Start, w47.Period.End, w47.Period.Label = week.Start.AddDate(0, 0, -7), week.Start, "2026-W47"
	shanghai := cnShard()
	shanghai.Period.Start, shanghai.Period.End = week.Start.Add(-8*time.Hour), week.End.Add(-8*time.Hour)
	eur := cnShard()
	eur.Currency = "EUR"
	for _, c := range []struct {
		name   string
		shards []analysis.Result
		names  []string
		opt    Options
		want   []string
	}{
		{"different weeks", []analysis.Result{euShard(), w47}, []string{"eu", "old"}, Options{},
			[]string{"shard eu covers 2026-W48 (2026-11-23T00:00:00Z to 2026-11-30T00:00:00Z) and shard old 2026-W47 " +
				"(2026-11-16T00:00:00Z to 2026-11-23T00:00:00Z)", "report every shard with the same --week"}},
		{"the same week in another zone", []analysis.Result{cnShard(), shanghai}, []string{"cn", "sh"}, Options{},
			[]string{"shard cn covers 2026-W48", "and shard sh 2026-W48 (2026-11-22T16:00:00Z", "in the same timezone"}},
		{"one name twice", []analysis.Result{euShard(), cnShard()}, []string{"eu", "eu"}, Options{Rates: []Rate{usdcny(t)}},
			[]string{`two shards are named "eu"`, "name each with --name"}},
		{"mixed currencies, no rate", []analysis.Result{euShard(), cnShard()}, []string{"eu", "cn"}, Options{},
			[]string{"the shards are in 2 currencies (CNY: cn; USD: eu)", "--rate USD/CNY=<CNY per USD>",
				"currency: CNY and fx: {USD: <CNY per USD>}"}},
		{"a rate for another currency", []analysis.Result{euShard(), eur}, []string{"eu", "de"}, Options{Rates: []Rate{usdcny(t)}},
			[]string{"shard de is in EUR and the rollup in CNY, and no rate from EUR to CNY was given", "--rate EUR/CNY=<CNY per EUR>"}},
		{"the config's currency, no fx", []analysis.Result{euShard()}, []string{"eu"}, Options{Currency: "CNY"},
			[]string{"shard eu is in USD and the rollup in CNY", "fx: {USD: <CNY per USD>} with currency: CNY"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var shards []Shard
			for i, r := range c.shards {
				s, err := Decode(summaryBytes(t, r), c.names[i])
				if err != nil {
					t.Fatal(err)
				}
				s.Path = c.names[i] + ".json"
				shards = append(shards, s)
			}
			_, err := Combine(context.Background(), shards, c.opt)
			if err == nil || !IsRefusal(err) {
				t.Fatalf("err %v: want a refusal", err)
			}
			containsAll(t, "error", err.Error(), c.want...)
		})
	}
}

func usdcny(t *testing.T) Rate {
	t.Helper()
	r, err := ParseRate("USD/CNY=7.1")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestParseRate reads FROM/TO=VALUE and refuses anything else.
func TestParseRate(t *testing.T) {
	for _, c := range []struct{ in, want, refuse string }{
		{"USD/CNY=7.1", "USD/CNY=7.1", ""},
		{" usd / cny = 7.10 ", "USD/CNY=7.1", ""},
		{"USD/CNY", "", "no ="},
		{"USD=7.1", "", "two three-letter currency codes"},
		{"USD/USD=1", "", "the same"},
		{"USD/CNY=-7", "", "not a positive number"},
		{"USD/CNY=seven", "", "not a positive number"},
	} {
		r, err := ParseRate(c.in)
		if c.refuse != "" {
			if err == nil || !strings.Contains(err.Error(), c.refuse) || !strings.Contains(err.Error(), "--rate USD/CNY=7.1") {
				t.Errorf("%q: err %v, want %q and an example", c.in, err, c.refuse)
			}
			continue
		}
		if err != nil || r.String() != c.want {
			t.Errorf("%q: %v, %v; want %s", c.in, r, err, c.want)
		}
	}
}

// TestCombineWithRate: an USD shard and a CNY shard at --rate USD/CNY=7.1.
// By hand, eu in CNY (each amount × 7.1):
//
//	cost 710.00, gpu 639.00, non-GPU 71.00, idle 142.00, unmonitored 319.50
//	nlp 426.00 (gpu-a), vision 284.00; gpu-a idle span 142.00
//
// and with cn:
//
//	cost 710.00 + 500.00 = 1,210.00; gpu 639.00 + 500.00 = 1,139.00; idle 142.00
//	nlp 426.00 + 500.00 = 926.00 (both shards: a note); vision 284.00
//	billed 100 + 300 = 400 h; coverage (0.5 × 100 + 0 × 300) / 400 = 0.125
//	findings by money: gpu-c 500.00, gpu-b 213.00, gpu-a 142.00
func TestCombineWithRate(t *testing.T) {
	shards, err := load(t, map[string][]byte{"eu": summaryBytes(t, euShard()), "cn": summaryBytes(t, cnShard())}, "eu", "cn")
	if err != nil {
		t.Fatal(err)
	}
	// The rate the other way round (CNY/USD) is its inverse: the same result.
	inverse, err := ParseRate("CNY/USD=0.140845070422535211")
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{{Rates: []Rate{usdcny(t)}}, {Currency: "CNY", Rates: RatesFromFX("CNY", map[string]decimal.Decimal{"USD": usdcny(t).Value})}} {
		r, err := Combine(context.Background(), shards, opt)
		if err != nil {
			t.Fatal(err)
		}
		if r.Currency != "CNY" {
			t.Fatalf("currency %s, want CNY", r.Currency)
		}
		tot := r.Totals
		for _, f := range []struct {
			name      string
			got, want float64
		}{
			{"cost", tot.Cost, 1210}, {"gpu_cost", tot.GPUCost, 1139}, {"non_gpu_cost", tot.NonGPUCost, 71},
			{"idle_cost", tot.IdleCost, 142}, {"unmonitored_cost", tot.UnmonitoredCost, 319.5 + 500},
			{"gpu_hours_billed", tot.GPUHoursBilled, 400}, {"coverage", r.DataQuality.Coverage, 0.125},
			{"unmonitored_share", r.DataQuality.UnmonitoredShare, 350.0 / 400},
			// monitored: eu's 50 h at 40 %, cn none
			{"avg_gpu_utilization", tot.AvgGPUUtilization, 40},
			{"idle span", r.IdleSpans[0].Cost, 142},
			{"shard eu cost", r.Shards[0].Cost, 710}, {"shard cn cost", r.Shards[1].Cost, 500},
			{"shard eu monitored", r.Shards[0].GPUHoursMonitored, 50},
		} {
			testnum.Near(t, f.name, f.got, f.want, 1e-6)
		}
		teams := map[string]float64{}
		for _, tc := range r.ByTeam {
			teams[tc.Team] = tc.Cost
		}
		if len(teams) != 2 || r.ByTeam[0].Team != "nlp" {
			t.Errorf("teams %+v", r.ByTeam)
		}
		testnum.Near(t, "nlp", teams["nlp"], 926, 1e-6)
		testnum.Near(t, "vision", teams["vision"], 284, 1e-6)
		var order []string
		for _, f := range r.Findings {
			order = append(order, f.ResourceID)
		}
		if want := []string{"gpu-c", "gpu-b", "gpu-a"}; !slices.Equal(order, want) {
			t.Errorf("findings %q, want %q", order, want)
		}
		if s := r.Shards[0]; s.Name != "eu" || s.Currency != "USD" || s.Period != "2026-W48" || s.Incomplete {
			t.Errorf("shard row %+v", s)
		}
		want := "Team nlp appears in shards eu, cn: its costs are summed as one team. If they are different teams, rename one in its shard's config."
		if !slices.Contains(r.DataQuality.Warnings, want) {
			t.Errorf("warnings %q: want %q", r.DataQuality.Warnings, want)
		}
		if r.DataQuality.Sources[0].Name != "eu: lab" {
			t.Errorf("sources %+v: want each named with its shard", r.DataQuality.Sources)
		}
	}
	r, err := Combine(context.Background(), shards, Options{Currency: "CNY", Rates: []Rate{inverse}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, r, report.Meta{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"cost": 1210,`) {
		t.Errorf("the inverse rate: want a cost of 1210 to the cent in\n%.600s", buf.String())
	}
}
