package store

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/shopspring/decimal"
)

// The fixture: one FOCUS billing file (3 lines, one rejected row), one
// nvidia-smi file (2 samples of one GPU) and one tasks file (1 run).

var ist = time.FixedZone("IST", 5*3600+1800) // +05:30: times must come back UTC

func fixtureLines() []*finops.BillingLine {
	return []*finops.BillingLine{
		{
			Line: 2, Provider: "AWS", BillingAccount: "123456789012", SubAccount: "ml-dev",
			ChargeStart: utc(2025, 3, 1, 0, 0, 0), ChargeEnd: utc(2025, 3, 1, 1, 0, 0),
			ChargeCategory: finops.ChargeUsage, ChargeFrequency: "usage-based", PricingCategory: "standard",
			PricingMode: finops.ModeHourly, CommitmentStatus: "used", CommitmentID: "sp-1",
			ResourceID: "i-0abc", ResourceName: "trainer-1", ResourceType: "instance", Service: "Amazon EC2",
			SKU: "ABCD-1234", InstanceType: "p4d.24xlarge", Region: "us-east-1",
			GPUModel: "A100-40GB", GPUCount: 8,
			BilledCost: dec("32.77260000"), EffectiveCost: dec("30.00000000001"), ListCost: dec("40.96"),
			Currency: "USD", UsageQuantity: dec("1.000"), UsageUnit: "Hours",
			Tags: map[string]string{
				"team":             "ml",
				"user:Cost Center": "R&D",
				"":                 "empty key",
				"ключ":             "значение",
				`a"b\c`:            "<x>&'y'",
				"tab\tnew\nline":   "",
			},
		},
		{
			// A tax line: tiny decimal with trailing zeros, no effective/list
			// cost, no quantity, no tags; times given in +05:30.
			Line:        3,
			ChargeStart: time.Date(2025, 3, 1, 5, 30, 0, 0, ist), ChargeEnd: time.Date(2025, 3, 2, 5, 30, 0, 0, ist),
			ChargeCategory: finops.ChargeTax, ChargeFrequency: "one-time",
			BilledCost: dec("0.00000080000"), Currency: "USD",
		},
		{
			Line: 4, Provider: "AWS", ChargeStart: utc(2025, 3, 1, 12, 0, 0), ChargeEnd: utc(2025, 3, 1, 13, 0, 0),
			ChargeCategory: finops.ChargeCredit, ChargeClass: "correction",
			BilledCost: dec("-12.50"), EffectiveCost: dec("-12.5"), Currency: "USD",
			Tags: map[string]string{"k": "v"},
		},
	}
}

func fixtureSamples() []*finops.GPUSample {
	// Two readings of GPU-1111 in the minute 10:00 UTC: util 20 and 40.
	return []*finops.GPUSample{
		{Line: 1, Host: "node-1", Index: 0, UUID: "GPU-1111", Model: "H100-80GB", Time: time.Date(2025, 3, 1, 10, 0, 5, 0, time.UTC),
			Util: new(20.0), MemUsed: new(1024.0), MemTotal: new(81559.0), PowerWatt: new(300.5)},
		{Line: 2, Host: "node-1", Index: 0, UUID: "GPU-1111", Model: "H100-80GB", Time: time.Date(2025, 3, 1, 10, 0, 35, 0, time.UTC),
			Util: new(40.0), MemUsed: new(2048.0), MemTotal: new(81559.0), PowerWatt: new(310.0)},
	}
}

func fixtureRuns() []*finops.TaskRun {
	return []*finops.TaskRun{{
		Line: 2, Task: "train-llama", Team: "ml", Kind: "training", Resource: "i-0abc",
		GPUs: []string{"GPU-1111", "node-1/1"}, Start: utc(2025, 3, 1, 9, 0, 0), End: utc(2025, 3, 1, 11, 0, 0),
		Units: dec("1.250"), Unit: "run",
	}}
}

