package analysis

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

// TestOneWalkServesEveryWindow: the window and its two trend windows share
// one walk over the lines and the resources it groups, and each analysis
// then fills in a resource's GPUs, team and tasks. Finished from the shared
// walk, in the reverse of Analyze's order so that a window leaving its mark
// on a shared resource would show in the next, each window gives exactly
// what it gives walking the lines alone (the expectation: no sharing at
// all). The input is week45's half-monitored GPUs, whose trends
// TestTrendsReadNoMinutes checks by hand.
func TestOneWalkServesEveryWindow(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 10, 26, 0, 0, 0, 0, time.UTC)
	in := week45([]finops.GPUSeries{
		series("GPU-A", "gpu-2x", start, repeatDays(14, seg{720, -1}, seg{720, 2})...),
		gpuB(start, repeatDays(14, seg{600, 95}, seg{840, -1})...)})
	p := withDefaults(in.Params)
	// analyses are the window's, the previous window's and the month's, new.
	analyses := func(t *testing.T) []*windowAnalysis {
		win, err := newWindowAnalysis(in)
		if err != nil {
			t.Fatal(err)
		}
		prev, month, err := trendAnalyses(in, p)
		if err != nil {
			t.Fatal(err)
		}
		if month == nil {
			t.Fatal("week45 ends inside November: no month to date")
		}
		return []*windowAnalysis{win, prev, month}
	}

	shared := analyses(t)
	resources, err := walkLines(ctx, in, shared[0].a.conv, shared...)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]*Result, len(shared))
	for i := len(shared) - 1; i >= 0; i-- {
		if got[i], err = shared[i].finish(ctx, resources); err != nil {
			t.Fatal(err)
		}
	}
	for i, w := range analyses(t) {
		alone, err := walkLines(ctx, in, w.a.conv, w)
		if err != nil {
			t.Fatal(err)
		}
		want, err := w.finish(ctx, alone)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(withoutNaN(got[i]), withoutNaN(want)) {
			t.Errorf("%s from the shared walk:\n%+v\nwant, walked alone:\n%+v", w.a.in.Window.Start.Format(time.DateOnly), got[i], want)
		}
	}
}
