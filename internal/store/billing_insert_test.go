package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/shopspring/decimal"
)

// TestImportManyBillingLines crosses many INSERT batches (and the inserter
// goroutine) with a count that is not a multiple of the batch: every line
// arrives once, in order, with its exact cost and tags.
func TestImportManyBillingLines(t *testing.T) {
	const n = 5*billingBatchRows + 7
	s := openTest(t)
	start := utc(2025, 3, 1, 0, 0, 0)
	var want decimal.Decimal
	var lines []*finops.BillingLine
	for i := range n {
		l := usageLine(i+2, "r-"+strconv.Itoa(i%13), start.Add(time.Duration(i)*time.Minute), start.Add(time.Duration(i+1)*time.Minute),
			fmt.Sprintf("%d.%03d", i, i%1000))
		if i%3 == 0 {
			l.Tags = map[string]string{"team": "t" + strconv.Itoa(i%5), "i": strconv.Itoa(i)}
		}
		want = want.Add(*l.BilledCost)
		lines = append(lines, l)
	}
	mustImport(t, s, "many.csv", feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: n}, lines, nil, nil))
	got, err := s.Lines(context.Background(), start, start.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d lines stored, want %d", len(got), n)
	}
	var sum decimal.Decimal
	for i, l := range got {
		sum = sum.Add(*l.BilledCost)
		if l.Line != i+2 || !maps.Equal(l.Tags, lines[i].Tags) {
			t.Fatalf("line %d: got line %d tags %v, want tags %v", i+2, l.Line, l.Tags, lines[i].Tags)
		}
	}
	if !sum.Equal(want) {
		t.Errorf("Σ stored %s, want %s", sum, want)
	}
}

// TestImportCancelledAmidBatches: a cancel while chunks are on their way to
// the inserter fails the import and leaves the database as it was.
func TestImportCancelledAmidBatches(t *testing.T) {
	s := openTest(t)
	importFixture(t, s)
	before := counts(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	parse := func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		for i := range 4 * billingChunkRows {
			l := fixtureLines()[i%3]
			l.Line = i + 2
			if i == 2*billingChunkRows+3 { // two chunks sent, a third being filled
				cancel()
			}
			if err := sink.Billing(l); err != nil {
				return nil, err
			}
		}
		return &ingest.Summary{Kind: ingest.KindBilling}, nil
	}
	_, err := s.Import(ctx, FileMeta{URI: "cancel.csv", SHA256: shaOf("cancel.csv")}, parse)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Import error = %v, want context.Canceled", err)
	}
	if after := counts(t, s); !maps.Equal(after, before) {
		t.Fatalf("a cancelled import changed the database: %v → %v", before, after)
	}
}

