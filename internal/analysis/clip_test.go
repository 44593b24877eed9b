package analysis

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// TestAnalyzeClipsWindowToData: a window far longer than the data (a century,
// or from year 0) is analysed over the local days the data spans, with memory
// that follows the data; a normal week whose data stops a few days early keeps
// its period. Expected periods are worked out by hand from the records below
// (Shanghai is UTC+8 all year).
func TestAnalyzeClipsWindowToData(t *testing.T) {
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	utc := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	// Four hourly GPU lines, 2026-11-20 10:00–14:00 UTC = 18:00–22:00 in
	// Shanghai: one local day, Nov 20 +08 = [Nov 19 16:00, Nov 20 16:00) UTC.
	lines := hourlyLines("r1", "2.5", utc(2026, 11, 20, 10), 4)
	gpus := []finops.GPUSeries{series("g1", "h1", utc(2026, 11, 20, 10), seg{240, 50})}
	day20 := Window{Start: utc(2026, 11, 19, 16), End: utc(2026, 11, 20, 16)}
	end := utc(2026, 11, 30, 3) // Mon Nov 30 11:00 +08
	for _, tc := range []struct {
		name      string
		win       Window
		lines     []finops.BillingLine
		want      Window
		note      string // a part of the note; "" = no note
		wantCost  float64
		maxAllocs uint64 // bytes allocated by Analyze, 0 = unchecked
	}{
		// A century up to Nov 25 00:00 +08: only the start is clipped, the data
		// ending four days before the window does.
		{"century", Window{Start: utc(2026, 11, 24, 16).AddDate(0, 0, -36500), End: utc(2026, 11, 24, 16)}, lines,
			Window{Start: day20.Start, End: utc(2026, 11, 24, 16)}, "the report covers 2026-11-20 to 2026-11-24", 10, 50 << 20},
		{"from year 0", Window{Start: time.Date(0, 1, 1, 0, 0, 0, 0, sh).UTC(), End: time.Date(2101, 1, 1, 0, 0, 0, 0, sh).UTC()}, lines,
			day20, "the report covers 2026-11-20 to 2026-11-20", 10, 50 << 20},
		// 2026-W47 +08 is [Nov 15 16:00, Nov 22 16:00) UTC: the data stops two
		// days before the week ends, within the week's slack.
		{"lagging week", Window{Start: utc(2026, 11, 15, 16), End: utc(2026, 11, 22, 16)}, lines,
			Window{Start: utc(2026, 11, 15, 16), End: utc(2026, 11, 22, 16)}, "", 10, 0},
		{"no data", Window{Start: end.AddDate(0, 0, -36500), End: end}, nil,
			Window{Start: utc(2026, 11, 29, 16), End: end}, "holds no billing lines, telemetry or tasks: the report covers its last day, 2026-11-30", 0, 50 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			p.Location = sh
			in := &Input{Window: tc.win, Lookback: Window{Start: tc.win.End.Add(-30 * 24 * time.Hour), End: tc.win.End},
				Lines: tc.lines, Params: p}
			if tc.lines != nil {
				in.GPUs = gpus
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res, err := Analyze(in)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; tc.maxAllocs > 0 && got > tc.maxAllocs {
				t.Errorf("Analyze allocated %d MB, want under %d MB", got>>20, tc.maxAllocs>>20)
			}
			if !res.Period.Start.Equal(tc.want.Start) || !res.Period.End.Equal(tc.want.End) {
				t.Errorf("period [%v, %v), want [%v, %v)", res.Period.Start, res.Period.End, tc.want.Start, tc.want.End)
			}
			switch {
			case tc.note == "" && res.DataQuality.Clipped != "":
				t.Errorf("clipped a normal window: %s", res.DataQuality.Clipped)
			case tc.note != "" && !strings.Contains(res.DataQuality.Clipped, tc.note):
				t.Errorf("note %q, want it to contain %q", res.DataQuality.Clipped, tc.note)
			case tc.note != "" && (len(res.DataQuality.Warnings) == 0 || res.DataQuality.Warnings[0] != res.DataQuality.Clipped):
				t.Errorf("warnings %q do not begin with the note", res.DataQuality.Warnings)
			}
			// 4 lines × 2.5: clipping loses nothing that was billed.
			testnum.NearRel(t, "cost", res.Totals.Cost, tc.wantCost, 1e-6)
			testnum.NearRel(t, "billed GPU-hours", res.Totals.GPUHoursBilled, tc.wantCost/2.5, 1e-6)
		})
	}
}
