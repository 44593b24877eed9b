package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

var day0 = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

// oneDay is the calculator case: one GPU, one day, billed 2.40 an hour, so one
// GPU-minute costs 2.40 / 60 = 0.04.
//
//	00:00–08:00  480 min util 0   idle run ≥ 30 min        → idle
//	08:00–12:00  240 min util 80                           → active
//	12:00–12:20   20 min util 5   idle run < 30 min        → active
//	12:20–18:00  340 min util 90                           → active
//	18:00–20:00  no samples; the 17:59 sample covers 18:00 (60 s interval),
//	             18:01–20:00 = 119 min                     → unmonitored (+1 active)
//	20:00–24:00  240 min util 3                            → idle
//
// idle 720 min = 12 h → 28.80; active 240+20+340+1 = 601 min; unmonitored
// 119 min → 4.76; billed 1440 min = 24 h → 57.60.
// avg utilization over the 1321 monitored minutes:
// (240·80 + 20·5 + 341·90 + 240·3) / 1321 = 50710 / 1321 = 38.387585…
func oneDay() *Input {
	return &Input{
		Window:   Window{Start: day0, End: day0.Add(24 * time.Hour), Label: "2026-11-02"},
		Lookback: Window{Start: day0, End: day0.Add(24 * time.Hour)},
		Lines:    hourlyLines("gpu-1", "2.40", day0, 24),
		GPUs: []finops.GPUSeries{series("GPU-1", "gpu-1", day0,
			seg{480, 0}, seg{240, 80}, seg{20, 5}, seg{340, 90}, seg{120, -1}, seg{240, 3})},
		Params: DefaultParams(),
	}
}

func TestOneDayMinuteGrid(t *testing.T) {
	r, err := Analyze(oneDay())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ByResource) != 1 {
		t.Fatalf("resources = %d, want 1", len(r.ByResource))
	}
	got := r.ByResource[0]
	testnum.NearRel(t, "gpu_hours_billed", got.GPUHoursBilled, 24, 1e-6)
	testnum.NearRel(t, "gpu_hours_idle", got.GPUHoursIdle, 12, 1e-6)
	testnum.NearRel(t, "gpu_hours_active", got.GPUHoursActive, 601.0/60, 1e-6)
	testnum.NearRel(t, "gpu_hours_unmonitored", got.GPUHoursUnmonitored, 119.0/60, 1e-6)
	testnum.NearRel(t, "active+idle+unmonitored", got.GPUHoursActive+got.GPUHoursIdle+got.GPUHoursUnmonitored, got.GPUHoursBilled, 1e-6)
	testnum.NearRel(t, "cost", got.Cost, 57.60, 1e-6)
	testnum.NearRel(t, "idle_cost", got.IdleCost, 28.80, 1e-6)
	testnum.NearRel(t, "unmonitored_cost", got.UnmonitoredCost, 4.76, 1e-6)
	testnum.NearRel(t, "avg_utilization", got.AvgUtilization, 50710.0/1321, 1e-6)
	testnum.NearRel(t, "totals.cost", r.Totals.Cost, 57.60, 1e-6)
	testnum.NearRel(t, "totals.gpu_cost", r.Totals.GPUCost, 57.60, 1e-6)
	testnum.NearRel(t, "totals.idle_cost", r.Totals.IdleCost, 28.80, 1e-6)

	// Two idle spans: the night (8 h, 19.20) and the evening (4 h, 9.60).
	if len(r.IdleSpans) != 2 {
		t.Fatalf("idle spans = %+v, want 2", r.IdleSpans)
	}
	testnum.NearRel(t, "night span hours", r.IdleSpans[0].Hours, 8, 1e-6)
	testnum.NearRel(t, "night span cost", r.IdleSpans[0].Cost, 19.20, 1e-6)
	testnum.NearRel(t, "evening span cost", r.IdleSpans[1].Cost, 9.60, 1e-6)
	if !r.IdleSpans[1].Start.Equal(day0.Add(20 * time.Hour)) {
		t.Errorf("evening span starts %v, want 20:00", r.IdleSpans[1].Start)
	}
}

