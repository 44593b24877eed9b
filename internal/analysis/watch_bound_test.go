package analysis

import (
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// watchStop is a done stop of resource res at at, at rate CNY an hour.
func watchStop(res string, at time.Time, rate float64) WatchDecision {
	zero := 0
	return WatchDecision{DecidedAt: at, Finished: at, Resource: res, Action: "stop", Outcome: "done", ExitCode: &zero,
		Rate: rate, RateKnown: true, Currency: "CNY"}
}

// cnyLines are lines billed in CNY (the actions' currency, so no fx).
func cnyLines(ls []finops.BillingLine) []finops.BillingLine {
	for i := range ls {
		ls[i].Currency = "CNY"
	}
	return ls
}

// TestWatchSavingBound: a stop is credited with at most the hours between
// it and min(now, the last minute with data, the window's end) (metrics.md
// §What the watch saved; issue 33, point 7). Each expectation is worked out
// by hand below. Before the bound, the running week's stop ran to the
// window's end: 7 d − 8 h 28 min = 159 h 32 min × ¥12 = ¥1,914.40.
func TestWatchSavingBound(t *testing.T) {
	mon := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC) // Monday of 2026-W50
	at := func(day time.Time, hh, mm int) time.Time {
		return day.Add(time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute)
	}
	prevMon := mon.AddDate(0, 0, -7) // 2026-W49
	wed := prevMon.AddDate(0, 0, 2)  // its Wednesday, 2026-12-02
	for _, tc := range []struct {
		name  string
		win   Window
		now   time.Time
		lines []finops.BillingLine
		gpus  []finops.GPUSeries
		stop  time.Time
		until time.Time
		by    string
		hours float64
		saved float64
	}{
		{
			// The running week, at 08:35 on its Monday. gpu a: busy to 07:00,
			// idle 07:00–08:28, stopped (silent) at 08:28. b busy to 08:34
			// (its last sample covers 08:35, so data runs to 08:36). Both
			// billed by the hour to 09:00 (the current hour's line).
			name: "running week: 7 minutes since the stop", win: Window{Start: mon, End: mon.AddDate(0, 0, 7)},
			now:   at(mon, 8, 35),
			lines: cnyLines(append(hourlyLines("a", "12", mon, 9), hourlyLines("b", "12", mon, 9)...)),
			gpus: []finops.GPUSeries{
				series("a/0", "a", mon, seg{7 * 60, 50}, seg{88, 0}),
				series("b/0", "b", mon, seg{8*60 + 35, 50}),
			},
			stop: at(mon, 8, 28), until: at(mon, 8, 35), by: watchUntilNow,
			// 08:28 → 08:35 = 7 min = 7/60 h; × ¥12 = ¥1.40.
			hours: 7.0 / 60, saved: 1.40,
		},
		{
			// A past week whose data ends on Wednesday: billing to 10:00,
			// b's telemetry to 08:59 (covering 09:00, data to 09:01). a
			// stopped at 08:00; the report made the next Monday at 09:00.
			name: "past week: capped by the bill's end, not the window's", win: Window{Start: prevMon, End: mon},
			now:   at(mon, 9, 0),
			lines: cnyLines(append(hourlyLines("a", "12", prevMon, 2*24+10), hourlyLines("b", "12", prevMon, 2*24+10)...)),
			gpus: []finops.GPUSeries{
				series("a/0", "a", prevMon, seg{2*24*60 + 7*60, 50}, seg{60, 0}),
				series("b/0", "b", prevMon, seg{2*24*60 + 9*60, 50}),
			},
			stop: at(wed, 8, 0), until: at(wed, 10, 0), by: watchUntilData,
			// 08:00 → 10:00 = 2 h × ¥12 = ¥24.
			hours: 2, saved: 24,
		},
		{
			// The same, b's telemetry running to 10:29: its last sample
			// covers 10:30, so the data ends at 10:31, after the bill.
			name: "past week: capped by the telemetry's end", win: Window{Start: prevMon, End: mon},
			now:   at(mon, 9, 0),
			lines: cnyLines(append(hourlyLines("a", "12", prevMon, 2*24+10), hourlyLines("b", "12", prevMon, 2*24+10)...)),
			gpus: []finops.GPUSeries{
				series("a/0", "a", prevMon, seg{2*24*60 + 7*60, 50}, seg{60, 0}),
				series("b/0", "b", prevMon, seg{2*24*60 + 10*60 + 30, 50}),
			},
			stop: at(wed, 8, 0), until: at(wed, 10, 31), by: watchUntilData,
			// 08:00 → 10:31 = 2 h 31 min = 151/60 h × ¥12 = ¥30.20.
			hours: 151.0 / 60, saved: 30.20,
		},
		{
			// Data to the window's end and no clock: the window's end, as
			// before (a past week fully billed).
			name: "whole week billed, no clock: the window's end", win: Window{Start: prevMon, End: mon},
			lines: cnyLines(hourlyLines("a", "12", prevMon, 7*24)),
			gpus:  []finops.GPUSeries{series("a/0", "a", prevMon, seg{6*24*60 + 22*60, 0})},
			stop:  at(prevMon.AddDate(0, 0, 6), 22, 0), until: mon, by: watchUntilEnd,
			// Sunday 22:00 → Monday 00:00 = 2 h × ¥12 = ¥24.
			hours: 2, saved: 24,
		},
		{
			// A stop after the last minute with data saves nothing.
			name: "stop after the data: nothing", win: Window{Start: prevMon, End: mon},
			now:   at(mon, 9, 0),
			lines: cnyLines(hourlyLines("a", "12", prevMon, 10)),
			gpus:  []finops.GPUSeries{series("a/0", "a", prevMon, seg{9 * 60, 0})},
			stop:  at(prevMon, 12, 0), until: at(prevMon, 10, 0), by: watchUntilData,
			hours: 0, saved: 0,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &Input{Window: tc.win, Lookback: tc.win, Lines: tc.lines, GPUs: tc.gpus, Now: tc.now,
				Params: DefaultParams(), SkipTrends: true, Watch: &WatchInput{Actions: []WatchDecision{watchStop("a", tc.stop, 12)}}}
			res, err := Analyze(in)
			if err != nil {
				t.Fatal(err)
			}
			if res.Watch == nil || len(res.Watch.Actions) != 1 {
				t.Fatalf("watch %+v", res.Watch)
			}
			got := res.Watch.Actions[0]
			if !got.Until.Equal(tc.until) || got.UntilBy != tc.by || got.NextBusy {
				t.Errorf("until %s by %q (next busy %v), want %s by %q", got.Until, got.UntilBy, got.NextBusy, tc.until, tc.by)
			}
			testnum.NearRel(t, "hours", got.Hours, tc.hours, 1e-6)
			if got.Saved == nil {
				t.Fatal("no saving")
			}
			testnum.NearRel(t, "saved", *got.Saved, tc.saved, 1e-6)
			testnum.NearRel(t, "total saved", res.Watch.Saved, tc.saved, 1e-6)
		})
	}
}

