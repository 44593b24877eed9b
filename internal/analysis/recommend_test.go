package analysis

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

var month0 = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)

// thirtyDays is a 30-day lookback ending where the report window (its last
// week) ends, so D = 30 and A30 = A.
func thirtyDays(lines []finops.BillingLine, s finops.GPUSeries, interruptible bool) *Input {
	end := month0.AddDate(0, 0, 30)
	return &Input{
		Window:    Window{Start: end.AddDate(0, 0, -7), End: end},
		Lookback:  Window{Start: month0, End: end},
		Lines:     lines,
		GPUs:      []finops.GPUSeries{s},
		Resources: []Resource{{ID: "card", Hosts: []string{"host"}, Interruptible: interruptible}},
		Prices: []Price{
			{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeHourly, Price: 10, Currency: "USD"},
			{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeMonthly, Price: 3000, Currency: "USD"},
			{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeSpot, Price: 4, Currency: "USD"},
		},
		Params: DefaultParams(),
	}
}

func monthly(cost string) []finops.BillingLine {
	return []finops.BillingLine{gpuLine("card", finops.ModeMonthly, cost, month0, month0.AddDate(0, 0, 30), 1)}
}

// sessions bills one hourly line per day for the hours the card is on.
func sessions(from, hours int, price float64) []finops.BillingLine {
	var out []finops.BillingLine
	for d := 0; d < 30; d++ {
		s := month0.AddDate(0, 0, d).Add(time.Duration(from) * time.Hour)
		out = append(out, gpuLine("card", finops.ModeHourly, ftoa(price*float64(hours)), s, s.Add(time.Duration(hours)*time.Hour), 1))
	}
	return out
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func TestRecommendations(t *testing.T) {
	for _, tc := range []struct {
		name          string
		in            *Input
		action        string
		current, reco float64
		a30           float64
	}{
		{
			// Monthly card (3,000) busy 3 h a day = 90 h/month. Hourly: 90 × 10 × 1.1 = 990.
			// Saving 3,000 − 990 = 2,010. Breakeven 3,000 / 11 = 272.7 h.
			name: "monthly card busy 90 h → hourly",
			in: thirtyDays(monthly("3000"), series("G", "host", month0,
				repeatDays(30, seg{180, 90}, seg{1260, 0})...), false),
			action: ActionSwitchToHourly, current: 3000, reco: 990, a30: 90,
		},
		{
			// Hourly card billed 24 h a day at 10 (7,200/month), busy 20 h a day = 600 h.
			// Hourly-released 600 × 11 = 6,600; monthly 3,000 → switch_to_monthly, saving 4,200.
			name: "hourly card busy 600 h → monthly",
			in: thirtyDays(sessions(0, 24, 10), series("G", "host", month0,
				repeatDays(30, seg{1200, 90}, seg{240, 0})...), false),
			action: ActionSwitchToMonthly, current: 7200, reco: 3000, a30: 600,
		},
		{
			// Hourly card on 10 h a day (300 h × 10 = 3,000), busy 8 h (240 h). Its
			// first billed minute is day 1 09:00, so D = 30 − 9/24 = 29.625 days and
			// everything scales by 30 / 29.625: current 3,037.97, A30 243.04.
			// Released when idle: A30 × 10 × 1.1 = 2,673.42 < monthly 3,000 → stop_when_idle.
			name: "hourly card left on idle → stop when idle",
			in: thirtyDays(sessions(9, 10, 10), series("G", "host", month0,
				repeatDays(30, seg{540, -1}, seg{60, 0}, seg{480, 85}, seg{60, 0}, seg{300, -1})...), false),
			action: ActionStopWhenIdle, current: 3000 * 30 / 29.625, reco: 240 * 30 / 29.625 * 11, a30: 240 * 30 / 29.625,
		},
		{
			// Interruptible batch work on hourly 12 h a day, all busy: 360 h × 10 = 3,600
			// over D = 30 − 8/24 = 29.6667 days (first billed 08:00) → ×30/29.6667:
			// current 3,640.45, A30 364.04. Spot A30 × 4 × 1.15 = 1,674.61 beats
			// monthly 3,000 and hourly-released A30 × 11 = 4,004 → switch_to_spot.
			name: "interruptible batch → spot",
			in: thirtyDays(sessions(8, 12, 10), series("G", "host", month0,
				repeatDays(30, seg{480, -1}, seg{720, 95}, seg{240, -1})...), true),
			action: ActionSwitchToSpot, current: 3600 * 30 / (30 - 8.0/24), reco: 360 * 30 / (30 - 8.0/24) * 4 * 1.15,
			a30: 360 * 30 / (30 - 8.0/24),
		},
		{
			// Same work, not interruptible: monthly 3,000 beats 3,640.45 → switch_to_monthly.
			name: "same batch not interruptible → not spot",
			in: thirtyDays(sessions(8, 12, 10), series("G", "host", month0,
				repeatDays(30, seg{480, -1}, seg{720, 95}, seg{240, -1})...), false),
			action: ActionSwitchToMonthly, current: 3600 * 30 / (30 - 8.0/24), reco: 3000, a30: 360 * 30 / (30 - 8.0/24),
		},
		{
			// A monthly card idle the whole lookback: A30 = 0 < 5 → release, saving all 3,000.
			name: "idle card → release",
			in: thirtyDays(monthly("3000"), series("G", "host", month0,
				repeatDays(30, seg{1440, 1})...), false),
			action: ActionRelease, current: 3000, reco: 0, a30: 0,
		},
		{
			// Monthly card busy 280 h: hourly 280 × 11 = 3,080 > 3,000 → keep.
			name: "near breakeven → keep",
			in: thirtyDays(monthly("3000"), series("G", "host", month0,
				repeatDays(30, seg{560, 90}, seg{880, 0})...), false),
			action: ActionKeep, current: 3000, reco: 3000, a30: 280,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Analyze(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Recommendations) != 1 {
				t.Fatalf("recommendations = %d", len(r.Recommendations))
			}
			got := r.Recommendations[0]
			if got.Action != tc.action {
				t.Errorf("action = %s, want %s (%s)", got.Action, tc.action, got.Reason)
			}
			testnum.NearRel(t, "current", got.CurrentMonthlyCost, tc.current, 1e-6)
			testnum.NearRel(t, "recommended", got.RecommendedMonthlyCost, tc.reco, 1e-6)
			testnum.NearRel(t, "savings", got.MonthlySavings, tc.current-tc.reco, 1e-6)
			testnum.NearRel(t, "A30", got.ActiveHoursPerMonth, tc.a30, 1e-6)
			testnum.NearRel(t, "breakeven", got.BreakevenHoursPerMonth, 3000.0/11, 1e-6)
			if got.Confidence != "high" {
				t.Errorf("confidence = %s, want high (30 days, fully monitored)", got.Confidence)
			}
			if got.Reason == "" {
				t.Error("empty reason")
			}
		})
	}
}

