package e2e

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/store"
)

// TestReportOutlinesGiveTheSameResult: the weekly report's input loaded from
// the demo's database as GPU outlines, each GPU's minutes read from the store
// when the analysis reaches its resource, analyses — trends included — to
// exactly the result of the same input loaded with every GPU's minutes (the
// path the demo goldens were written from). The demo's week spans the
// compaction cut, and its trends (the week before, November to date) have
// task runs and idle GPUs to get wrong.
func TestReportOutlinesGiveTheSameResult(t *testing.T) {
	ctx := context.Background()
	c, win, st, _ := demoWeek(t)
	var res []*analysis.Result
	for _, opt := range []reportjob.Options{{Trends: true, HoldLines: math.MaxInt}, {Trends: true, Outlines: true, HoldLines: math.MaxInt}} {
		in, err := reportjob.Load(ctx, st, c, win, opt)
		if err != nil {
			t.Fatal(err)
		}
		if opt.Outlines && in.LoadSeries == nil {
			t.Fatal("outlines: no LoadSeries")
		}
		for _, g := range in.GPUs {
			if opt.Outlines && g.Len() > 2 {
				t.Fatalf("outlines: GPU %s has %d minutes, want its first and last", g.Key, g.Len())
			}
		}
		r, err := reportjob.Analyze(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, r)
	}
	whole, outlined := res[0], res[1]
	if whole.Totals.PreviousCost == 0 || len(whole.HourlyUtil) == 0 || !slices.ContainsFunc(whole.ByTeam, func(tc analysis.TeamCost) bool {
		return tc.MonthToDate > 0 && tc.PreviousCost > 0
	}) {
		t.Fatalf("the demo's week has no trends or hourly rows to compare: %+v", whole.Totals)
	}
	sameResult(t, "with outlines", outlined, whole)
}

// demoWeek is the demo's configuration and database (closed with the test)
// and the week its golden reports show, 2026-W48, which spans the
// compaction cut and has trends (the week before, November to date) with
// task runs and idle GPUs to get wrong. dir holds the demo's files.
func demoWeek(t *testing.T) (c *config.Config, win analysis.Window, st *store.Store, dir string) {
	t.Helper()
	out := t.TempDir()
	if code, stdout, stderr := runFinops(t, "demo", "--out", out); code != 0 {
		t.Fatalf("demo exit %d\n%s\n%s", code, stdout, stderr)
	}
	dir = filepath.Join(out, "demo-data")
	c, err := config.Load(filepath.Join(dir, "finops.yaml"), true, capped.ReadRegular)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := c.Location()
	if err != nil {
		t.Fatal(err)
	}
	if win, err = cli.ReportWindow(config.Period{Week: "2026-W48"}, now, loc); err != nil {
		t.Fatal(err)
	}
	if st, err = store.Open(context.Background(), filepath.Join(dir, "finops.db")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return c, win, st, dir
}

// sameResult fails t unless got is want. NaN (an unmonitored hour) is equal
// to nothing for reflect.DeepEqual: the hourly rows are compared bit for
// bit, the rest as it is.
func sameResult(t *testing.T, what string, got, want *analysis.Result) {
	t.Helper()
	if !slices.EqualFunc(want.HourlyUtil, got.HourlyUtil, func(a, b analysis.GPUHours) bool {
		return a.GPU == b.GPU && a.ResourceID == b.ResourceID && a.Start.Equal(b.Start) &&
			slices.EqualFunc(a.Util, b.Util, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
	}) {
		t.Errorf("%s: hourly utilization differs", what)
	}
	g, w := *got, *want
	g.HourlyUtil, w.HourlyUtil = nil, nil
	if !reflect.DeepEqual(&g, &w) {
		t.Errorf("%s:\n%+v\nwant\n%+v", what, &g, &w)
	}
}
