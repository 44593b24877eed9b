package analysis

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

// outlined is in with its GPUs replaced by outlines and a LoadSeries that
// gives each GPU's minutes from in, counting the loads.
func outlined(t *testing.T, in *Input, loads *int) *Input {
	t.Helper()
	out := *in
	out.GPUs = nil
	byKey := map[string]finops.GPUSeries{}
	for _, g := range in.GPUs {
		byKey[g.Key] = g
		first, last, ok := g.Span()
		if !ok {
			continue
		}
		o := finops.GPUSeries{Key: g.Key, Host: g.Host, UUID: g.UUID, Index: g.Index, Model: g.Model, Slice: g.Slice, Interval: g.Interval}
		o.SetSpan(first, last)
		out.GPUs = append(out.GPUs, o)
	}
	out.LoadSeries = func(_ context.Context, o *finops.GPUSeries) (finops.GPUSeries, error) {
		if o.Len() != 0 {
			t.Errorf("LoadSeries got %s with %d minutes, want an outline", o.Key, o.Len())
		}
		*loads++
		return byKey[o.Key], nil
	}
	return &out
}

// TestOutlinesGiveTheSameResult: an input whose GPUs are outlines, their
// minutes loaded resource by resource, analyses to exactly the result of the
// same input holding every minute (the expectation is that other path, whose
// numbers the rest of this package's tests check by hand). The cases cross
// the trends (a second and third analysis over the same outlines, which read
// no minutes: each GPU's are read once), a GPU no resource claims, and a
// window clipped to the data's span.
func TestOutlinesGiveTheSameResult(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    func() *Input
		loads int // GPU series read: once per GPU, by the window's analysis
	}{
		{"one day with trends", oneDay, 1},
		{"a week with trends over tasks and teams", func() *Input {
			start := time.Date(2026, 10, 26, 0, 0, 0, 0, time.UTC)
			return week45([]finops.GPUSeries{
				series("GPU-A", "gpu-2x", start, repeatDays(14, seg{720, -1}, seg{720, 2})...),
				gpuB(start, repeatDays(14, seg{600, 95}, seg{840, 4})...)})
		}, 2},
		{"one day, no trends nor hourly", func() *Input {
			in := oneDay()
			in.SkipTrends, in.SkipHourly = true, true
			return in
		}, 1},
		{"thirty days, spot", func() *Input {
			return thirtyDays(sessions(9, 8, 10), series("GPU-1", "host", month0, repeatDays(30, seg{540, 0}, seg{480, 90}, seg{420, -1})...), true)
		}, 1},
		{"a MIG-partitioned card billed by the card (mig_card.go)", func() *Input {
			in := oneDay()
			in.SkipTrends = true
			in.Lines = hourlyLines("dgx-a100-03", "3.50", day0, 24)
			in.GPUs = []finops.GPUSeries{
				migSeries("GPU-c", "dgx-a100-03", 1, 3, "3g.40gb", day0, seg{600, 90}, seg{300, -1}, seg{540, 4}),
				migSeries("GPU-c", "dgx-a100-03", 13, 1, "1g.10gb", day0, seg{900, 20}, seg{540, 2}),
			}
			return in
		}, 2},
		{"a GPU no resource claims", func() *Input {
			in := oneDay()
			in.SkipTrends = true
			in.GPUs = append(in.GPUs, series("GPU-X", "elsewhere", day0, seg{600, 40}))
			return in
		}, 2},
		{"a window clipped to the data", func() *Input {
			in := oneDay()
			in.SkipTrends = true
			in.Window.Start, in.Lookback.Start = day0.AddDate(0, 0, -60), day0.AddDate(0, 0, -60)
			in.Window.End, in.Lookback.End = day0.AddDate(0, 0, 30), day0.AddDate(0, 0, 30)
			return in
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := Analyze(tc.in())
			if err != nil {
				t.Fatal(err)
			}
			loads := 0
			got, err := Analyze(outlined(t, tc.in(), &loads))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(withoutNaN(got), withoutNaN(want)) {
				t.Errorf("with outlines:\n%+v\nwant\n%+v", got, want)
			}
			if loads != tc.loads {
				t.Errorf("%d series loads, want %d", loads, tc.loads)
			}
		})
	}
}

// withoutNaN is r for reflect.DeepEqual, to which NaN is never equal: its
// hourly utilization with -1 (no utilization is) for the unmonitored hours.
func withoutNaN(r *Result) *Result {
	c := *r
	c.HourlyUtil = slices.Clone(r.HourlyUtil)
	for i := range c.HourlyUtil {
		u := slices.Clone(c.HourlyUtil[i].Util)
		for h := range u {
			if math.IsNaN(u[h]) {
				u[h] = -1
			}
		}
		c.HourlyUtil[i].Util = u
	}
	return &c
}

// A failed load stops the analysis with its error; Now, which has no
// context to load with, refuses outlines rather than see idle GPUs.
func TestOutlineLoadErrors(t *testing.T) {
	loads := 0
	in := outlined(t, oneDay(), &loads)
	boom := errors.New("disk gone")
	in.LoadSeries = func(context.Context, *finops.GPUSeries) (finops.GPUSeries, error) {
		return finops.GPUSeries{}, boom
	}
	if _, err := Analyze(in); !errors.Is(err, boom) {
		t.Errorf("Analyze with a failing LoadSeries: %v, want %v", err, boom)
	}
	if _, _, err := Now(in, day0, day0.Add(time.Hour)); err == nil {
		t.Error("Now with outlines: no error")
	}
}