func TestIdleMinSpanBoundary(t *testing.T) {
	// A 29-minute dip is active, a 30-minute dip is idle (≥ idle_min_span).
	for _, tc := range []struct {
		dip      int
		wantIdle float64 // hours
	}{{29, 0}, {30, 0.5}, {31, 31.0 / 60}} {
		in := oneDay()
		in.GPUs = []finops.GPUSeries{series("GPU-1", "gpu-1", day0,
			seg{600, 50}, seg{tc.dip, 9.99}, seg{1440 - 600 - tc.dip, 50})}
		r, err := Analyze(in)
		if err != nil {
			t.Fatal(err)
		}
		testnum.NearRel(t, "idle hours", r.Totals.GPUHoursIdle, tc.wantIdle, 1e-6)
	}
}

func TestMonthlyLineSpreadOverMonth(t *testing.T) {
	// 4,320 for November (30 days = 43,200 minutes) is 0.10 a GPU-minute; one
	// day of it is 144.00 whatever the telemetry says.
	in := oneDay()
	nov := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	in.Lines = []finops.BillingLine{gpuLine("gpu-1", finops.ModeMonthly, "4320", nov, nov.AddDate(0, 1, 0), 1)}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	testnum.NearRel(t, "totals.cost", r.Totals.Cost, 144, 1e-6)
	testnum.NearRel(t, "resource cost", r.ByResource[0].Cost, 144, 1e-6)
	testnum.NearRel(t, "gpu_hours_billed", r.Totals.GPUHoursBilled, 24, 1e-6)
	testnum.NearRel(t, "idle cost", r.Totals.IdleCost, 720*0.10, 1e-6)
}

func TestUnmonitoredWhenNoTelemetry(t *testing.T) {
	in := oneDay()
	in.GPUs = nil
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	testnum.NearRel(t, "unmonitored hours", r.Totals.GPUHoursUnmonitored, 24, 1e-6)
	testnum.NearRel(t, "unmonitored cost", r.Totals.UnmonitoredCost, 57.60, 1e-6)
	testnum.NearRel(t, "idle cost", r.Totals.IdleCost, 0, 1e-6)
	if got := r.Recommendations[0]; got.Action != ActionKeep || got.Confidence != "low" || got.Reason != "no utilization data" {
		t.Errorf("recommendation without telemetry = %+v, want keep/low/no utilization data", got)
	}
	if len(r.DataQuality.Warnings) == 0 {
		t.Error("no data-quality warning for a GPU resource without telemetry")
	}
}

func TestTasksAndUnallocated(t *testing.T) {
	// train 08:00–12:00: 240 active minutes × 0.04 = 9.60 for 4 epochs → 2.40/epoch.
	// eval 19:00–22:00: 60 unmonitored + 120 idle minutes = 7.20, of which idle 4.80.
	// unallocated = 57.60 − 9.60 − 7.20 = 40.80.
	in := oneDay()
	in.TaskRuns = []finops.TaskRun{
		{Task: "train", Team: "nlp", Kind: "training", Resource: "gpu-1", Start: day0.Add(8 * time.Hour),
			End: day0.Add(12 * time.Hour), Units: dec("4"), Unit: "epoch"},
		{Task: "eval", Team: "cv", Kind: "inference", Resource: "GPU-1", Start: day0.Add(19 * time.Hour),
			End: day0.Add(22 * time.Hour)},
	}
	in.Teams = []Team{{Name: "nlp", MonthlyBudget: new(1000.0)}, {Name: "cv"}}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	tasks := map[string]TaskCost{}
	for _, tc := range r.Tasks {
		tasks[tc.Task] = tc
	}
	testnum.NearRel(t, "train cost", tasks["train"].Cost, 9.60, 1e-6)
	testnum.NearRel(t, "train unit cost", tasks["train"].UnitCost, 2.40, 1e-6)
	testnum.NearRel(t, "train gpu hours", tasks["train"].GPUHours, 4, 1e-6)
	testnum.NearRel(t, "eval cost", tasks["eval"].Cost, 7.20, 1e-6)
	testnum.NearRel(t, "eval idle cost", tasks["eval"].IdleCost, 4.80, 1e-6)
	testnum.NearRel(t, "unallocated", r.Totals.UnallocatedCost, 40.80, 1e-6)

	teams := map[string]TeamCost{}
	for _, tc := range r.ByTeam {
		teams[tc.Team] = tc
	}
	testnum.NearRel(t, "nlp cost", teams["nlp"].Cost, 9.60, 1e-6)
	testnum.NearRel(t, "cv cost", teams["cv"].Cost, 7.20, 1e-6)
	testnum.NearRel(t, "unassigned cost", teams[unassigned].Cost, 40.80, 1e-6)
	if teams["nlp"].Budget == nil || *teams["nlp"].Budget != 1000 {
		t.Errorf("nlp budget = %v, want 1000", teams["nlp"].Budget)
	}
}