// importFixture imports the three fixture files at imported_at 2025-03-05
// 00:00:00, :01 and :02 UTC, in that order.
func importFixture(t *testing.T, s *Store) (billing, smi, tasks *ImportResult) {
	t.Helper()
	clock := utc(2025, 3, 5, 0, 0, 0)
	s.SetClock(func() time.Time { clock = clock.Add(time.Second); return clock.Add(-time.Second) })

	billing = mustImport(t, s, "s3://bucket/focus.csv", feed(&ingest.Summary{
		Format: ingest.FormatFOCUS, Kind: ingest.KindBilling, Rows: 3,
		Rejected:    []*ingest.ParseError{{File: "focus.csv", Line: 5, Field: "BilledCost", Msg: "not a decimal"}},
		PeriodStart: utc(2025, 3, 1, 0, 0, 0), PeriodEnd: utc(2025, 3, 2, 0, 0, 0),
		Currencies: []string{"USD", "EUR"},
		// Σ Cost(): 30.00000000001 (effective) + 0.0000008 (billed, effective nil) + -12.5 = 17.50000080001
		TotalCost: decimal.RequireFromString("17.50000080001"),
		GPULines:  1,
	}, fixtureLines(), nil, nil))
	smi = mustImport(t, s, "logs/node-1.csv", feed(&ingest.Summary{
		Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization, Rows: 2,
		PeriodStart: utc(2025, 3, 1, 10, 0, 5), PeriodEnd: utc(2025, 3, 1, 10, 0, 35),
		SampleInterval: 30 * time.Second,
	}, nil, fixtureSamples(), nil))
	tasks = mustImport(t, s, "tasks.csv", feed(&ingest.Summary{
		Format: ingest.FormatTasks, Kind: ingest.KindTasks, Rows: 1,
		PeriodStart: utc(2025, 3, 1, 9, 0, 0), PeriodEnd: utc(2025, 3, 1, 11, 0, 0),
	}, nil, nil, fixtureRuns()))
	return billing, smi, tasks
}

// fixtureCounts is what importFixture leaves: 3 files, 1 rejected row, 3
// lines, 1 GPU with 2 samples, 1 task with 1 run.
var fixtureCounts = wantCounts(map[string]int{"source_files": 3, "rejected_rows": 1, "billing_lines": 3,
	"gpus": 1, "gpu_minutes": 1, "tasks": 1, "task_runs": 1})

func TestImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	billing, smi, tasks := importFixture(t, s)

	t.Run("Counts", func(t *testing.T) { assertCounts(t, s, fixtureCounts) })

	t.Run("results", func(t *testing.T) {
		ids := []int64{billing.SourceID, smi.SourceID, tasks.SourceID}
		if ids[0] == 0 || ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2] {
			t.Fatalf("source ids %v: want 3 distinct non-zero ids", ids)
		}
		if billing.Summary == nil || billing.Summary.Rows != 3 || billing.Duplicate {
			t.Fatalf("billing result = %+v", billing)
		}
	})

	t.Run("Sources", func(t *testing.T) { checkImportedSources(t, ctx, s, billing, smi, tasks) })

	t.Run("rejected rows", func(t *testing.T) { checkImportedRejects(t, ctx, s, billing) })

	t.Run("Lines", func(t *testing.T) {
		got, err := s.Lines(ctx, utc(2025, 1, 1, 0, 0, 0), utc(2026, 1, 1, 0, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		want := fixtureLines()
		// Ordered by charge_start: line 2 and the tax line both start at
		// 2025-03-01T00:00Z (05:30 IST), then by id (insertion order), then line 4.
		if len(got) != len(want) {
			t.Fatalf("Lines() returned %d lines, want %d", len(got), len(want))
		}
		for i := range want {
			checkLine(t, &got[i], want[i])
		}
	})

	t.Run("GPUSeries", func(t *testing.T) {
		got, err := s.GPUSeries(ctx, utc(2025, 3, 1, 0, 0, 0), utc(2025, 3, 2, 0, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		// 2025-03-01T10:00Z = 1740787200 + 36000 = 1740823200 s; / 60 = 29013720.
		// Samples 20 and 40 in that minute: mean 30; power (300.5 + 310) / 2 =
		// 305.25 W, kept in whole watts: 305. Interval = the file's 30 s.
		want := []finops.GPUSeries{seriesPower(finops.GPUSeries{Key: "GPU-1111", Host: "node-1", UUID: "GPU-1111", Index: 0, Model: "H100-80GB", Interval: 30 * time.Second}, []finops.MinuteUtil{{Minute: 29013720, Util: 30}}, 305)}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("GPUSeries() = %+v, want %+v", got, want)
		}
	})

	t.Run("GPU row", func(t *testing.T) { checkImportedGPURow(t, s) })

	t.Run("TaskRuns", func(t *testing.T) { checkImportedTaskRuns(t, ctx, s) })
}

// checkLine compares a stored line with the one imported: decimals by value,
// nil stays nil, times as the same instant in UTC.
func checkLine(t *testing.T, got, want *finops.BillingLine) {
	t.Helper()
	for _, d := range []struct {
		name      string
		got, want *decimal.Decimal
	}{
		{"BilledCost", got.BilledCost, want.BilledCost},
		{"EffectiveCost", got.EffectiveCost, want.EffectiveCost},
		{"ListCost", got.ListCost, want.ListCost},
		{"UsageQuantity", got.UsageQuantity, want.UsageQuantity},
	} {
		if !decEq(d.got, d.want) {
			t.Errorf("line %d: %s = %v, want %v", want.Line, d.name, d.got, d.want)
		}
	}
	if !got.ChargeStart.Equal(want.ChargeStart) || !got.ChargeEnd.Equal(want.ChargeEnd) {
		t.Errorf("line %d: period [%v, %v), want [%v, %v)", want.Line, got.ChargeStart, got.ChargeEnd, want.ChargeStart, want.ChargeEnd)
	}
	if got.ChargeStart.Location() != time.UTC || got.ChargeEnd.Location() != time.UTC {
		t.Errorf("line %d: times not UTC: %v, %v", want.Line, got.ChargeStart, got.ChargeEnd)
	}
	if !maps.Equal(got.Tags, want.Tags) || (got.Tags == nil) != (want.Tags == nil) {
		t.Errorf("line %d: Tags = %#v, want %#v", want.Line, got.Tags, want.Tags)
	}
	// Everything else must be identical.
	g, w := *got, *want
	g.BilledCost, g.EffectiveCost, g.ListCost, g.UsageQuantity, g.Tags = nil, nil, nil, nil, nil
	w.BilledCost, w.EffectiveCost, w.ListCost, w.UsageQuantity, w.Tags = nil, nil, nil, nil, nil
	g.ChargeStart, g.ChargeEnd, w.ChargeStart, w.ChargeEnd = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("line %d:\n got %+v\nwant %+v", want.Line, g, w)
	}
}

func TestImportHostFromMeta(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	res, err := s.Import(ctx, FileMeta{URI: "smi.csv", SHA256: shaOf("smi"), Host: "node-7"},
		feed(&ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization}, nil, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := s.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// An empty file: no period, no cost (not billing), host from FileMeta.
	if len(srcs) != 1 || srcs[0].ID != res.SourceID || srcs[0].Host != "node-7" ||
		!srcs[0].PeriodStart.IsZero() || srcs[0].TotalCost != "" || srcs[0].Rows != 0 {
		t.Fatalf("Sources() = %+v", srcs)
	}
	if _, err := s.Import(ctx, FileMeta{URI: "x.csv"}, feed(&ingest.Summary{}, nil, nil, nil)); err == nil ||
		!strings.Contains(err.Error(), "missing sha256") {
		t.Fatalf("Import without sha256: err = %v, want missing sha256", err)
	}
}

func TestImportDuplicate(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		firstURI string // URI of the fixture file whose bytes are imported again
	}{
		{"billing file", "s3://bucket/focus.csv"},
		{"telemetry file", "logs/node-1.csv"},
		{"tasks file", "tasks.csv"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			importFixture(t, s)
			called := false
			parse := func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
				called = true
				return feed(&ingest.Summary{Format: ingest.FormatFOCUS, Kind: ingest.KindBilling},
					fixtureLines(), fixtureSamples(), fixtureRuns())(ctx, sink)
			}
			res, err := s.Import(ctx, FileMeta{URI: "copy-of-it.csv", SHA256: shaOf(tt.firstURI)}, parse)
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			if !res.Duplicate || res.DuplicateOf != tt.firstURI || res.SourceID != 0 || res.Summary != nil {
				t.Fatalf("Import = %+v, want Duplicate of %q", res, tt.firstURI)
			}
			if called {
				t.Error("the parser ran for a duplicate")
			}
			assertCounts(t, s, fixtureCounts)
		})
	}
}

