package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/shopspring/decimal"
)

// dailyFile is a billing "file": one line per resource and day of November
// 2026, from day first to day last, each costing cost (per resource: costs
// overrides a day's).
type dailyFile struct {
	name        string
	format      string
	account     string
	resources   []string
	first, last int
	cost        string
	costs       map[int]string // day → cost, for restated days
	period      string         // delivery key, "" for none
	delivery    string
}

func (f dailyFile) lines() ([]*finops.BillingLine, decimal.Decimal) {
	var out []*finops.BillingLine
	total := decimal.Zero
	for _, r := range f.resources {
		for d := f.first; d <= f.last; d++ {
			c := f.cost
			if v, ok := f.costs[d]; ok {
				c = v
			}
			l := usageLine(len(out)+2, r, utc(2026, 11, d, 0, 0, 0), utc(2026, 11, d+1, 0, 0, 0), c)
			l.Provider, l.BillingAccount, l.SKU = "AWS", f.account, "BoxUsage:p4d.24xlarge"
			out = append(out, l)
			total = total.Add(decimal.RequireFromString(c))
		}
	}
	return out, total
}

func (f dailyFile) meta(replace bool) FileMeta {
	// The bytes differ with the restated costs, as a rewritten file's do.
	return FileMeta{URI: f.name, SHA256: shaOf(f.name + fmt.Sprint(f.costs)), Period: f.period, Delivery: f.delivery, Replace: replace}
}

func (f dailyFile) parse() ParseFunc {
	lines, total := f.lines()
	format := f.format
	if format == "" {
		format = ingest.FormatFOCUS
	}
	return feed(&ingest.Summary{Format: format, Kind: ingest.KindBilling, Rows: len(lines), TotalCost: total}, lines, nil, nil)
}

func importDaily(t *testing.T, s *Store, f dailyFile, replace bool) (*ImportResult, error) {
	t.Helper()
	return s.Import(context.Background(), f.meta(replace), f.parse())
}