// TestTasksOnlyOfTheWindow: the tasks are those with a run in the window,
// not every task the store holds (issue #27: 39 of 52 tasks at 0 from other
// weeks).
func TestTasksOnlyOfTheWindow(t *testing.T) {
	for _, tc := range []struct {
		name       string
		start, end time.Time
		want       bool
	}{
		{"the week before", day0.Add(-7 * 24 * time.Hour), day0.Add(-6 * 24 * time.Hour), false},
		{"ends as the window starts", day0.Add(-2 * time.Hour), day0, false},
		{"the next day", day0.Add(24 * time.Hour), day0.Add(26 * time.Hour), false},
		// By hand: 23:00 the day before to 01:00 holds the window's first 60 idle minutes, 60 × 0.04 = 2.40.
		{"straddles the window's start", day0.Add(-time.Hour), day0.Add(time.Hour), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := oneDay()
			in.Lookback.Start = day0.Add(-14 * 24 * time.Hour)
			in.TaskRuns = []finops.TaskRun{{Task: "other", Resource: "gpu-1", Start: tc.start, End: tc.end}}
			r, err := Analyze(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(r.Tasks) == 1; got != tc.want {
				t.Fatalf("tasks = %+v, want listed %v", r.Tasks, tc.want)
			}
			if tc.want {
				testnum.NearRel(t, "straddling run's cost", r.Tasks[0].Cost, 2.40, 1e-6)
			}
		})
	}
}

func TestSharedGPUMinutesSplitEvenly(t *testing.T) {
	// Two runs hold 08:00–09:00 together: each gets 60 × 0.04 / 2 = 1.20.
	in := oneDay()
	for _, name := range []string{"a", "b"} {
		in.TaskRuns = append(in.TaskRuns, finops.TaskRun{Task: name, Resource: "gpu-1",
			Start: day0.Add(8 * time.Hour), End: day0.Add(9 * time.Hour)})
	}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range r.Tasks {
		testnum.NearRel(t, tc.Task+" cost", tc.Cost, 1.20, 1e-6)
	}
	testnum.NearRel(t, "unallocated", r.Totals.UnallocatedCost, 57.60-2.40, 1e-6)
}

func TestCurrencyConversionAndMissingRate(t *testing.T) {
	in := oneDay()
	in.Params.Currency = "CNY"
	if _, err := Analyze(in); err == nil || !strings.Contains(err.Error(), "USD") {
		t.Fatalf("missing USD rate: err = %v, want an error naming USD", err)
	}
	in.Params.FX = map[string]decimal.Decimal{"USD": *dec("7.1")}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	testnum.NearRel(t, "cost in CNY", r.Totals.Cost, 57.60*7.1, 1e-6)
	if r.Currency != "CNY" {
		t.Errorf("currency = %s", r.Currency)
	}
	// The rate it converted with is in the result for the reports to show;
	// a configured rate nothing was in (EUR) is not.
	in.Params.FX["EUR"] = *dec("7.8")
	if r, err = Analyze(in); err != nil {
		t.Fatal(err)
	}
	if got := r.DataQuality.ExchangeRates; len(got) != 1 || got[0] != (ExchangeRate{Currency: "USD", Rate: 7.1}) {
		t.Errorf("exchange rates = %+v, want USD 7.1 alone", got)
	}
	// One currency: no rate used.
	in = oneDay()
	if r, err = Analyze(in); err != nil {
		t.Fatal(err)
	}
	if got := r.DataQuality.ExchangeRates; len(got) != 0 {
		t.Errorf("exchange rates of a bill in one currency = %+v, want none", got)
	}
}