// TestLineSummaryCurrencies: the currencies of the lines overlapping a day,
// upper case, each with its files.
func TestLineSummaryCurrencies(t *testing.T) {
	s := openTest(t)
	day := utc(2025, 3, 1, 0, 0, 0)
	l := func(cur string, start time.Time) *finops.BillingLine {
		x := usageLine(2, "r", start, start.Add(time.Hour), "1")
		x.Currency = cur
		return x
	}
	sum := &ingest.Summary{Format: "focus", Kind: "billing"}
	mustImport(t, s, "usd-and-cny.csv", feed(sum, []*finops.BillingLine{l("USD", day), l("cny", day), l("", day)}, nil, nil))
	mustImport(t, s, "eur.csv", feed(sum, []*finops.BillingLine{l("EUR", day.Add(48*time.Hour))}, nil, nil))
	mustImport(t, s, "usd.csv", feed(sum, []*finops.BillingLine{l("USD", day.Add(time.Hour))}, nil, nil))
	sum2, err := s.LineSummary(context.Background(), day, day.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	got := sum2.Currencies
	want := map[string][]string{"USD": {"usd-and-cny.csv", "usd.csv"}, "CNY": {"usd-and-cny.csv"}, "": {"usd-and-cny.csv"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("currencies = %v, want %v (EUR is outside the window)", got, want)
	}
}

// TestImportSortedChunks: lines are inserted a chunk at a time sorted by
// charge start, and read back (ORDER BY charge_start, id) exactly as an
// insert in file order reads: by start, then by line number for equal
// starts. The expected order is computed independently, by a stable sort of
// the input on its start; the file orders cross chunk boundaries and have
// many equal starts.
func TestImportSortedChunks(t *testing.T) {
	const n = 2*billingChunkRows + 5
	base := utc(2025, 3, 1, 0, 0, 0)
	tests := []struct {
		name  string
		hours func(i int) int // the start of the i-th line of the file, in hours after base
	}{
		{"in order", func(i int) int { return i / 7 }},
		{"reversed", func(i int) int { return (n - i) / 5 }},
		{"scattered, many ties", func(i int) int { return i * 7919 % 97 }},
		{"one start", func(int) int { return 3 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			var lines []*finops.BillingLine
			for i := range n {
				start := base.Add(time.Duration(tt.hours(i)) * time.Hour)
				lines = append(lines, usageLine(i+2, "r", start, start.Add(time.Hour), strconv.Itoa(i)))
			}
			want := slices.Clone(lines)
			slices.SortStableFunc(want, func(a, b *finops.BillingLine) int { return a.ChargeStart.Compare(b.ChargeStart) })
			mustImport(t, s, "sorted.csv", feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: n}, lines, nil, nil))
			got, err := s.Lines(context.Background(), base, base.Add(1000*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != n {
				t.Fatalf("%d lines read, want %d", len(got), n)
			}
			for i := range got {
				if got[i].Line != want[i].Line || !got[i].ChargeStart.Equal(want[i].ChargeStart) || !decEq(got[i].BilledCost, want[i].BilledCost) {
					t.Fatalf("line %d read: line %d start %v cost %v, want line %d start %v cost %v", i, got[i].Line,
						got[i].ChargeStart, got[i].BilledCost, want[i].Line, want[i].ChargeStart, want[i].BilledCost)
				}
			}
		})
	}
}

// TestImportChunksGenerated: whatever the number of lines (a few, exactly a
// chunk or a statement, or chunks and a tail) and their starts, every line
// is stored once and read back (ORDER BY charge_start, id) as a stable sort
// of the file on its start orders it — with the one 64-line statement that
// an import prepares reused across its chunks. The expectation is the
// input sorted independently (slices.SortStableFunc); seeded, so a failure
// repeats.
func TestImportChunksGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	base := utc(2025, 3, 1, 0, 0, 0)
	sizes := []int{1, billingBatchRows - 1, billingBatchRows, billingChunkRows, billingChunkRows + 1}
	for range 4 {
		sizes = append(sizes, 1+rng.IntN(3*billingChunkRows))
	}
	for _, n := range sizes {
		spread := 1 + rng.IntN(200) // hours the starts fall in: few make many ties
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			s := openTest(t)
			var lines []*finops.BillingLine
			for i := range n {
				start := base.Add(time.Duration(rng.IntN(spread)) * time.Hour)
				lines = append(lines, usageLine(i+2, "r"+strconv.Itoa(rng.IntN(50)), start, start.Add(time.Hour),
					strconv.Itoa(rng.IntN(100000))+".25"))
			}
			want := slices.Clone(lines)
			slices.SortStableFunc(want, func(a, b *finops.BillingLine) int { return a.ChargeStart.Compare(b.ChargeStart) })
			mustImport(t, s, "generated.csv", feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: n}, lines, nil, nil))
			got, err := s.Lines(context.Background(), base, base.Add(1000*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != n {
				t.Fatalf("%d lines read, want %d", len(got), n)
			}
			for i := range got {
				if got[i].Line != want[i].Line || !got[i].ChargeStart.Equal(want[i].ChargeStart) ||
					got[i].ResourceID != want[i].ResourceID || !decEq(got[i].BilledCost, want[i].BilledCost) {
					t.Fatalf("line %d read: line %d start %v resource %s cost %v, want line %d start %v resource %s cost %v", i,
						got[i].Line, got[i].ChargeStart, got[i].ResourceID, got[i].BilledCost,
						want[i].Line, want[i].ChargeStart, want[i].ResourceID, want[i].BilledCost)
				}
			}
		})
	}
}