// failAfter is a ParseFunc that delivers the fixture's records of one kind
// (n of them, fewer if the fixture has fewer) and then fails with err.
func failAfter(kind string, n int, err error) ParseFunc {
	return func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		var e error
		for i := range n {
			switch kind {
			case ingest.KindBilling:
				l := fixtureLines()[i%3]
				l.Line = 100 + i
				e = sink.Billing(l)
			case ingest.KindUtilization:
				x := fixtureSamples()[i%2]
				x.UUID = "GPU-NEW" // a GPU that exists only in this file
				x.Time = x.Time.Add(time.Duration(i) * time.Hour)
				e = sink.Sample(x)
			case ingest.KindTasks:
				r := fixtureRuns()[0]
				r.Task = "new-task"
				r.Start = r.Start.Add(time.Duration(i) * time.Hour)
				e = sink.TaskRun(r)
			}
			if e != nil {
				return nil, e
			}
		}
		return nil, err
	}
}

func TestImportParseErrorRollsBack(t *testing.T) {
	ctx := context.Background()
	perr := &ingest.ParseError{File: "file.csv", Line: 3, Field: "BilledCost", Msg: `want a decimal, found "abc"`}
	for _, tt := range []struct {
		name string
		kind string
		n    int // records written before the error
	}{
		{"2 billing lines then a parse error", ingest.KindBilling, 2},
		{"error before any record", ingest.KindBilling, 0},
		{"2 samples of a new GPU then a parse error", ingest.KindUtilization, 2},
		{"a run of a new task then a parse error", ingest.KindTasks, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			importFixture(t, s)
			before := counts(t, s)
			meta := FileMeta{URI: "file.csv", SHA256: shaOf("file.csv")}

			_, err := s.Import(ctx, meta, failAfter(tt.kind, tt.n, perr))
			var pe *ingest.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Import error = %v (%T), want *ingest.ParseError", err, err)
			}
			if pe != perr {
				t.Errorf("Import returned a different ParseError: %+v", pe)
			}
			// file.csv:3: field "BilledCost": want a decimal, found "abc"
			if msg := err.Error(); !strings.Contains(msg, "file.csv:3") || !strings.Contains(msg, "BilledCost") {
				t.Errorf("error %q does not name file.csv:3 and BilledCost", msg)
			}
			if after := counts(t, s); !maps.Equal(after, before) {
				t.Fatalf("Counts changed by a failed import: before %v, after %v", before, after)
			}

			// The sha256 was not marked as seen: the corrected file imports.
			res, err := s.Import(ctx, meta, feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: 1},
				[]*finops.BillingLine{usageLine(2, "r", utc(2025, 3, 1, 0, 0, 0), utc(2025, 3, 1, 1, 0, 0), "1")}, nil, nil))
			if err != nil {
				t.Fatalf("re-import after failure: %v", err)
			}
			if res.Duplicate {
				t.Fatalf("re-import after failure reported duplicate of %q", res.DuplicateOf)
			}
			want := maps.Clone(before)
			want["source_files"]++
			want["billing_lines"]++
			assertCounts(t, s, want)
		})
	}
}

