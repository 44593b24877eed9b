package e2e

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/reportjob"
)

// TestReportHoldsOrStreamsItsLines: the weekly report holds its range's
// billing lines up to holdLines and streams them above it, and the demo's
// week analyses — trends included — to exactly the same result both ways
// (the expectation: the held path, the one the demo goldens were written
// from), the stream walked once for the three windows. The threshold is set
// around the range's own count (len(Lines) when held, which store's tests
// check against LineSummary's Count) so that one line decides.
func TestReportHoldsOrStreamsItsLines(t *testing.T) {
	ctx := context.Background()
	c, win, st, dir := demoWeek(t)
	load := func(hold int) *analysis.Input {
		t.Helper()
		in, err := reportjob.Load(ctx, st, c, win, reportjob.Options{Trends: true, Outlines: true, HoldLines: hold})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	held := load(math.MaxInt)
	n := len(held.Lines)
	if n == 0 || held.LineStream != nil {
		t.Fatalf("held: %d lines, stream %v", n, held.LineStream != nil)
	}
	want, err := reportjob.Analyze(ctx, held)
	if err != nil {
		t.Fatal(err)
	}
	if want.Totals.PreviousCost == 0 || !strings.Contains(want.Period.Label, "W48") {
		t.Fatalf("the demo's week has no trends to compare: %+v", want.Totals)
	}
	for _, tc := range []struct {
		name     string
		hold     int
		streamed bool
	}{
		{"as many as the range holds", n, false},
		{"one fewer", n - 1, true},
		{"the report's threshold", reportjob.HoldLines, n > reportjob.HoldLines},
		{"none (the review's)", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := load(tc.hold)
			if streamed := in.LineStream != nil; streamed != tc.streamed || streamed != (in.Lines == nil) {
				t.Fatalf("holdLines %d of %d lines: %d held, streamed %v; want streamed %v", tc.hold, n, len(in.Lines), streamed, tc.streamed)
			}
			walks := 0
			if in.LineStream != nil {
				each := in.LineStream.Each
				in.LineStream.Each = func(ctx context.Context, fn func(*finops.BillingLine) error) error {
					walks++
					return each(ctx, fn)
				}
			}
			got, err := reportjob.Analyze(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			sameResult(t, tc.name, got, want)
			if tc.streamed && walks != 1 {
				t.Errorf("%d walks over the lines for the window and its trends, want 1", walks)
			}
		})
	}

	// Through the command line: --hold-lines 0 streams, and the report's
	// JSON is the same byte for byte; a negative count is a usage error.
	report := func(args ...string) []byte {
		t.Helper()
		out := t.TempDir()
		args = append([]string{"--config", filepath.Join(dir, "finops.yaml"), "--db", filepath.Join(dir, "finops.db")}, args...)
		if code, stdout, stderr := runFinops(t, append(args, "report", "--week", "2026-W48", "--format", "json", "--out", out)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "finops-2026-W48.json"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := report(), report("--hold-lines", "0"); !bytes.Equal(a, b) {
		t.Error("the report's JSON differs with --hold-lines 0")
	}
	code, _, stderr := runFinops(t, "--config", filepath.Join(dir, "finops.yaml"), "--db", filepath.Join(dir, "finops.db"),
		"--hold-lines", "-1", "report", "--week", "2026-W48", "--out", t.TempDir())
	if code != cli.ExitUsage || !strings.Contains(stderr, "--hold-lines -1") {
		t.Errorf("--hold-lines -1: exit %d, %q; want %d naming the flag", code, stderr, cli.ExitUsage)
	}
}
