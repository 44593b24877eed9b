package analysis

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// streamed is in with its lines given by a LineStream instead of Lines,
// counting the walks. Each hands every line in one reused struct that it
// scribbles over once fn returns, as the store may: a line the analysis kept
// would show up in the result as "scribbled". Currencies and the extent are
// worked out here from the lines, not by the code under test.
func streamed(in *Input, walks *int) *Input {
	out := *in
	lines := in.Lines
	out.Lines = nil
	ls := &LineStream{Each: func(_ context.Context, fn func(*finops.BillingLine) error) error {
		*walks++
		var buf finops.BillingLine
		for _, l := range lines {
			buf = l
			if err := fn(&buf); err != nil {
				return err
			}
			buf = finops.BillingLine{ResourceID: "scribbled", ResourceName: "scribbled", GPUModel: "scribbled",
				Tags: map[string]string{"team": "scribbled"}}
		}
		return nil
	}}
	seen := map[string]bool{}
	for _, l := range lines {
		if c := strings.ToUpper(l.Currency); !seen[c] {
			seen[c] = true
			ls.Currencies = append(ls.Currencies, c)
		}
		end := l.ChargeEnd
		if end.Before(l.ChargeStart) {
			end = l.ChargeStart
		}
		if !ls.HasLines || l.ChargeStart.Before(ls.First) {
			ls.First = l.ChargeStart
		}
		if !ls.HasLines || end.After(ls.Last) {
			ls.Last = end
		}
		ls.HasLines = true
	}
	out.LineStream = ls
	return &out
}

// mixedLines bills two resources whose lines interleave — one of them an
// Azure id whose case changes, with two lines at its latest start that name
// it differently (the later line's name wins) — and lines that exercise every
// branch of the totals: another currency, no cost, a non-GPU line of a team,
// an unused commitment, a tax, a GPU the catalog does not know.
func mixedLines() []finops.BillingLine {
	const az = "/subscriptions/S/resourceGroups/G/providers/Microsoft.Compute/virtualMachines/vm-a"
	var out []finops.BillingLine
	for h := 0; h < 24; h++ {
		s := day0.Add(time.Duration(h) * time.Hour)
		out = append(out, gpuLine("gpu-1", finops.ModeHourly, "2.40", s, s.Add(time.Hour), 1))
		id := az
		if h%2 == 1 {
			id = strings.ToUpper(az)
		}
		l := gpuLine(id, finops.ModeHourly, "3.10", s, s.Add(time.Hour), 2)
		l.ResourceName, l.Tags = "vm-a", map[string]string{"team": "vision"}
		out = append(out, l)
	}
	last := day0.Add(23 * time.Hour)
	tie := gpuLine(az, finops.ModeHourly, "0.25", last, last.Add(time.Hour), 2)
	tie.ResourceName, tie.Currency, tie.Tags = "vm-a (renamed)", "eur", map[string]string{"team": "nlp"}
	noCost := gpuLine("gpu-1", finops.ModeHourly, "0", day0, day0.Add(time.Hour), 1)
	noCost.EffectiveCost = nil
	disk := finops.BillingLine{Provider: "TestCloud", ResourceID: "disk-1", ChargeStart: day0, ChargeEnd: day0.Add(24 * time.Hour),
		ChargeCategory: finops.ChargeUsage, EffectiveCost: dec("4.80"), Currency: "USD", Tags: map[string]string{"team": "vision"}}
	unused := disk
	unused.ResourceID, unused.CommitmentStatus, unused.EffectiveCost = "", "unused", dec("1.20")
	tax := disk
	tax.ResourceID, tax.ChargeCategory, tax.EffectiveCost, tax.Tags = "", finops.ChargeTax, dec("0.90"), nil
	unknown := disk
	unknown.ResourceID, unknown.Tags = "box-9", map[string]string{UnknownGPUTag: "z9.gpu"}
	return append(out, tie, noCost, disk, unused, tax, unknown)
}