// novemberTotal sums the cost of every stored line of November 2026.
func novemberTotal(t *testing.T, s *Store) string {
	t.Helper()
	lines, err := s.Lines(context.Background(), utc(2026, 11, 1, 0, 0, 0), utc(2026, 12, 1, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	total := decimal.Zero
	for _, l := range lines {
		c, _ := l.Cost()
		total = total.Add(c)
	}
	return total.StringFixed(2)
}

func storedURIs(t *testing.T, s *Store) string {
	t.Helper()
	var out []string
	for _, r := range tableRows(t, s.DB(), `SELECT uri || ':' || rows FROM source_files ORDER BY uri`) {
		out = append(out, strings.Trim(r, "[]"))
	}
	return strings.Join(out, " ")
}

// TestImportCountsEachChargeOnce imports pairs of files whose charges meet
// and checks the stored total against one computed by hand from the files.
func TestImportCountsEachChargeOnce(t *testing.T) {
	r1 := []string{"i-1"}
	tests := []struct {
		name       string
		a, b       dailyFile
		bReplace   bool
		wantTotal  string // by hand, below
		wantStored string // uri:rows of every stored file
		wantAction string // what b's import says of a ("" none)
		wantErr    string // b refused, the database as after a
	}{{
		// Month-to-date FOCUS: days 1–10 then 1–20 of one account, 10.00 a
		// day: the second replaces the first, 20 × 10.00 = 200.00.
		name:      "month to date, later second",
		a:         dailyFile{name: "mtd-10.csv", account: "111", resources: r1, first: 1, last: 10, cost: "10"},
		b:         dailyFile{name: "mtd-20.csv", account: "111", resources: r1, first: 1, last: 20, cost: "10"},
		wantTotal: "200.00", wantStored: "mtd-20.csv:20", wantAction: OverlapReplaced,
	}, {
		// The same two, the older one second: it is left out, 200.00.
		name:      "month to date, older second",
		a:         dailyFile{name: "mtd-20.csv", account: "111", resources: r1, first: 1, last: 20, cost: "10"},
		b:         dailyFile{name: "mtd-10.csv", account: "111", resources: r1, first: 1, last: 10, cost: "10"},
		wantTotal: "200.00", wantStored: "mtd-20.csv:20", wantAction: OverlapKept,
	}, {
		// The later snapshot restates days 3 and 4 (10 → 12.50): it wins
		// although its first ten days differ, 18 × 10 + 2 × 12.50 = 205.00.
		name: "month to date, restated days",
		a:    dailyFile{name: "mtd-10.csv", account: "111", resources: r1, first: 1, last: 10, cost: "10"},
		b: dailyFile{name: "mtd-20.csv", account: "111", resources: r1, first: 1, last: 20, cost: "10",
			costs: map[int]string{3: "12.50", 4: "12.50"}},
		wantTotal: "205.00", wantStored: "mtd-20.csv:20", wantAction: OverlapReplaced,
	}, {
		// One export in two containers (CSV and Parquet): the same charges,
		// other bytes; counted once, 10 × 10.00 = 100.00.
		name:      "same content",
		a:         dailyFile{name: "focus.csv", account: "111", resources: r1, first: 1, last: 10, cost: "10"},
		b:         dailyFile{name: "focus.parquet", account: "111", resources: r1, first: 1, last: 10, cost: "10"},
		wantTotal: "100.00", wantStored: "focus.csv:10", wantAction: OverlapSame,
	}, {
		// Two accounts of the same month: nothing in common, 100 + 100.
		name:      "other account",
		a:         dailyFile{name: "a.csv", account: "111", resources: r1, first: 1, last: 10, cost: "10"},
		b:         dailyFile{name: "b.csv", account: "222", resources: r1, first: 1, last: 10, cost: "10"},
		wantTotal: "200.00", wantStored: "a.csv:10 b.csv:10",
	}, {
		// A rental platform's weekly files: days 1–7 and 8–14 meet at no
		// charge, 7 × 8 + 7 × 8 = 112.00.
		name:      "rental weeks",
		a:         dailyFile{name: "w1.csv", format: ingest.FormatRental, resources: r1, first: 1, last: 7, cost: "8"},
		b:         dailyFile{name: "w2.csv", format: ingest.FormatRental, resources: r1, first: 8, last: 14, cost: "8"},
		wantTotal: "112.00", wantStored: "w1.csv:7 w2.csv:7",
	}, {
		// Two rental accounts whose files name no account, the same days,
		// other machines: no charge in common, 10 × 8 + 10 × 9 = 170.00.
		name:      "rental accounts without an account column",
		a:         dailyFile{name: "team-a.csv", format: ingest.FormatRental, resources: []string{"m-a"}, first: 1, last: 10, cost: "8"},
		b:         dailyFile{name: "team-b.csv", format: ingest.FormatRental, resources: []string{"m-b"}, first: 1, last: 10, cost: "9"},
		wantTotal: "170.00", wantStored: "team-a.csv:10 team-b.csv:10",
	}, {
		// A rental export downloaded again later, its first ten days
		// unchanged: it holds all of the first, 15 × 8 = 120.00.
		name:      "rental superset",
		a:         dailyFile{name: "r-10.csv", format: ingest.FormatRental, resources: r1, first: 1, last: 10, cost: "8"},
		b:         dailyFile{name: "r-15.csv", format: ingest.FormatRental, resources: r1, first: 1, last: 15, cost: "8"},
		wantTotal: "120.00", wantStored: "r-15.csv:15", wantAction: OverlapReplaced,
	}, {
		// Days 1–10 at 8, then days 5–15 at 9: neither holds the other.
		// Refused; the database keeps a's 10 × 8 = 80.00.
		name:      "rental overlap refused",
		a:         dailyFile{name: "r-a.csv", format: ingest.FormatRental, resources: r1, first: 1, last: 10, cost: "8"},
		b:         dailyFile{name: "r-b.csv", format: ingest.FormatRental, resources: r1, first: 5, last: 15, cost: "9"},
		wantTotal: "80.00", wantStored: "r-a.csv:10",
		wantErr: "r-b.csv: its charges of AWS (no billing account), 2026-11", // in full below
	}, {
		// The same with --replace: b wins from day 5, a keeps days 1–4:
		// 4 × 8 + 11 × 9 = 32 + 99 = 131.00.
		name:     "rental overlap replaced",
		a:        dailyFile{name: "r-a.csv", format: ingest.FormatRental, resources: r1, first: 1, last: 10, cost: "8"},
		b:        dailyFile{name: "r-b.csv", format: ingest.FormatRental, resources: r1, first: 5, last: 15, cost: "9"},
		bReplace: true, wantTotal: "131.00", wantStored: "r-a.csv:4 r-b.csv:11", wantAction: OverlapReplaced,
	}, {
		// The same days restated (every amount 10 → 11): the later file
		// holds every charge of the earlier, so no charge is lost and it
		// replaces it: 10 × 11 = 110.00.
		name:      "a restatement of the same days",
		a:         dailyFile{name: "x.csv", account: "111", resources: r1, first: 1, last: 10, cost: "10"},
		b:         dailyFile{name: "y.csv", account: "111", resources: r1, first: 1, last: 10, cost: "11"},
		wantTotal: "110.00", wantStored: "y.csv:10", wantAction: OverlapReplaced,
	}, {
		// The same month's file rewritten at the same path with days 3–4
		// restated (10 → 12.50): it holds every charge of the old bytes, so
		// it replaces them (for that reason, not for its name): 8 × 10 +
		// 2 × 12.50 = 105.00.
		name: "rewritten at the same path",
		a:    dailyFile{name: "focus-2026-11.csv", account: "111", resources: r1, first: 1, last: 10, cost: "10"},
		b: dailyFile{name: "focus-2026-11.csv", account: "111", resources: r1, first: 1, last: 10, cost: "10",
			costs: map[int]string{3: "12.50", 4: "12.50"}},
		wantTotal: "105.00", wantStored: "focus-2026-11.csv:10", wantAction: OverlapReplaced,
	}, {
		// Two different pipes are two files, though both are recorded as
		// stdin: the overlap of days 5–10 is refused, a's 80.00 stays.
		name: "standard input twice",
		a:    dailyFile{name: StdinURI, format: ingest.FormatRental, resources: r1, first: 1, last: 10, cost: "8"},
		b: dailyFile{name: StdinURI, format: ingest.FormatRental, resources: r1, first: 5, last: 15, cost: "9",
			costs: map[int]string{15: "9"}},
		wantTotal: "80.00", wantStored: "stdin:10", wantErr: "neither file holds all of the other's",
	}, {
		// Two parts of one delivery (a CUR in two files) that share
		// charges: never compared, 100 + 110.
		name: "parts of one delivery",
		a: dailyFile{name: "part-1.csv.gz", format: ingest.FormatCUR, account: "111", resources: r1, first: 1, last: 10, cost: "10",
			period: "aws-cur:111:2026-11", delivery: "aaaa"},
		b: dailyFile{name: "part-2.csv.gz", format: ingest.FormatCUR, account: "111", resources: r1, first: 1, last: 10, cost: "11",
			period: "aws-cur:111:2026-11", delivery: "aaaa"},
		wantTotal: "210.00", wantStored: "part-1.csv.gz:10 part-2.csv.gz:10",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			if _, err := importDaily(t, s, tt.a, false); err != nil {
				t.Fatal(err)
			}
			res, err := importDaily(t, s, tt.b, tt.bReplace)
			switch {
			case tt.wantErr != "":
				var oe *OverlapError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &oe) {
					t.Fatalf("import %s: err = %v, want an OverlapError with %q", tt.b.name, err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), "--replace "+tt.b.name) || !strings.Contains(err.Error(), tt.a.name) {
					t.Errorf("the refusal names neither the other file nor --replace: %v", err)
				}
			case err != nil:
				t.Fatalf("import %s: %v", tt.b.name, err)
			default:
				var action string
				for _, n := range res.Overlaps {
					if n.Other == tt.a.name {
						action = n.Action
					}
				}
				if action != tt.wantAction {
					t.Errorf("overlap action = %q, want %q (%+v)", action, tt.wantAction, res.Overlaps)
				}
			}
			if got := novemberTotal(t, s); got != tt.wantTotal {
				t.Errorf("total = %s, want %s", got, tt.wantTotal)
			}
			if got := storedURIs(t, s); got != tt.wantStored {
				t.Errorf("stored = %s, want %s", got, tt.wantStored)
			}
		})
	}
}