// TestWatchSavingBoundGenerated checks the bound over random stops, clocks,
// bills, telemetry and rates: an action's saving is exactly
// rate × max(0, min(next busy, now, last data, window end) − stop) hours,
// and never more than rate × max(0, min(now, last data, window end) − stop).
// The last minute with data is worked out here from the generated records
// with plain minute arithmetic: a bill's end, or a sample's minute plus the
// one minute its 1-minute interval covers, plus that minute's length.
func TestWatchSavingBoundGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	day := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	win := Window{Start: day, End: day.Add(24 * time.Hour)}
	minute := func(m int) time.Time { return day.Add(time.Duration(m) * time.Minute) }
	bounds := map[string]int{} // what ended the savings: each kind must be drawn
	for c := 0; c < 400; c++ {
		rate := float64(rng.Intn(5000)+1) / 100 // ¥0.01–¥50.00 an hour
		stop := day.Add(time.Duration(rng.Int63n(int64(24 * time.Hour))))
		stopMin := int(stop.Sub(day) / time.Minute) // the stop's own minute
		ceilMin := stopMin
		if minute(stopMin).Before(stop) {
			ceilMin++
		}
		billEnd := day.Add(time.Duration(rng.Int63n(int64(30*time.Hour))) + time.Minute) // may run past the window
		lines := cnyLines([]finops.BillingLine{gpuLine("a", finops.ModeHourly, "1", day, billEnd, 1)})
		lastData := billEnd
		seen := func(lastSample int) { // a 1-minute sample covers its minute and the next
			if t := minute(lastSample + 2); t.After(lastData) {
				lastData = t
			}
		}
		var gpus []finops.GPUSeries
		var segs []seg // a's one GPU, minute by minute from the day's start
		// a: idle up to two minutes before the stop, sometimes.
		if rng.Intn(2) == 0 && stopMin >= 2 {
			segs = append(segs, seg{stopMin - 1, 0})
			seen(stopMin - 2)
		}
		// a: busy again at busyMin, sometimes (within the window).
		busyMin := -1
		if rng.Intn(2) == 0 {
			if b := ceilMin + rng.Intn(24*60); b < 24*60 {
				busyMin = b
				n := 1 + rng.Intn(min(120, 24*60-b))
				laid := 0
				if len(segs) > 0 {
					laid = segs[0].minutes
				}
				segs = append(segs, seg{b - laid, -1}, seg{n, 50})
				seen(b + n - 1)
			}
		}
		if len(segs) > 0 {
			gpus = append(gpus, series("a/0", "a", day, segs...))
		}
		// b: another resource's telemetry, busy, up to some minute.
		if rng.Intn(2) == 0 {
			n := 1 + rng.Intn(24*60)
			gpus = append(gpus, series("b/0", "b", day, seg{n, 50}))
			seen(n - 1)
		}
		var now time.Time // zero a quarter of the time: no clock
		if rng.Intn(4) != 0 {
			now = day.Add(time.Duration(rng.Int63n(int64(36 * time.Hour))))
		}
		act := watchStop("a", stop, rate)
		if rng.Intn(3) == 0 {
			act.Outcome, act.ExitCode, act.Finished = "dry-run", nil, time.Time{}
		}
		in := &Input{Window: win, Lookback: win, Lines: lines, GPUs: gpus, Now: now, Params: DefaultParams(),
			SkipTrends: true, SkipHourly: true, Watch: &WatchInput{Actions: []WatchDecision{act}}}
		res, err := Analyze(in)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		cap := win.End
		if lastData.Before(cap) {
			cap = lastData
		}
		if !now.IsZero() && now.Before(cap) {
			cap = now
		}
		until := cap
		if busyMin >= 0 && minute(busyMin).Before(until) {
			until = minute(busyMin)
		}
		want := rate * math.Max(0, until.Sub(stop).Hours())
		ceiling := rate * math.Max(0, cap.Sub(stop).Hours())
		got := res.Watch.Actions[0]
		if got.Saved == nil {
			t.Fatalf("case %d: no saving", c)
		}
		if math.Abs(*got.Saved-want) > 1e-9 || *got.Saved > ceiling+1e-9 {
			t.Fatalf("case %d: stop %s, now %s, bill to %s, data to %s, busy at minute %d, ¥%.2f/h: saved %.6f, want %.6f (at most %.6f); until %s by %q",
				c, stop.Format(time.TimeOnly), now, billEnd, lastData, busyMin, rate, *got.Saved, want, ceiling, got.Until, got.UntilBy)
		}
		bounds[got.UntilBy]++
	}
	for _, by := range []string{watchUntilBusy, watchUntilNow, watchUntilData, watchUntilEnd} {
		if bounds[by] < 10 {
			t.Errorf("only %d of the cases end by %q (%v): the generator misses a kind of bound", bounds[by], by, bounds)
		}
	}
}
