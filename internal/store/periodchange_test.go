package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/shopspring/decimal"
)

// runFile is one file of an export run: charges of January 2026.
type runFile struct {
	name    string
	charges []charge // day of January
	bytes   string   // the sha256's input: name and charges unless set
}

// importRun imports the files of one delivery of period as a group, as
// the importer does with a manifest's files.
func importRun(t *testing.T, s *Store, period, delivery string, files ...runFile) ([]*ImportResult, error) {
	t.Helper()
	var group []FileImport
	for _, f := range files {
		var lines []*finops.BillingLine
		total := decimal.Zero
		for i, c := range f.charges {
			l := usageLine(i+2, c.res, utc(2026, 1, c.day, 0, 0, 0), utc(2026, 1, c.day+1, 0, 0, 0), c.cost)
			l.Provider, l.BillingAccount = "Microsoft", "acct-mca-01"
			lines = append(lines, l)
			total = total.Add(decimal.RequireFromString(c.cost))
		}
		sum := &ingest.Summary{Format: ingest.FormatAzure, Kind: ingest.KindBilling, Rows: len(lines), TotalCost: total,
			PeriodStart: utc(2026, 1, 1, 0, 0, 0), PeriodEnd: utc(2026, 2, 1, 0, 0, 0)}
		sha := shaOf(cmp.Or(f.bytes, f.name+fmt.Sprint(f.charges)))
		group = append(group, FileImport{FileMeta{URI: f.name, SHA256: sha, Period: period, Delivery: delivery},
			feed(sum, lines, nil, nil)})
	}
	return s.ImportGroup(context.Background(), group)
}