// TestOverlapRefusalNamesTheOverlap: the refusal gives both files, the
// account and month, both ranges, the overlap and both amounts.
func TestOverlapRefusalNamesTheOverlap(t *testing.T) {
	s := openTest(t)
	a := dailyFile{name: "r-a.csv", format: ingest.FormatRental, account: "acct-9", resources: []string{"i-1"}, first: 1, last: 10, cost: "8"}
	b := dailyFile{name: "r-b.csv", format: ingest.FormatRental, account: "acct-9", resources: []string{"i-1"}, first: 5, last: 15, cost: "9"}
	if _, err := importDaily(t, s, a, false); err != nil {
		t.Fatal(err)
	}
	_, err := importDaily(t, s, b, false)
	// a: 10 lines, 80.00 USD over Nov 1–11; b: 11 lines, 99.00 USD over
	// Nov 5–16; they overlap from Nov 5 to Nov 11, on 6 charges (days 5–10).
	for _, want := range []string{"r-b.csv: its charges of AWS account acct-9, 2026-11",
		"(2026-11-05 00:00 .. 2026-11-16 00:00, 11 lines, 99.00 USD)", "those of r-a.csv",
		"(2026-11-01 00:00 .. 2026-11-11 00:00, 10 lines, 80.00 USD)", "from 2026-11-05 00:00 to 2026-11-11 00:00 with 6 charges in both",
		"finops ingest --replace r-b.csv"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant it to say %q", err, want)
		}
	}
}

