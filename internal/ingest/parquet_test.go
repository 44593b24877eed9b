package ingest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

const cur2ParquetDelivery = "parquet/cur2/exports/gpu-export/data/BILLING_PERIOD=2026-01/gpu-export-00001.snappy.parquet"

// lineKey is what a billing line says, with costs rounded to places and the
// source line left out: a Parquet row and the CSV line it was written from
// must say the same.
func lineKey(l *finops.BillingLine, places int32) string {
	dec := func(d *decimal.Decimal) string {
		if d == nil {
			return "null"
		}
		return d.Round(places).String()
	}
	keys := make([]string, 0, len(l.Tags))
	for k, v := range l.Tags {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	return fmt.Sprintf("%s..%s %s/%s %s %s %s/%s/%s/%s %s %s %s %s %s billed=%s eff=%s list=%s qty=%s %s %s×%d %s tags=%v",
		l.ChargeStart.UTC().Format(time.RFC3339Nano), l.ChargeEnd.UTC().Format(time.RFC3339Nano),
		l.Provider, l.BillingAccount, l.SubAccount, l.ResourceID,
		l.ChargeCategory, l.ChargeClass, l.ChargeFrequency, l.PricingCategory, l.PricingMode,
		l.Service, l.SKU, l.Region, l.Currency,
		dec(l.BilledCost), dec(l.EffectiveCost), dec(l.ListCost), dec(l.UsageQuantity),
		l.InstanceType, l.GPUModel, l.GPUCount, l.CommitmentStatus, keys)
}

// TestParquetMatchesCSV reads Parquet files DuckDB wrote from the CSV samples
// (testdata/ingest/parquet/generate.mjs) and checks that every line, and the
// total, are what the CSV gives: the Parquet path only turns rows into cells.
func TestParquetMatchesCSV(t *testing.T) {
	for _, tc := range []struct {
		parquet, csv string
		format       string
		places       int32 // DECIMAL(38,10) keeps 10 decimals; a double keeps the CSV's text
	}{
		{"parquet/focus_double.parquet", "focus_sample.csv", FormatFOCUS, 20},
		{"parquet/focus_decimal.parquet", "focus_sample.csv", FormatFOCUS, 10},
		{cur2ParquetDelivery, "aws/cur2/exports/gpu-export/data/BILLING_PERIOD=2026-01/gpu-export-00001.csv.gz", FormatCUR2, 20},
	} {
		t.Run(filepath.Base(tc.parquet), func(t *testing.T) {
			pq, pqLines := mustParse(t, tc.parquet, Options{})
			cs, csLines := mustParse(t, tc.csv, Options{})
			if pq.Format != tc.format || pq.Rows != cs.Rows || pq.Rows == 0 {
				t.Fatalf("parquet: %s, %d rows; csv: %s, %d rows; want %s and the same rows", pq.Format, pq.Rows, cs.Format, cs.Rows, tc.format)
			}
			for i := range csLines.lines {
				if a, b := lineKey(pqLines.lines[i], tc.places), lineKey(csLines.lines[i], tc.places); a != b {
					t.Fatalf("row %d:\nparquet %s\ncsv     %s", i+1, a, b)
				}
				if pqLines.lines[i].Line != i+1 {
					t.Fatalf("row %d is numbered %d", i+1, pqLines.lines[i].Line)
				}
			}
			if pq.TotalCost.StringFixed(2) != cs.TotalCost.StringFixed(2) || pq.GPULines != cs.GPULines ||
				!pq.PeriodStart.Equal(cs.PeriodStart) || !pq.PeriodEnd.Equal(cs.PeriodEnd) {
				t.Fatalf("parquet total %s, %d GPU lines, %v..%v; csv %s, %d, %v..%v", pq.TotalCost, pq.GPULines, pq.PeriodStart, pq.PeriodEnd,
					cs.TotalCost, cs.GPULines, cs.PeriodStart, cs.PeriodEnd)
			}
			if tc.format == FormatFOCUS {
				// Independently of both parsers: Σ EffectiveCost, else BilledCost, of the CSV by encoding/csv.
				want := scanFOCUS(t, testdata(tc.csv))
				if pq.TotalCost.StringFixed(2) != want.costSum.StringFixed(2) {
					t.Fatalf("parquet total %s, the CSV's column sums to %s", pq.TotalCost, want.costSum)
				}
			}
		})
	}
}

// TestParquetCUR2Delivery: a Data Exports delivery in Parquet, through its
// manifest, plans and parses like the CSV one. The CSV delivery's five lines
// sum to 98.32 + 0.7520 + … as its own test (cloud_test.go) computes.
func TestParquetCUR2Delivery(t *testing.T) {
	m, err := ReadManifest(testdata("parquet/cur2/exports/gpu-export/metadata/BILLING_PERIOD=2026-01/gpu-export-Manifest.json"))
	if err != nil || len(m.Files) != 1 || !strings.HasSuffix(m.Files[0], ".snappy.parquet") {
		t.Fatalf("manifest: %+v, %v", m, err)
	}
	sum, sink := mustParse(t, cur2ParquetDelivery, Options{})
	l := sink.lines[0]
	// Row 1 of the CSV: p5.48xlarge (8 × H100), 98.32 USD, tags {"user_team": "ml", ...} in a MAP column.
	if sum.Format != FormatCUR2 || l.GPUModel != "H100" || l.GPUCount != 8 || l.BilledCost.String() != "98.32" ||
		l.Tags["team"] != "ml" || l.Service != "Amazon Elastic Compute Cloud" {
		t.Fatalf("row 1: %s", lineKey(l, 20))
	}
}

// TestParquetRefusals: bad Parquet files are refused naming file, row and
// column, or saying the file is cut off; nothing panics.
func TestParquetRefusals(t *testing.T) {
	dir := t.TempDir()
	whole := readFile(t, testdata("parquet/focus_double.parquet"))
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(whole)
	zw.Close()
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"text in BilledCost (FOCUS)", testdata("parquet/bad_cost_text.parquet"),
			[]string{"bad_cost_text.parquet: row 3", `field "BilledCost"`, `"abc"`}},
		{"text in line_item_unblended_cost (CUR 2.0)", testdata("parquet/bad_cur2_cost_text.parquet"),
			[]string{"bad_cur2_cost_text.parquet: row 2", `field "line_item_unblended_cost"`, `"abc"`}},
		{"cut in half", write("half.parquet", whole[:len(whole)/2]), []string{"half.parquet", "truncated or corrupt"}},
		{"footer cut", write("footer.parquet", whole[:len(whole)-10]), []string{"footer.parquet", "truncated or corrupt"}},
		{"magic only", write("magic.parquet", []byte("PAR1")), []string{"magic.parquet", "truncated or corrupt"}},
		{"pages zeroed", write("zeroed.parquet", zeroed(whole)), []string{"zeroed.parquet", "corrupt"}},
		{"gzip of a parquet", write("x.parquet.gz", gz.Bytes()), []string{"x.parquet.gz", "extract it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Open(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			_, err = Parse(t.Context(), f, Options{Name: tc.path}, &countSink{})
			wantErrParts(t, err, tc.want...)
		})
	}
}