func TestOtherChargesAndUnusedCommitments(t *testing.T) {
	// Tax 5.00 and a credit −3.00 count in cost but not in GPU cost; an unused
	// commitment of 10.00 is commitment waste.
	in := oneDay()
	in.Lines = append(in.Lines,
		finops.BillingLine{ChargeCategory: finops.ChargeTax, ChargeStart: day0, ChargeEnd: day0.Add(24 * time.Hour),
			EffectiveCost: dec("5.00"), Currency: "USD"},
		finops.BillingLine{ChargeCategory: finops.ChargeCredit, ChargeStart: day0, ChargeEnd: day0.Add(24 * time.Hour),
			EffectiveCost: dec("-3.00"), Currency: "USD"},
		finops.BillingLine{ChargeCategory: finops.ChargeUsage, CommitmentStatus: "unused", CommitmentID: "sp-1",
			ChargeStart: day0, ChargeEnd: day0.Add(24 * time.Hour), EffectiveCost: dec("10.00"), Currency: "USD"},
		// A line with null costs is a null, not a zero-cost row to count.
		finops.BillingLine{ChargeCategory: finops.ChargeUsage, ChargeStart: day0, ChargeEnd: day0.Add(time.Hour)},
	)
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	testnum.NearRel(t, "cost", r.Totals.Cost, 57.60+5-3+10, 1e-6)
	testnum.NearRel(t, "gpu cost", r.Totals.GPUCost, 57.60, 1e-6)
	testnum.NearRel(t, "non gpu", r.Totals.NonGPUCost, 12, 1e-6)
	testnum.NearRel(t, "other charges", r.Totals.OtherCharges, 2, 1e-6)
	testnum.NearRel(t, "unused commitment", r.Totals.UnusedCommitmentCost, 10, 1e-6)
}

func TestDeterministic(t *testing.T) {
	a, _ := Analyze(oneDay())
	b, _ := Analyze(oneDay())
	if len(a.IdleSpans) != len(b.IdleSpans) || a.Totals != b.Totals {
		t.Fatal("same input, different result")
	}
}

func TestUnknownGPUWarning(t *testing.T) {
	in := oneDay()
	in.Lines = append(in.Lines, finops.BillingLine{ChargeCategory: finops.ChargeUsage, ChargeStart: day0,
		ChargeEnd: day0.Add(time.Hour), EffectiveCost: dec("3"), Currency: "USD",
		Tags: map[string]string{UnknownGPUTag: "p9.mega"}})
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range r.DataQuality.Warnings {
		found = found || strings.Contains(w, `"p9.mega"`)
	}
	if !found {
		t.Errorf("no warning names the unknown GPU type: %v", r.DataQuality.Warnings)
	}
	testnum.NearRel(t, "non-GPU cost", r.Totals.NonGPUCost, 3, 1e-6)
}

func TestTaskDaily(t *testing.T) {
	// A two-day window; a run from day 1 20:00 to day 2 04:00 (8 h, 8 units)
	// splits 4 h / 4 units and 240 × 0.04 = 9.60 on each day.
	in := oneDay()
	in.Window.End = day0.Add(48 * time.Hour)
	in.Lookback.End = in.Window.End
	in.Lines = hourlyLines("gpu-1", "2.40", day0, 48)
	in.GPUs = []finops.GPUSeries{series("GPU-1", "gpu-1", day0, seg{2880, 60})}
	in.TaskRuns = []finops.TaskRun{{Task: "job", Resource: "gpu-1", Start: day0.Add(20 * time.Hour),
		End: day0.Add(28 * time.Hour), Units: dec("8"), Unit: "run"}}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.TaskDaily) != 2 {
		t.Fatalf("task days = %+v", r.TaskDaily)
	}
	for i, td := range r.TaskDaily {
		testnum.NearRel(t, "day cost", td.Cost, 9.60, 1e-6)
		testnum.NearRel(t, "day units", td.Units, 4, 1e-6)
		if !td.Day.Equal(day0.Add(time.Duration(i) * 24 * time.Hour)) {
			t.Errorf("day %d = %v", i, td.Day)
		}
	}
}