// TestReplacedFileStaysReplaced: a snapshot replaced whole by a later one
// is not imported again (its bytes are known), unless on purpose, when it
// comes back and the later one's overlapping lines go.
func TestReplacedFileStaysReplaced(t *testing.T) {
	s := openTest(t)
	a := dailyFile{name: "mtd-10.csv", account: "111", resources: []string{"i-1"}, first: 1, last: 10, cost: "10"}
	b := dailyFile{name: "mtd-20.csv", account: "111", resources: []string{"i-1"}, first: 1, last: 20, cost: "10",
		costs: map[int]string{2: "15"}}
	for _, f := range []dailyFile{a, b} {
		if _, err := importDaily(t, s, f, false); err != nil {
			t.Fatal(err)
		}
	}
	res, err := importDaily(t, s, a, false)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Superseded || res.DuplicateOf != a.name {
		t.Errorf("import again: %+v, want superseded", res)
	}
	// b: 19 × 10 + 15 = 205.00.
	if got := novemberTotal(t, s); got != "205.00" {
		t.Errorf("total = %s, want 205.00", got)
	}
	// Brought back on purpose: a's days 1–10 (100.00) and b's days 11–20
	// (100.00) = 200.00.
	if _, err := importDaily(t, s, a, true); err != nil {
		t.Fatal(err)
	}
	if got := novemberTotal(t, s); got != "200.00" {
		t.Errorf("after --replace: total = %s, want 200.00", got)
	}
	if got := storedURIs(t, s); got != "mtd-10.csv:10 mtd-20.csv:10" {
		t.Errorf("stored = %s", got)
	}
}

// TestReplaceReimportsTheSameBytes: --replace reads a file imported before
// again (after a mapping change) and its new lines replace its own.
func TestReplaceReimportsTheSameBytes(t *testing.T) {
	s := openTest(t)
	f := dailyFile{name: "autodl.csv", format: ingest.FormatRental, resources: []string{"i-1"}, first: 1, last: 3, cost: "100"}
	if _, err := importDaily(t, s, f, false); err != nil {
		t.Fatal(err)
	}
	res, err := importDaily(t, s, f, false)
	if err != nil || !res.Duplicate {
		t.Fatalf("the same bytes again: %+v, %v; want a duplicate", res, err)
	}
	// The mapping now reads a GPU count: the same bytes, other lines.
	lines, _ := f.lines()
	for _, l := range lines {
		l.GPUModel, l.GPUCount = "A100-80GB", 2
	}
	sum := &ingest.Summary{Format: ingest.FormatRental, Kind: ingest.KindBilling, Rows: len(lines), TotalCost: decimal.RequireFromString("300")}
	res, err = s.Import(context.Background(), f.meta(true), feed(sum, lines, nil, nil))
	if err != nil || res.Duplicate {
		t.Fatalf("--replace: %+v, %v", res, err)
	}
	got := tableRows(t, s.DB(), `SELECT count(*) || ' lines, ' || sum(gpu_count) || ' GPUs' FROM billing_lines`)
	if want := "[3 lines, 6 GPUs]"; len(got) != 1 || got[0] != want {
		t.Errorf("after --replace: %v, want %s", got, want)
	}
	if got := storedURIs(t, s); got != "autodl.csv:3" {
		t.Errorf("stored = %s", got)
	}
}

