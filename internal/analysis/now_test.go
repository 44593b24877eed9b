package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// TestNow: the watch's view at 12:00 of three resources, hand-computed.
//
//	a: 2 GPUs billed $8 for 08:00–10:00 ($4 an hour). GPU 0 95 % until
//	   11:00 then 3 %; GPU 1 2 % from 10:00. Both idle at 11:59: idle since
//	   the later start, 11:00; last seen 12:00 (the 11:59 sample's minute ends then).
//	b: 1 GPU, a line with no cost: the catalog's $1.50 an hour. 95 % until
//	   11:45, then 2 %: a 15-minute dip is not idle (idle_min_span 30m). Its
//	   host's clock runs ahead: a sample stamped 12:10 is ignored and warned about.
//	c: 1 H100, no telemetry and no price: nothing known.
func TestNow(t *testing.T) {
	day := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	h := func(hh, mm int) time.Time {
		return day.Add(time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute)
	}
	now, from := h(12, 0), h(10, 0)
	lb := gpuLine("b", finops.ModeHourly, "0", h(8, 0), h(10, 0), 1)
	lb.EffectiveCost = nil
	lc := gpuLine("c", finops.ModeHourly, "0", h(8, 0), h(10, 0), 1)
	lc.EffectiveCost, lc.GPUModel = nil, "H100"
	a0 := series("gpu-a/0", "gpu-a", from, seg{60, 95}, seg{60, 3})
	a1 := series("gpu-a/1", "gpu-a", from, seg{120, 2})
	a1.Index = 1
	b0 := series("gpu-b/0", "gpu-b", from, seg{105, 95}, seg{15, 2}, seg{10, -1}, seg{1, 2})
	in := &Input{
		Lines: []finops.BillingLine{gpuLine("a", finops.ModeHourly, "8", h(8, 0), h(10, 0), 2), lb, lc},
		GPUs:  []finops.GPUSeries{a0, a1, b0},
		Resources: []Resource{{ID: "a", Hosts: []string{"gpu-a"}, Team: "nlp"}, {ID: "b", Hosts: []string{"gpu-b"}},
			{ID: "c", Team: "cv"}},
		Prices: []Price{{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeHourly, Price: 1.5, Currency: "USD"}},
		Params: DefaultParams(),
	}
	got, warnings, err := Now(in, from, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d resources: %+v", len(got), got)
	}
	a, b, c := got[0], got[1], got[2]
	if a.ID != "a" || a.Team != "nlp" || a.GPUs != 2 || a.Monitored != 2 || !a.IdleSince.Equal(h(11, 0)) || !a.LastSeen.Equal(h(12, 0)) {
		t.Errorf("a: %+v", a)
	}
	testnum.NearRel(t, "a rate", a.HourlyRate, 4, 1e-6)
	if a.RateFrom != "bill" || a.ConfigID != "a" {
		t.Errorf("a: rate from %q, config %q", a.RateFrom, a.ConfigID)
	}
	if b.ID != "b" || !b.IdleSince.IsZero() || !b.LastSeen.Equal(h(12, 0)) || b.RateFrom != "catalog" {
		t.Errorf("b: %+v", b)
	}
	testnum.NearRel(t, "b rate", b.HourlyRate, 1.5, 1e-6)
	if c.ID != "c" || c.Monitored != 0 || !c.LastSeen.IsZero() || !c.IdleSince.IsZero() || c.RateKnown {
		t.Errorf("c: %+v", c)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "gpu-b/0") || !strings.Contains(warnings[0], "2026-11-30T12:10:00Z") {
		t.Errorf("warnings %q: want one about gpu-b/0's sample at 12:10", warnings)
	}
}

// TestNowIdleAcrossGap: a GPU idle from 10:00, its exporter down 10:40–11:20,
// idle again until 12:00: the spell began at 10:00, not when telemetry came
// back (metrics.md §Gaps), and it was last seen at 12:00.
func TestNowIdleAcrossGap(t *testing.T) {
	from := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	s := series("gpu-a/0", "gpu-a", from, seg{40, 2}, seg{40, -1}, seg{40, 3})
	in := &Input{
		Lines:     []finops.BillingLine{gpuLine("a", finops.ModeHourly, "8", from.Add(-2*time.Hour), from, 1)},
		GPUs:      []finops.GPUSeries{s},
		Resources: []Resource{{ID: "a", Hosts: []string{"gpu-a"}}},
		Params:    DefaultParams(),
	}
	got, _, err := Now(in, from, from.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].IdleSince.Equal(from) || !got[0].LastSeen.Equal(from.Add(2*time.Hour)) {
		t.Errorf("%+v: want idle since 10:00, last seen 12:00", got)
	}
}