// TestLineStreamGivesTheSameResult: an input whose lines are streamed
// analyses to exactly the result of the same input holding them in Lines
// (the expectation is that other path, whose numbers the rest of this
// package's tests check by hand). The stream is walked once per Analyze, its
// trends or not: the window and its two trend windows share the walk. The
// cases cross the trends, a window clipped to the lines' extent, mixed
// currencies and every kind of line the totals sort, and outlines.
func TestLineStreamGivesTheSameResult(t *testing.T) {
	mixed := func() *Input {
		in := oneDay()
		in.Lines = mixedLines()
		in.GPUs = append(in.GPUs, series("GPU-A0", "vm-a", day0, seg{600, 50}, seg{840, 2}),
			series("GPU-A1", "vm-a", day0, seg{1440, 97}))
		in.Params.Currency, in.Params.FX = "USD", map[string]decimal.Decimal{"EUR": decimal.RequireFromString("1.1")}
		in.Teams = []Team{{Name: "Vision", Tag: "vision"}}
		return in
	}
	for _, tc := range []struct {
		name     string
		in       func() *Input
		outlines bool
	}{
		{"one day with trends", oneDay, false}, // the window, the previous window, the month to date
		{"one day, no trends", func() *Input {
			in := oneDay()
			in.SkipTrends = true
			return in
		}, false},
		{"thirty days, spot", func() *Input {
			return thirtyDays(sessions(9, 8, 10), series("GPU-1", "host", month0, repeatDays(30, seg{540, 0}, seg{480, 90}, seg{420, -1})...), true)
		}, false},
		{"two resources, mixed lines and currencies", mixed, false},
		{"a window clipped to the lines", func() *Input {
			// The telemetry ends a day after the lines begin: only the lines'
			// extent, which the stream gives up front, keeps the end.
			in := mixed()
			in.SkipTrends = true
			in.Lines = append(in.Lines, gpuLine("gpu-1", finops.ModeHourly, "1", day0.AddDate(0, 0, 19), day0.AddDate(0, 0, 20), 1))
			in.Window.Start, in.Lookback.Start = day0.AddDate(0, 0, -60), day0.AddDate(0, 0, -60)
			in.Window.End, in.Lookback.End = day0.AddDate(0, 0, 40), day0.AddDate(0, 0, 40)
			return in
		}, false},
		{"with outlines", mixed, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := Analyze(tc.in())
			if err != nil {
				t.Fatal(err)
			}
			in, walks, loads := tc.in(), 0, 0
			if tc.outlines {
				in = outlined(t, in, &loads)
			}
			got, err := Analyze(streamed(in, &walks))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(withoutNaN(got), withoutNaN(want)) {
				t.Errorf("with a line stream:\n%+v\nwant\n%+v", got, want)
			}
			if walks != 1 {
				t.Errorf("%d walks over the lines, want 1", walks)
			}
		})
	}
}

// The mixed case's numbers, worked out by hand, so that it is known to
// cross what its lines are there for: gpu-1 24 × 2.40 = 57.60; vm-a 24 × 3.10
// = 74.40 and 0.25 EUR × 1.1 = 0.275; the disk 4.80, the unused commitment
// 1.20, the tax 0.90 and the unknown GPU 4.80; the line without a cost adds
// nothing. vm-a is named, spelt and teamed as its last line (the EUR one).
func TestLineStreamMixedLines(t *testing.T) {
	in := oneDay()
	in.Lines = mixedLines()
	in.SkipTrends = true
	in.Params.Currency, in.Params.FX = "USD", map[string]decimal.Decimal{"EUR": decimal.RequireFromString("1.1")}
	walks := 0
	r, err := Analyze(streamed(in, &walks))
	if err != nil {
		t.Fatal(err)
	}
	testnum.NearRel(t, "totals.cost", r.Totals.Cost, 57.60+74.40+0.275+4.80+1.20+0.90+4.80, 1e-6)
	testnum.NearRel(t, "totals.gpu_cost", r.Totals.GPUCost, 57.60+74.40+0.275, 1e-6)
	testnum.NearRel(t, "totals.other_charges", r.Totals.OtherCharges, 0.90, 1e-6)
	testnum.NearRel(t, "totals.unused_commitment_cost", r.Totals.UnusedCommitmentCost, 1.20, 1e-6)
	var vm *ResourceCost
	for i := range r.ByResource {
		if r.ByResource[i].ResourceName == "vm-a (renamed)" {
			vm = &r.ByResource[i]
		}
	}
	if vm == nil {
		t.Fatalf("no resource named as vm-a's last line in %+v", r.ByResource)
	}
	if want := "/subscriptions/S/resourceGroups/G/providers/Microsoft.Compute/virtualMachines/vm-a"; vm.ResourceID != want || vm.Team != "nlp" || vm.GPUCount != 2 {
		t.Errorf("vm-a = %s, team %s, %d GPUs; want %s, team nlp, 2 GPUs", vm.ResourceID, vm.Team, vm.GPUCount, want)
	}
	testnum.NearRel(t, "vm-a cost", vm.Cost, 74.40+0.275, 1e-6)
	warned := strings.Join(r.DataQuality.Warnings, "\n")
	for _, w := range []string{`1 billing lines look like GPU usage ("z9.gpu")`, "1 billing lines have neither EffectiveCost nor BilledCost"} {
		if !strings.Contains(warned, w) {
			t.Errorf("warnings %q lack %q", warned, w)
		}
	}
}

// A failed walk stops the analysis with its error; a line in a currency the
// stream did not list, with no rate, is refused rather than converted at
// none; Now
// refuses a stream (the watch holds its few lines).
func TestLineStreamErrors(t *testing.T) {
	walks := 0
	in := streamed(oneDay(), &walks)
	boom := errors.New("disk gone")
	in.LineStream.Each = func(context.Context, func(*finops.BillingLine) error) error { return boom }
	if _, err := Analyze(in); !errors.Is(err, boom) {
		t.Errorf("Analyze with a failing walk: %v, want %v", err, boom)
	}

	in = oneDay()
	in.Lines[5].Currency = "EUR"
	in = streamed(in, &walks)
	in.LineStream.Currencies = []string{"USD"} // so USD is the reporting currency, and EUR has no rate
	if _, err := Analyze(in); err == nil || !strings.Contains(err.Error(), "EUR") {
		t.Errorf("Analyze with a currency the stream did not list: %v, want an error naming EUR", err)
	}

	if _, _, err := Now(streamed(oneDay(), &walks), day0, day0.Add(time.Hour)); err == nil {
		t.Error("Now with a line stream: no error")
	}
}