// TestOverlapWithSourceImportedBeforeScopes: a file imported by a finops
// without source_scopes is summarised when a file of its period comes.
func TestOverlapWithSourceImportedBeforeScopes(t *testing.T) {
	s := openTest(t)
	a := dailyFile{name: "mtd-10.csv", account: "111", resources: []string{"i-1", "i-2"}, first: 1, last: 10, cost: "10"}
	if _, err := importDaily(t, s, a, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`DELETE FROM source_scopes; UPDATE source_files SET scoped = 0`); err != nil {
		t.Fatal(err)
	}
	b := dailyFile{name: "mtd-20.csv", account: "111", resources: []string{"i-1", "i-2"}, first: 1, last: 20, cost: "10"}
	if _, err := importDaily(t, s, b, false); err != nil {
		t.Fatal(err)
	}
	// 2 resources × 20 days × 10.00.
	if got := novemberTotal(t, s); got != "400.00" {
		t.Errorf("total = %s, want 400.00", got)
	}
}

// TestImportGroupAllOrNothing: a delivery whose second file fails leaves
// the database as it was, the earlier delivery of its period included.
func TestImportGroupAllOrNothing(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	period := "aws-cur:111:2026-11"
	good := dailyFile{name: "a/part-1.csv.gz", format: ingest.FormatCUR, account: "111", resources: []string{"i-1"}, first: 1, last: 10,
		cost: "10", period: period, delivery: "aaaa"}
	if _, err := importDaily(t, s, good, false); err != nil {
		t.Fatal(err)
	}
	n1 := dailyFile{name: "b/part-1.csv.gz", format: ingest.FormatCUR, account: "111", resources: []string{"i-1"}, first: 1, last: 5,
		cost: "1", period: period, delivery: "bbbb"}
	bad := func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		return nil, fmt.Errorf("b/part-2.csv.gz:7: field \"cost\": not a number")
	}
	_, err := s.ImportGroup(ctx, []FileImport{{n1.meta(false), n1.parse()}, {FileMeta{URI: "b/part-2.csv.gz", SHA256: shaOf("b2"),
		Period: period, Delivery: "bbbb"}, bad}})
	if err == nil || !strings.Contains(err.Error(), "part-2.csv.gz:7") {
		t.Fatalf("err = %v, want the bad file's", err)
	}
	// The good delivery stays whole: 10 × 10.00.
	if got := novemberTotal(t, s); got != "100.00" {
		t.Errorf("total = %s, want 100.00", got)
	}
	if got := storedURIs(t, s); got != "a/part-1.csv.gz:10" {
		t.Errorf("stored = %s", got)
	}
	if err := s.RecordFailedImport(ctx, FailedImport{URI: "b/manifest.json", Period: period, Delivery: "bbbb", Error: err.Error()}); err != nil {
		t.Fatal(err)
	}
	failed, err := s.FailedImports(ctx)
	if err != nil || len(failed) != 1 || failed[0].Delivery != "bbbb" {
		t.Fatalf("FailedImports = %+v, %v", failed, err)
	}
	// A later delivery of the period that imports whole clears it.
	n3 := dailyFile{name: "c/part-1.csv.gz", format: ingest.FormatCUR, account: "111", resources: []string{"i-1"}, first: 1, last: 12,
		cost: "10", period: period, delivery: "cccc"}
	if _, err := importDaily(t, s, n3, false); err != nil {
		t.Fatal(err)
	}
	if failed, err := s.FailedImports(ctx); err != nil || len(failed) != 0 {
		t.Errorf("after a good delivery: FailedImports = %+v, %v", failed, err)
	}
	if got := novemberTotal(t, s); got != "120.00" {
		t.Errorf("total = %s, want 120.00", got)
	}
}

// TestHashDecimal: the decimal text a content hash reads, by hand.
func TestHashDecimal(t *testing.T) {
	for in, want := range map[string]string{
		"0.000004255212843": "0.000004", "0.00000425521284": "0.000004", "12": "12", "12.5": "12.5",
		"0.0000003702": "0", "-0.0000001": "0", "-1.2345678": "-1.234567", "100.000001": "100.000001", "3.10": "3.1",
	} {
		if got := hashDecimal(in); got != want {
			t.Errorf("hashDecimal(%s) = %s, want %s", in, got, want)
		}
	}
}
