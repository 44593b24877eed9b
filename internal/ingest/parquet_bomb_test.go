package ingest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

type bombRow struct {
	BilledCost        float64           `parquet:"BilledCost"`
	ChargePeriodStart string            `parquet:"ChargePeriodStart"`
	ChargePeriodEnd   string            `parquet:"ChargePeriodEnd"`
	BillingCurrency   string            `parquet:"BillingCurrency"`
	ChargeCategory    string            `parquet:"ChargeCategory"`
	ResourceID        string            `parquet:"ResourceId"`
	Tags              map[string]string `parquet:"Tags"`
}

func bombLine(i int) bombRow {
	s := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i%720) * time.Hour)
	return bombRow{BilledCost: float64(i%1000) / 100, ChargePeriodStart: s.Format(time.RFC3339),
		ChargePeriodEnd: s.Add(time.Hour).Format(time.RFC3339), BillingCurrency: "USD", ChargeCategory: "Usage",
		ResourceID: "i-" + strconv.Itoa(i), Tags: map[string]string{"team": "nlp"}}
}

func writeBomb(t *testing.T, path string, rows []bombRow, opts ...parquet.WriterOption) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[bombRow](f, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// writeWide writes FOCUS rows with n x_ columns beside the usual ones.
func writeWide(t *testing.T, path string, n, rows int) {
	t.Helper()
	g := parquet.Group{}
	for _, c := range []string{"ChargePeriodStart", "ChargePeriodEnd", "BillingCurrency", "ChargeCategory", "BilledCost"} {
		g[c] = parquet.String()
	}
	for i := range n {
		g[fmt.Sprintf("x_c%05d", i)] = parquet.String()
	}
	schema := parquet.NewSchema("focus", g)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[any](f, schema, parquet.Compression(&parquet.Zstd), parquet.SkipPageBounds("ResourceId"), parquet.DataPageStatistics(false))
	for r := range rows {
		row := make(parquet.Row, 0, len(schema.Columns()))
		for i, col := range schema.Columns() {
			v := "v"
			switch col[0] {
			case "ChargePeriodStart":
				v = "2026-11-01T00:00:00Z"
			case "ChargePeriodEnd":
				v = "2026-11-01T01:00:00Z"
			case "BillingCurrency":
				v = "USD"
			case "ChargeCategory":
				v = "Usage"
			case "BilledCost":
				v = strconv.Itoa(r)
			}
			row = append(row, parquet.ValueOf(v).Level(0, 0, i))
		}
		if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

var bombHWM = regexp.MustCompile(`VmHWM:\s+(\d+) kB`)

// parseInChild parses path in a child process (this test binary) and
// returns its error text and peak RSS in MiB.
func parseInChild(t *testing.T, path string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestParquetBombChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FINOPS_PARQUET_BOMB_CHILD="+path)
	out, _ := cmd.CombinedOutput()
	m := regexp.MustCompile(`(?s)bomb-result: (.*?) VmHWM:\s+(\d+) kB`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("child said %s", out)
	}
	kb, _ := strconv.Atoi(string(m[2]))
	return string(m[1]), kb >> 10
}

func TestParquetBombChild(t *testing.T) {
	path := os.Getenv("FINOPS_PARQUET_BOMB_CHILD")
	if path == "" {
		t.Skip("the child of TestParquetBombs")
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := Parse(t.Context(), f, Options{Name: path}, &countSink{})
	status, _ := os.ReadFile("/proc/self/status")
	res := fmt.Sprint(err)
	if err == nil {
		res = fmt.Sprintf("ok rows=%d total=%s", sum.Rows, sum.TotalCost.StringFixed(2))
	}
	fmt.Printf("bomb-result: %s %s\n", strings.ReplaceAll(res, "\n", " "), bombHWM.FindString(string(status)))
}

// TestParquetBombs: small Parquet files that state huge values are refused
// before the values are built, naming the file, the row and the column, in
// a child process whose peak RSS stays under 64 MiB: a 40 MiB ResourceId
// in a 9 KB file (its page is over maxParquetPage: refused from the page
// header, never decompressed), a 12 MiB one on row 2 (a page under the cap,
// a row over the CSV record's 8 MiB), 10,000 x_ columns, and a Tags map of
// 100,000 entries. Before, each was read: the first took over 300 MB, the
// columns 327 MB (a 900 MB value took 4.4 GB).
func TestParquetBombs(t *testing.T) {
	dir := t.TempDir()
	bigValue := func(name string, row, size int) string {
		path := filepath.Join(dir, name)
		rows := []bombRow{bombLine(1), bombLine(2), bombLine(3)}
		rows[row-1].ResourceID = strings.Repeat("i", size)
		// No statistics: they would hold the value too (in the footer and
		// the page header), and the file is meant to be small.
		writeBomb(t, path, rows, parquet.Compression(&parquet.Zstd), parquet.SkipPageBounds("ResourceId"),
			parquet.DataPageStatistics(false))
		return path
	}
	tags := filepath.Join(dir, "tags.parquet")
	rows := []bombRow{bombLine(1)}
	for i := range 100000 {
		rows[0].Tags[fmt.Sprintf("k%06d", i)] = "v"
	}
	writeBomb(t, tags, rows, parquet.Compression(&parquet.Zstd))
	wide := filepath.Join(dir, "wide.parquet")
	writeWide(t, wide, 10000, 3)
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"40 MiB value", bigValue("value.parquet", 2, 40<<20),
			[]string{"value.parquet: row 1", `field "ResourceId"`, "a Parquet page of 41943", "holds rows 1–3", "a value at most 8 MiB"}},
		{"12 MiB value on row 2", bigValue("row.parquet", 2, 12<<20),
			[]string{"row.parquet: row 2", `field "ResourceId"`, "the row is 1258", "a row is at most 8 MiB"}},
		{"10,000 x_ columns", wide, []string{"wide.parquet", "more than 2048 columns (10005 top-level fields)"}},
		{"100,000 tags", tags, []string{"tags.parquet: row 1", `field "Tags"`, "100001 entries in one cell", "at most 4096"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fi, err := os.Stat(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			res, mb := parseInChild(t, tc.path)
			t.Logf("%d bytes on disk: peak RSS %d MiB: %s", fi.Size(), mb, res)
			for _, w := range tc.want {
				if !strings.Contains(res, w) {
					t.Errorf("result lacks %q:\n%s", w, res)
				}
			}
			if mb > 64 {
				t.Errorf("peak RSS %d MiB, over 64 MiB", mb)
			}
		})
	}
}

// TestParquetLZ4Raw: a FOCUS file compressed with LZ4_RAW (DuckDB writes
// it), whose pages compress less than 3×, is read line for line as the CSV
// of the same rows. parquet-go's own LZ4_RAW decoder lost such pages (the
// file was refused as corrupt, or read wrong).
func TestParquetLZ4Raw(t *testing.T) {
	dir := t.TempDir()
	var rows []bombRow
	var csv strings.Builder
	csv.WriteString("BilledCost,ChargePeriodStart,ChargePeriodEnd,BillingCurrency,ChargeCategory,ResourceId,Tags\n")
	x := uint64(88172645463325252)
	for i := range 5000 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		r := bombLine(i)
		r.BilledCost = float64(x%1000000) / 100
		r.ResourceID = fmt.Sprintf("i-%016x", x)
		rows = append(rows, r)
		fmt.Fprintf(&csv, "%s,%s,%s,USD,Usage,%s,\"{\"\"team\"\":\"\"nlp\"\"}\"\n",
			strconv.FormatFloat(r.BilledCost, 'f', -1, 64), r.ChargePeriodStart, r.ChargePeriodEnd, r.ResourceID)
	}
	pq, cs := filepath.Join(dir, "lz4.parquet"), filepath.Join(dir, "same.csv")
	writeBomb(t, pq, rows, parquet.Compression(&parquet.Lz4Raw))
	if err := os.WriteFile(cs, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	parse := func(path string) (*Summary, *recSink) {
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sink := &recSink{}
		sum, err := Parse(t.Context(), f, Options{Name: path}, sink)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		return sum, sink
	}
	ps, pl := parse(pq)
	cs2, cl := parse(cs)
	if ps.Rows != 5000 || cs2.Rows != 5000 || ps.TotalCost.String() != cs2.TotalCost.String() {
		t.Fatalf("parquet %d rows, total %s; csv %d rows, total %s", ps.Rows, ps.TotalCost, cs2.Rows, cs2.TotalCost)
	}
	for i := range cl.lines {
		if a, b := lineKey(pl.lines[i], 20), lineKey(cl.lines[i], 20); a != b {
			t.Fatalf("row %d:\nparquet %s\ncsv     %s", i+1, a, b)
		}
	}
	t.Logf("5,000 rows, total %s", ps.TotalCost)
}