func TestImportSinkErrorRollsBack(t *testing.T) {
	for _, tt := range []struct {
		name    string
		kind    string
		wantErr error
	}{
		// The context is cancelled after 2 records; the 3rd write fails.
		{"cancel during billing lines", ingest.KindBilling, context.Canceled},
		{"cancel during samples", ingest.KindUtilization, context.Canceled},
		{"cancel during task runs", ingest.KindTasks, context.Canceled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			importFixture(t, s)
			before := counts(t, s)
			meta := FileMeta{URI: "cancelled.csv", SHA256: shaOf("cancelled.csv")}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			written := 0
			parse := func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
				inner := failAfter(tt.kind, 5, errors.New("must not be reached"))
				return inner(ctx, countingSink{sink, func() {
					written++
					if written == 2 {
						cancel()
					}
				}})
			}
			_, err := s.Import(ctx, meta, parse)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Import error = %v, want %v", err, tt.wantErr)
			}
			if written != 2 {
				t.Errorf("%d records written before the failure, want 2", written)
			}
			if after := counts(t, s); !maps.Equal(after, before) {
				t.Fatalf("Counts changed by a failed import: before %v, after %v", before, after)
			}
			// Nothing was committed: the same bytes import later.
			mustImport(t, s, "cancelled.csv", feed(&ingest.Summary{Kind: tt.kind}, nil, nil, nil))
			want := maps.Clone(before)
			want["source_files"]++
			assertCounts(t, s, want)
		})
	}

	t.Run("context cancelled before the import", func(t *testing.T) {
		s := openTest(t)
		importFixture(t, s)
		before := counts(t, s)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		called := false
		_, err := s.Import(ctx, FileMeta{URI: "x", SHA256: shaOf("x")}, func(context.Context, ingest.Sink) (*ingest.Summary, error) {
			called = true
			return &ingest.Summary{}, nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Import error = %v, want context.Canceled", err)
		}
		if called {
			t.Error("the parser ran with a cancelled context")
		}
		assertCounts(t, s, before)
	})
}

// countingSink calls after() once each record has been written successfully.
type countingSink struct {
	ingest.Sink
	after func()
}

func (c countingSink) Billing(l *finops.BillingLine) error {
	if err := c.Sink.Billing(l); err != nil {
		return err
	}
	c.after()
	return nil
}

func (c countingSink) Sample(x *finops.GPUSample) error {
	if err := c.Sink.Sample(x); err != nil {
		return err
	}
	c.after()
	return nil
}

func (c countingSink) TaskRun(r *finops.TaskRun) error {
	if err := c.Sink.TaskRun(r); err != nil {
		return err
	}
	c.after()
	return nil
}

func TestImportOverlappingSamples(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC) // minute 29013720
	sample := func(uuid string, at time.Time, util float64) *finops.GPUSample {
		return &finops.GPUSample{Host: "node-1", Index: 0, UUID: uuid, Time: at, Util: new(util)}
	}
	smi := func(samples ...*finops.GPUSample) ParseFunc {
		return feed(&ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization, Rows: len(samples)}, nil, samples, nil)
	}
	for _, tt := range []struct {
		name          string
		first, second []*finops.GPUSample
		wantGPUs      int
		wantRows      int                            // gpu_minutes rows
		wantMinutes   map[string][]finops.MinuteUtil // by GPU key
	}{
		{
			name:   "same GPU and instant: the first file wins",
			first:  []*finops.GPUSample{sample("GPU-A", t0, 10)},
			second: []*finops.GPUSample{sample("GPU-A", t0, 90), sample("GPU-A", t0.Add(20*time.Second), 50)},
			// t0 kept at 10 (90 ignored); t0+20s = 50 → mean (10+50)/2 = 30.
			wantGPUs: 1, wantRows: 1,
			wantMinutes: map[string][]finops.MinuteUtil{"GPU-A": {{Minute: 29013720, Util: 30}}},
		},
		{
			name:   "1 ms apart: both kept",
			first:  []*finops.GPUSample{sample("GPU-A", t0, 10)},
			second: []*finops.GPUSample{sample("GPU-A", t0.Add(time.Millisecond), 90)},
			// (10+90)/2 = 50
			wantGPUs: 1, wantRows: 1,
			wantMinutes: map[string][]finops.MinuteUtil{"GPU-A": {{Minute: 29013720, Util: 50}}},
		},
		{
			name:     "same instant, other GPU: both kept",
			first:    []*finops.GPUSample{sample("GPU-A", t0, 10)},
			second:   []*finops.GPUSample{sample("GPU-B", t0, 90)},
			wantGPUs: 2, wantRows: 2,
			wantMinutes: map[string][]finops.MinuteUtil{"GPU-A": {{Minute: 29013720, Util: 10}}, "GPU-B": {{Minute: 29013720, Util: 90}}},
		},
		{
			name:   "whole file repeated under another sha: nothing counted twice",
			first:  []*finops.GPUSample{sample("GPU-A", t0, 10), sample("GPU-A", t0.Add(time.Minute), 20)},
			second: []*finops.GPUSample{sample("GPU-A", t0, 10), sample("GPU-A", t0.Add(time.Minute), 20)},
			// 2 rows, minutes 29013720 = 10 and 29013721 = 20.
			wantGPUs: 1, wantRows: 2,
			wantMinutes: map[string][]finops.MinuteUtil{"GPU-A": {{Minute: 29013720, Util: 10}, {Minute: 29013721, Util: 20}}},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			mustImport(t, s, "a.csv", smi(tt.first...))
			mustImport(t, s, "b.csv", smi(tt.second...))
			assertCounts(t, s, wantCounts(map[string]int{"source_files": 2, "gpus": tt.wantGPUs, "gpu_minutes": tt.wantRows}))
			series, err := s.GPUSeries(ctx, t0.Add(-time.Hour), t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]finops.MinuteUtil{}
			for _, g := range series {
				got[g.Key] = g.Minutes()
			}
			if !reflect.DeepEqual(got, tt.wantMinutes) {
				t.Errorf("minutes = %v, want %v", got, tt.wantMinutes)
			}
		})
	}
}