// TestPeriodChangeNamesTheDrop: a newer Azure export run with fewer files
// replaces the older one whole, as a delivery of its billing period must
// (the clouds restate so), and says what it changed: issue #32's
// 14.98 → 2.00 USD.
func TestPeriodChangeNamesTheDrop(t *testing.T) {
	s := openTest(t)
	const period = "azure-export:acct-mca-01:2026-01"
	// Run 1111: two files, 7.49 + 5.49 and 2.00 = 14.98 USD, 3 charges.
	if _, err := importRun(t, s, period, "202601051200/run-1111",
		runFile{name: "run-1111/part_0_0001.csv", charges: []charge{{"a100-train", 3, "7.49"}, {"t4-batch", 3, "5.49"}}},
		runFile{name: "run-1111/part_0_0002.csv", charges: []charge{{"h100-conf", 5, "2.00"}}}); err != nil {
		t.Fatal(err)
	}
	// Run 2222: one file, h100-conf's 2.00 only. The drop: (14.98 − 2.00)
	// / 14.98 = 0.8665 → −87 %; the old run's a100-train and t4-batch
	// (7.49 + 5.49 = 12.98) are in no file of the new run.
	res, err := importRun(t, s, period, "202601071200/run-2222", runFile{name: "run-2222/part_0_0001.csv", charges: []charge{{"h100-conf", 5, "2.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := res[0].PeriodChange
	if c == nil {
		t.Fatalf("no period change on %+v", res[0])
	}
	want := "replaces run 202601051200/run-1111 of " + period + ": 14.98 → 2.00 USD, −87 %; charges only in the old run: 2 (12.98 USD)"
	if got := c.String(); got != want {
		t.Errorf("change = %q\nwant     %q", got, want)
	}
	if c.Drop < 0.866 || c.Drop > 0.867 || !c.Dropped() || !c.SameBasis() || c.URI != "run-2222/part_0_0001.csv" {
		t.Errorf("change = %+v", c)
	}
	// Kept for the reports of January, none of December.
	got, err := s.PeriodChanges(context.Background(), utc(2026, 1, 1, 0, 0, 0), utc(2026, 2, 1, 0, 0, 0))
	if err != nil || len(got) != 1 || got[0].String() != want || got[0].URI != c.URI {
		t.Errorf("PeriodChanges(January) = %+v, %v", got, err)
	}
	if got, err := s.PeriodChanges(context.Background(), utc(2025, 12, 1, 0, 0, 0), utc(2026, 1, 1, 0, 0, 0)); err != nil || len(got) != 0 {
		t.Errorf("PeriodChanges(December) = %+v, %v", got, err)
	}

	checkPeriodRestated(t, s, period)
	checkPeriodBadRun(t, s, period)
}

// checkPeriodRestated imports run 3333 after run 2222: a growth, no charge
// lost, and run 2222's note goes with its file.
func checkPeriodRestated(t *testing.T, s *Store, period string) {
	t.Helper()
	// Run 3333 restates h100-conf (2.00 → 2.50) and brings a100-train back
	// (7.49): 2.50 + 7.49 = 9.99, it grew by (9.99 − 2.00) / 2.00 = 3.995,
	// +400 %, and lost no charge. Run 2222's note goes with its file.
	res, err := importRun(t, s, period, "202601091200/run-3333",
		runFile{name: "run-3333/part_0_0001.csv", charges: []charge{{"h100-conf", 5, "2.50"}}},
		runFile{name: "run-3333/part_0_0002.csv", charges: []charge{{"a100-train", 3, "7.49"}}})
	if err != nil {
		t.Fatal(err)
	}
	want3 := "replaces run 202601071200/run-2222 of " + period + ": 2.00 → 9.99 USD, +400 %; charges only in the old run: 0 (0.00)"
	if c := res[0].PeriodChange; c == nil || c.String() != want3 || c.Dropped() || res[1].PeriodChange != nil {
		t.Errorf("run 3333: %+v, %+v; want %q", res[0].PeriodChange, res[1].PeriodChange, want3)
	}
	if got, err := s.PeriodChanges(context.Background(), utc(2026, 1, 1, 0, 0, 0), utc(2026, 2, 1, 0, 0, 0)); err != nil || len(got) != 1 || got[0].String() != want3 {
		t.Errorf("PeriodChanges after run 3333 = %+v, %v", got, err)
	}
}

// checkPeriodBadRun imports a run with a bad file: it changes nothing and
// records no change.
func checkPeriodBadRun(t *testing.T, s *Store, period string) {
	t.Helper()
	// A run with a bad file changes nothing, and records no change.
	bad := errors.New("part_0_0002.csv:3: field \"CostInBillingCurrency\": not a number")
	_, err := s.ImportGroup(context.Background(), []FileImport{
		{FileMeta{URI: "run-4444/part_0_0001.csv", SHA256: shaOf("4444-1"), Period: period, Delivery: "202601111200/run-4444"},
			feed(&ingest.Summary{Format: ingest.FormatAzure, Kind: ingest.KindBilling}, nil, nil, nil)},
		{FileMeta{URI: "run-4444/part_0_0002.csv", SHA256: shaOf("4444-2"), Period: period, Delivery: "202601111200/run-4444"},
			func(context.Context, ingest.Sink) (*ingest.Summary, error) { return nil, bad }},
	})
	if !errors.Is(err, bad) {
		t.Fatalf("bad run: %v", err)
	}
	if got, _ := s.PeriodChanges(context.Background(), utc(2026, 1, 1, 0, 0, 0), utc(2026, 2, 1, 0, 0, 0)); len(got) != 1 || !strings.Contains(got[0].String(), "run-2222") {
		t.Errorf("after the bad run: %+v", got)
	}
}

// TestPeriodChangeCountsACarriedFile: a new run that carries a file of the
// old one byte for byte adopts the stored copy (it is not imported
// again); its charges count in both runs. Run 1: X (gpu-x 5.00) and Y
// (gpu-y 3.00), 8.00. Run 2: Y's bytes only, 3.00: (8.00 − 3.00) / 8.00 =
// 62.5 % → −62 % (Go rounds half to even), gpu-x's 5.00 only in the old run.
func TestPeriodChangeCountsACarriedFile(t *testing.T) {
	s := openTest(t)
	const period = "aws-cur:111:2026-01"
	y := []charge{{"gpu-y", 4, "3.00"}}
	if _, err := importRun(t, s, period, "asm-1", runFile{name: "asm-1/x.csv", charges: []charge{{"gpu-x", 3, "5.00"}}},
		runFile{name: "asm-1/y.csv", charges: y, bytes: "y"}); err != nil {
		t.Fatal(err)
	}
	res, err := importRun(t, s, period, "asm-2", runFile{name: "asm-2/y.csv", charges: y, bytes: "y"})
	if err != nil {
		t.Fatal(err)
	}
	want := "replaces run asm-1 of " + period + ": 8.00 → 3.00 USD, −62 %; charges only in the old run: 1 (5.00 USD)"
	if c := res[0].PeriodChange; !res[0].Duplicate || c == nil || c.String() != want {
		t.Errorf("result %+v, change %v; want a duplicate adopted, %q", res[0], c, want)
	}
}

// TestOnlyOldCostIsOrderFree: what the charges only in the old run cost
// is the exact sum of their costs, whatever order the tally's map gives
// them in. Generated runs of many charges of a tenth of a cent to five
// hundred dollars, each lost (so that sums fall on half cents, where a
// float's last bit decides the rounding); the expectation is the sum of the generated decimal
// costs, added with decimal (exact), rounded to the cent. Compared over
// many calls (each iterates the map in another order). Summed as float64
// in map order, it came out a cent apart from one call to the next (found
// by TestHashBesideMatchesHashFirst, whose two databases disagreed).
func TestOnlyOldCostIsOrderFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 24))
	for run := range 20 {
		old, cur := newChargeTally(), newChargeTally()
		want := decimal.Zero
		for id := range 2000 + rng.IntN(2000) {
			cost := decimal.New(rng.Int64N(500_000)+1, -3) // tenths of a cent: sums fall on half cents
			old.add(storedLine{identity: uint64(id), currency: "USD", cost: cost})
			want = want.Add(cost)
		}
		wantText := want.StringFixed(2) + " USD"
		for range 30 {
			if _, n, got := comparePeriodRuns(old, cur); got != wantText || n != len(old.ids) {
				t.Fatalf("run %d: %d charges only in the old run costing %s, want %d costing %s", run, n, got, len(old.ids), wantText)
			}
		}
	}
}
