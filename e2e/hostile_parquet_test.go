package e2e

// Parquet exports (issue 13 item 7): a Parquet file checks and imports to the
// same total as the CSV it was written from (by DuckDB, testdata/ingest/
// parquet/generate.mjs), a Parquet delivery is planned through its manifest,
// and a bad Parquet file is refused naming file, row and column, leaving the
// database as it was.

import (
	"compress/gzip"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

var checkTotal = regexp.MustCompile(`(?m)^  total cost: (\S+)`)

// checkedTotal runs `finops ingest --check path` and returns the total it prints.
func checkedTotal(t *testing.T, path string) string {
	t.Helper()
	code, out, errOut := runFinops(t, "ingest", "--check", path)
	m := checkTotal.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("--check %s: exit %d: %s %s", path, code, out, errOut)
	}
	return m[1]
}

func TestHostileParquetTotals(t *testing.T) {
	td := filepath.Join(repoRoot(t), "testdata", "ingest")
	cur2CSV := filepath.Join(td, "aws", "cur2", "exports", "gpu-export", "data", "BILLING_PERIOD=2026-01", "gpu-export-00001.csv.gz")
	// Expected totals come from --check of the CSV each Parquet file was
	// written from, and (CUR 2.0) from the CSV's columns summed here by the
	// amortized-cost rule AWS documents (cur.go): covered usage at its Savings
	// Plan effective cost, the negation 0, anything else unblended. By hand:
	// 98.32 + 0.7520 + 7.9 + 0 + 4.4 = 111.372.
	for _, tc := range []struct{ parquet, csv, byHand string }{
		{filepath.Join(td, "parquet", "focus_double.parquet"), filepath.Join(td, "focus_sample.csv"), ""},
		{filepath.Join(td, "parquet", "focus_decimal.parquet"), filepath.Join(td, "focus_sample.csv"), ""},
		{filepath.Join(td, "parquet", "cur2"), filepath.Join(td, "aws", "cur2"), "amortized"},
	} {
		t.Run(filepath.Base(tc.parquet), func(t *testing.T) {
			got, want := checkedTotal(t, tc.parquet), checkedTotal(t, tc.csv)
			if dec(t, got).StringFixed(2) != dec(t, want).StringFixed(2) {
				t.Fatalf("--check %s: total %s; its CSV: %s", tc.parquet, got, want)
			}
			if tc.byHand != "" {
				if s := amortizedCUR2(t, cur2CSV); s.StringFixed(2) != dec(t, got).StringFixed(2) || s.String() != "111.372" {
					t.Fatalf("total %s, the CSV's amortized cost sums to %s (111.372 by hand)", got, s)
				}
			}
		})
	}
	// Imported, the Parquet delivery stores what --check said.
	db := filepath.Join(t.TempDir(), "f.db")
	code, out, errOut := runFinops(t, "--db", db, "ingest", filepath.Join(td, "parquet", "cur2"))
	if code != 0 || !strings.Contains(out, "gpu-export-00001.snappy.parquet: aws-cur2, 5 rows") {
		t.Fatalf("ingest: exit %d: %s %s", code, out, errOut)
	}
}

// amortizedCUR2 sums a gzipped CUR 2.0 CSV's amortized cost with
// encoding/csv, apart from every finops parser.
func amortizedCUR2(t *testing.T, path string) decimal.Decimal {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(zr).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	typ, unblended := slices.Index(recs[0], "line_item_line_item_type"), slices.Index(recs[0], "line_item_unblended_cost")
	spEffective := slices.Index(recs[0], "savings_plan_savings_plan_effective_cost")
	var sum decimal.Decimal
	for _, r := range recs[1:] {
		switch r[typ] {
		case "SavingsPlanCoveredUsage":
			sum = sum.Add(dec(t, r[spEffective]))
		case "SavingsPlanNegation":
		default:
			sum = sum.Add(dec(t, r[unblended]))
		}
	}
	return sum
}

func dec(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestHostileParquetRefused(t *testing.T) {
	td := filepath.Join(repoRoot(t), "testdata", "ingest", "parquet")
	db, before := hostileDB(t)
	whole, err := os.ReadFile(filepath.Join(td, "focus_double.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.parquet")
	if err := os.WriteFile(cut, whole[:len(whole)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	refused(t, db, before, []string{filepath.Join(td, "bad_cost_text.parquet")}, "bad_cost_text.parquet: row 3", `"BilledCost"`, `"abc"`)
	refused(t, db, before, []string{filepath.Join(td, "bad_cur2_cost_text.parquet")}, "bad_cur2_cost_text.parquet: row 2", `"line_item_unblended_cost"`, `"abc"`)
	refused(t, db, before, []string{cut}, "cut.parquet", "truncated or corrupt")
}