// A later file that knows more about a GPU (its model, memory) fills the
// gaps; one that knows less does not erase what is known.
func TestImportGPUUpsert(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	t0 := utc(2025, 3, 1, 10, 0, 0)
	mustImport(t, s, "a.csv", feed(&ingest.Summary{Kind: ingest.KindUtilization}, nil,
		[]*finops.GPUSample{{Host: "node-1", Index: 3, UUID: "GPU-A", Time: t0, Util: new(1.0)}}, nil))
	mustImport(t, s, "b.csv", feed(&ingest.Summary{Kind: ingest.KindUtilization}, nil,
		[]*finops.GPUSample{{Index: -1, UUID: "GPU-A", Model: "L4", MemTotal: new(23034.0), Time: t0.Add(time.Minute), Util: new(3.0)}}, nil))
	series, err := s.GPUSeries(ctx, t0, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 1 {
		t.Fatalf("GPUSeries = %+v, want 1 GPU", series)
	}
	g := series[0]
	if g.Host != "node-1" || g.Index != 3 || g.Model != "L4" || g.Len() != 2 {
		t.Errorf("GPU = %+v, want host node-1, index 3, model L4, 2 minutes", g)
	}
}

// checkImportedSources checks the three fixture sources, newest first, with
// every time in UTC.
func checkImportedSources(t *testing.T, ctx context.Context, s *Store, billing, smi, tasks *ImportResult) {
	t.Helper()
	got, err := s.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Newest first: tasks (imported 00:00:02), smi (:01), billing (:00).
	want := []Source{
		{ID: tasks.SourceID, URI: "tasks.csv", Format: "tasks", Kind: "tasks",
			PeriodStart: utc(2025, 3, 1, 9, 0, 0), PeriodEnd: utc(2025, 3, 1, 11, 0, 0), Rows: 1,
			ImportedAt: utc(2025, 3, 5, 0, 0, 2)},
		{ID: smi.SourceID, URI: "logs/node-1.csv", Format: "nvidia-smi", Kind: "utilization",
			PeriodStart: utc(2025, 3, 1, 10, 0, 5), PeriodEnd: utc(2025, 3, 1, 10, 0, 35), Rows: 2,
			ImportedAt: utc(2025, 3, 5, 0, 0, 1)},
		{ID: billing.SourceID, URI: "s3://bucket/focus.csv", Format: "focus", Kind: "billing",
			PeriodStart: utc(2025, 3, 1, 0, 0, 0), PeriodEnd: utc(2025, 3, 2, 0, 0, 0), Rows: 3,
			RowsRejected: 1, Currency: "USD,EUR", TotalCost: "17.50000080001",
			ImportedAt: utc(2025, 3, 5, 0, 0, 0)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Sources() =\n%+v\nwant\n%+v", got, want)
	}
	for _, src := range got {
		for _, tm := range []time.Time{src.PeriodStart, src.PeriodEnd, src.ImportedAt} {
			if tm.Location() != time.UTC {
				t.Errorf("source %d: time %v not UTC", src.ID, tm)
			}
		}
	}
}

// checkImportedRejects checks the billing file's one rejected row and the
// per-period count of rejected rows.
func checkImportedRejects(t *testing.T, ctx context.Context, s *Store, billing *ImportResult) {
	t.Helper()
	var line int
	var field, msg string
	if err := s.DB().QueryRow(`SELECT line, field, message FROM rejected_rows WHERE source_id = ?`,
		billing.SourceID).Scan(&line, &field, &msg); err != nil {
		t.Fatal(err)
	}
	if line != 5 || field != "BilledCost" || msg != "not a decimal" {
		t.Errorf("rejected row = %d %q %q", line, field, msg)
	}
	// The billing file covers [03-01, 03-02): 1 rejected row; the other
	// files have none.
	n, err := s.RowsRejected(ctx, utc(2025, 3, 1, 0, 0, 0), utc(2025, 4, 1, 0, 0, 0))
	if err != nil || n != 1 {
		t.Errorf("RowsRejected(March) = %d, %v; want 1", n, err)
	}
	n, err = s.RowsRejected(ctx, utc(2025, 4, 1, 0, 0, 0), utc(2025, 5, 1, 0, 0, 0))
	if err != nil || n != 0 {
		t.Errorf("RowsRejected(April) = %d, %v; want 0", n, err)
	}
}

// checkImportedGPURow checks the gpus row and the one minute row both
// samples roll up into.
func checkImportedGPURow(t *testing.T, s *Store) {
	t.Helper()
	var mem float64
	if err := s.DB().QueryRow(`SELECT memory_total_mib FROM gpus WHERE gpu_key = 'GPU-1111'`).Scan(&mem); err != nil {
		t.Fatal(err)
	}
	if mem != 81559 {
		t.Errorf("memory_total_mib = %v, want 81559", mem)
	}
	// Both samples (10:00:05 and 10:00:35) roll up into one minute row:
	// util 20 + 40, memory at most 2048, power 300.5 + 310.
	var n, utilN, powerN int
	var util, used, power float64
	var offsets []byte
	if err := s.DB().QueryRow(`SELECT n, util_sum, util_n, mem_used_max, power_sum, power_n, offsets FROM gpu_minutes`).Scan(
		&n, &util, &utilN, &used, &power, &powerN, &offsets); err != nil {
		t.Fatal(err)
	}
	if n != 2 || util != 60 || utilN != 2 || used != 2048 || power != 610.5 || powerN != 2 {
		t.Errorf("minute row = n %d util %v/%d mem %v power %v/%d, want 2 60/2 2048 610.5/2", n, util, utilN, used, power, powerN)
	}
	// 5000 ms = 0x1388 and 35000 ms = 0x88B8 into the minute.
	if want := []byte{0x13, 0x88, 0x88, 0xB8}; !bytes.Equal(offsets, want) {
		t.Errorf("offsets = % x, want % x", offsets, want)
	}
}

// checkImportedTaskRuns checks the one imported task run against the
// fixture's, units by value and times in UTC.
func checkImportedTaskRuns(t *testing.T, ctx context.Context, s *Store) {
	t.Helper()
	got, err := s.TaskRuns(ctx, utc(2025, 3, 1, 0, 0, 0), utc(2025, 3, 2, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("TaskRuns() = %d runs, want 1", len(got))
	}
	want := fixtureRuns()[0]
	r := got[0]
	if !decEq(r.Units, want.Units) { // 1.250 == 1.25
		t.Errorf("Units = %v, want %v", r.Units, want.Units)
	}
	if r.Start.Location() != time.UTC || r.End.Location() != time.UTC {
		t.Errorf("times not UTC: %v %v", r.Start, r.End)
	}
	r.Units, want.Units = nil, nil
	if !reflect.DeepEqual(r, *want) {
		t.Errorf("TaskRun = %+v, want %+v", r, *want)
	}
}