// zeroed is a Parquet file whose data pages are zeros: footer intact.
func zeroed(b []byte) []byte {
	out := bytes.Clone(b)
	for i := 4; i < len(out)/2; i++ {
		out[i] = 0
	}
	return out
}

// TestParquetBadRowsCounted: a bad row counts against MaxBadRows as in a CSV
// and the others are read.
func TestParquetBadRowsCounted(t *testing.T) {
	sum, _, err := parseFile(t, "parquet/bad_cost_text.parquet", Options{MaxBadRows: 1})
	if err != nil || sum.Rows != 4 || len(sum.Rejected) != 1 || sum.Rejected[0].Line != 3 {
		t.Fatalf("sum %+v, err %v; want 4 rows and row 3 rejected", sum, err)
	}
}

// TestParquetDecimalText: DECIMAL unscaled integers are written exactly,
// never through a float. Expectations worked by hand.
func TestParquetDecimalText(t *testing.T) {
	for _, tc := range []struct {
		unscaled []byte // big-endian two's complement, as FIXED_LEN_BYTE_ARRAY
		scale    int
		want     string
	}{
		{[]byte{0x30, 0x39}, 2, "123.45"},          // 12345
		{[]byte{0xcf, 0xc7}, 2, "-123.45"},         // 65536 − 12345 = 53191 = 0xcfc7
		{[]byte{0x08}, 10, "0.0000000008"},         // 8 × 10⁻¹⁰
		{[]byte{0xff}, 3, "-0.001"},                // −1
		{[]byte{0x00}, 0, "0"},                     //
		{[]byte{0x01}, -2, "100"},                  // 1 × 10²
		{bytes.Repeat([]byte{0x7f}, 1), 1, "12.7"}, // 127
		{[]byte{0x0d, 0xe0, 0xb6, 0xb3, 0xa7, 0x64, 0x00, 0x01}, 18, "1.000000000000000001"}, // 10¹⁸ + 1
	} {
		if got := scaled(twosComplement(tc.unscaled), tc.scale); got != tc.want {
			t.Errorf("%x scale %d: %s, want %s", tc.unscaled, tc.scale, got, tc.want)
		}
	}
	if got := scaled(big.NewInt(-5), 1); got != "-0.5" {
		t.Errorf("-5 scale 1: %s", got)
	}
}

// TestParquetTimeUnits: timestamps in millis, micros and nanos, before and
// after the epoch.
func TestParquetTimeUnits(t *testing.T) {
	want := time.Date(2024, 9, 18, 22, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		n    int64
		unit time.Duration
	}{
		{want.UnixMilli(), time.Millisecond}, {want.UnixMicro(), time.Microsecond}, {want.UnixNano(), time.Nanosecond},
	} {
		if got := unixIn(tc.n, tc.unit); !got.Equal(want) {
			t.Errorf("%d %v: %v", tc.n, tc.unit, got)
		}
	}
	if got := unixIn(-1, time.Millisecond); !got.Equal(time.Unix(0, -int64(time.Millisecond))) {
		t.Errorf("-1 ms: %v", got)
	}
}