func TestDailyAndWeeklyOptions(t *testing.T) {
	// A monthly card (3,000) busy 12 h on the first two days of every 7-day
	// block of the 30-day lookback: days 0,1,7,8,14,15,21,22,28,29 = 10 busy
	// days in 5 blocks; A30 = 120 h.
	//   hourly 120 × 10 × 1.1 = 1,320; daily 10 × 100 = 1,000; weekly 5 × 400 = 2,000
	// → switch_to_daily, saving 2,000.
	var day []seg
	for d := 0; d < 30; d++ {
		if d%7 < 2 {
			day = append(day, seg{720, 90}, seg{720, 0})
		} else {
			day = append(day, seg{1440, 0})
		}
	}
	in := thirtyDays(monthly("3000"), series("G", "host", month0, day...), false)
	in.Prices = append(in.Prices,
		Price{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeDaily, Price: 100, Currency: "USD"},
		Price{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeWeekly, Price: 400, Currency: "USD"})
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	got := r.Recommendations[0]
	if got.Action != ActionSwitchToDaily {
		t.Fatalf("action = %s (%s), want switch_to_daily", got.Action, got.Reason)
	}
	testnum.NearRel(t, "recommended", got.RecommendedMonthlyCost, 1000, 1e-6)
	testnum.NearRel(t, "savings", got.MonthlySavings, 2000, 1e-6)
}

func TestSuspectSpotPrice(t *testing.T) {
	in := thirtyDays(monthly("3000"), series("G", "host", month0, repeatDays(30, seg{1440, 50})...), false)
	in.Prices = append(in.Prices, Price{Provider: "TestCloud", GPUModel: "A100-80GB", Mode: finops.ModeSpot,
		Price: 12, Currency: "USD", AsOf: "2026-11-01"})
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range r.DataQuality.Warnings {
		if strings.Contains(w, "spot 12 ≥ on-demand 10") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("suspect spot warnings = %d in %v, want 1", n, r.DataQuality.Warnings)
	}
}

// TestRecommendationCountsGapsAsBusy: a monthly card (3,000) whose
// telemetry stopped after a week, busy 3 h a day while it was watched. The
// 23 unwatched days may have been busy: advice counts them so (metrics.md
// §Coverage) and keeps the card, with low confidence, instead of switching
// it to hourly for the 21 h it saw (21 × 11 = 231: a made-up saving of
// 2,769).
//
// By hand: active 7 × 180 = 1,260 min; unmonitored 23 × 1,440 − 1 = 33,119
// min (the last sample, day 7 23:59, covers the next minute too); A30 =
// (1,260 + 33,119) / 60 = 572.98 h (D = 30). Hourly 572.98 × 11 = 6,302.8 >
// monthly 3,000 → keep.
func TestRecommendationCountsGapsAsBusy(t *testing.T) {
	r, err := Analyze(thirtyDays(monthly("3000"), series("G", "host", month0, repeatDays(7, seg{180, 90}, seg{1260, 0})...), false))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Recommendations) != 1 {
		t.Fatalf("recommendations = %d", len(r.Recommendations))
	}
	got := r.Recommendations[0]
	if got.Action != ActionKeep || got.MonthlySavings != 0 {
		t.Errorf("action = %s saving %.2f, want keep (%s)", got.Action, got.MonthlySavings, got.Reason)
	}
	testnum.NearRel(t, "A30", got.ActiveHoursPerMonth, (1260+33119)/60.0, 1e-6)
	if got.Confidence != "low" {
		t.Errorf("confidence = %s, want low (77 %% unmonitored)", got.Confidence)
	}
	if want := "busy at most 573 h/month per GPU (its 552 unmonitored GPU-hours counted as busy)"; !strings.Contains(got.Reason, want) {
		t.Errorf("reason %q lacks %q", got.Reason, want)
	}
}
