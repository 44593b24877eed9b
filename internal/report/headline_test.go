package report

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// kpiResult is a week with 1,000 of cost, 400 of it idle (100 unallocated +
// 300 allocated but idle), and two recommendations saving 250 a month.
func kpiResult() *analysis.Result {
	return &analysis.Result{
		Currency: "USD",
		Period: analysis.Period{Start: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
			TimeZone: "UTC", Label: "2026-W48"},
		Totals: analysis.Totals{Cost: 1000, GPUCost: 900, IdleCost: 400, UnallocatedCost: 100, AllocatedIdleCost: 300,
			GPUHoursBilled: 100, GPUHoursActive: 60, GPUHoursIdle: 40, AvgGPUUtilization: 45, MonthlySavings: 250},
		Recommendations: []analysis.Recommendation{
			{ResourceID: "gpu-b", Action: analysis.ActionStopWhenIdle, MonthlySavings: 50},
			{ResourceID: "gpu-a", Action: analysis.ActionSwitchToHourly, MonthlySavings: 200},
		},
	}
}

func TestHeadline(t *testing.T) {
	r := kpiResult()
	// By hand: 400 / 1000 = 40%; the largest saving is gpu-a's 200.
	want := "This week cost $1,000; $400 (40%) of it paid for idle GPUs. First: switch to hourly gpu-a ($200 a month). " +
		"All recommendations together save $250 a month."
	if got := headline(r); got != want {
		t.Errorf("headline =\n%s\nwant\n%s", got, want)
	}
	r.Period.Label = "2026-10-31_2026-11-30"
	r.Totals.IdleCost = 0
	r.Recommendations = nil
	want = "This period cost $1,000; no billed GPU sat idle. No change would save money at the current usage."
	if got := headline(r); got != want {
		t.Errorf("headline =\n%s\nwant\n%s", got, want)
	}
}

func TestKPICards(t *testing.T) {
	r := kpiResult()
	p, err := newPage(r, Meta{}, time.UTC, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Headline == "" {
		t.Error("page has no headline")
	}
	byLabel := map[string]kpiCard{}
	for _, k := range p.KPIs {
		byLabel[k.Label] = k
		if k.Period == "" {
			t.Errorf("card %q does not say its period", k.Label)
		}
	}
	// The idle cost's parts are inside its card, not cards of their own.
	for _, l := range []string{"Unallocated cost", "Allocated but idle"} {
		if _, ok := byLabel[l]; ok {
			t.Errorf("%q is a card of its own: it is part of the idle cost", l)
		}
	}
	idle := byLabel["Idle cost"]
	if len(idle.Parts) != 2 || idle.Parts[0].Value != "$100.00" || idle.Parts[1].Value != "$300.00" {
		t.Errorf("idle card parts = %+v, want unallocated $100.00 and allocated but idle $300.00", idle.Parts)
	}
	if got := byLabel["Total cost"].Period; got != "this week" {
		t.Errorf("total cost period = %q, want this week", got)
	}
	if got := byLabel["Savings available"].Period; got != "per month" {
		t.Errorf("savings period = %q, want per month", got)
	}
	if got := byLabel["Avg GPU utilization"].Value; got != "45.0%" {
		t.Errorf("utilization = %q, want 45.0%%", got)
	}

	// Nothing monitored: the average is not 0%, it is unknown.
	r.Totals.GPUHoursUnmonitored, r.Totals.AvgGPUUtilization = 100, 0
	p, err = newPage(r, Meta{}, time.UTC, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range p.KPIs {
		if k.Label == "Avg GPU utilization" && k.Value != unknownText {
			t.Errorf("utilization with nothing monitored = %q, want n/a", k.Value)
		}
	}
	// The email says the same.
	for _, k := range newEmailView(r, EmailOptions{}, "UTC", "").KPIs {
		if k.Label == "Avg GPU utilization" && (k.Value != unknownText || k.Note != noneMonitored) {
			t.Errorf("email utilization with nothing monitored = %q (%q), want n/a", k.Value, k.Note)
		}
	}
	var b strings.Builder
	if err := writeHTML(&b, r, Meta{}, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<p class="headline">This week cost $1,000;`, `of which idle, no task held`, `<span class="kpi-period">per month</span>`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestIdleCardParts: the idle card's parts add up to it. The team lead's
// incomplete week (telemetry died mid-week) had idle 5,084 and unallocated
// 7,676: the unallocated cost also counts the unmonitored minutes no task
// held, so it is no part of the idle cost.
func TestIdleCardParts(t *testing.T) {
	for _, tc := range []struct {
		name                        string
		idle, unallocated, allocIdl float64
		want                        []string // part values; none when nil
	}{
		// By hand: 5,084 − 1,000 allocated but idle = 4,084 idle no task held.
		{"telemetry died mid-week", 5084, 7676, 1000, []string{"$4,084.00", "$1,000.00"}},
		// By hand: 400 − 300 = 100, equal to the unallocated cost when every unheld minute was idle.
		{"every unheld minute idle", 400, 100, 300, []string{"$100.00", "$300.00"}},
		// No telemetry: idle is unknown, so it has no parts, however much no task held.
		{"idle unknown", 0, 900, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := kpiResult()
			r.Totals.IdleCost, r.Totals.UnallocatedCost, r.Totals.AllocatedIdleCost = tc.idle, tc.unallocated, tc.allocIdl
			p, err := newPage(r, Meta{}, time.UTC, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range p.KPIs {
				if k.Label != "Idle cost" {
					continue
				}
				var got []string
				for _, part := range k.Parts {
					got = append(got, part.Value)
				}
				if strings.Join(got, " ") != strings.Join(tc.want, " ") {
					t.Errorf("idle card %s parts = %v, want %v", k.Value, got, tc.want)
				}
			}
		})
	}
}
