package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/store"
)

// A bill is counted once (issue #24): the same charges delivered again in
// other bytes, a month-to-date snapshot downloaded twice, a restated
// delivery with a bad file. Every expected total is summed from the files
// with encoding/csv and decimals (csvColumnSum), not by finops.

// storedEffective sums effective_cost of every stored billing line.
func storedEffective(t *testing.T, db string) (n int, sum decimal.Decimal) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q, err := st.DB().Query(`SELECT effective_cost FROM billing_lines`)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for q.Next() {
		var ec *string
		if err := q.Scan(&ec); err != nil {
			t.Fatal(err)
		}
		n++
		if ec != nil {
			sum = sum.Add(decimal.RequireFromString(*ec))
		}
	}
	return n, sum
}

// writeFOCUSUntil writes the FOCUS sample's rows whose ChargePeriodStart
// is before day (a month-to-date download of September 2024 made on that
// day) to dir/name.
func writeFOCUSUntil(t *testing.T, dir, name, day string) string {
	t.Helper()
	return writeFOCUSBetween(t, dir, name, "", day)
}

// writeFOCUSBetween writes the FOCUS sample's rows whose ChargePeriodStart
// is in [from, to) to dir/name.
func writeFOCUSBetween(t *testing.T, dir, name, from, to string) string {
	t.Helper()
	b, err := os.ReadFile(cloudTestdata(t, "focus_sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range recs[0] {
		if h == "ChargePeriodStart" {
			col = i
		}
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	w.Write(recs[0])
	for _, rec := range recs[1:] {
		if rec[col] >= from && rec[col] < to {
			w.Write(rec)
		}
	}
	w.Flush()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIngestMonthToDateFOCUS: September 2024's FOCUS sample downloaded on
// the 11th (days 1–10) and on the 21st (days 1–20), imported in either
// order: the total is the later download's, once, never the sum.
func TestIngestMonthToDateFOCUS(t *testing.T) {
	dir := t.TempDir()
	early := writeFOCUSUntil(t, dir, "focus-2024-09-to-10.csv", "2024-09-11")
	late := writeFOCUSUntil(t, dir, "focus-2024-09-to-20.csv", "2024-09-21")
	want, rows, nulls := csvColumnSum(t, late, "EffectiveCost")
	earlyCost, _, _ := csvColumnSum(t, early, "EffectiveCost")
	if want.Equal(earlyCost) || earlyCost.IsZero() {
		t.Fatalf("the two downloads should differ: %s and %s", earlyCost, want)
	}
	for _, order := range [][]string{{early, late}, {late, early}} {
		name := filepath.Base(order[0]) + " first"
		t.Run(name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "f.db")
			for _, f := range order {
				if code, out, errOut := runFinops(t, "--db", db, "ingest", f); code != 0 {
					t.Fatalf("ingest %s: exit %d: %s %s", f, code, out, errOut)
				}
			}
			n, got := storedEffective(t, db)
			if n != rows || !got.Equal(want) {
				t.Errorf("stored %d lines, %s; the later download has %d rows (%d without a cost), %s", n, got, rows, nulls, want)
			}
		})
	}
	// And the older one named again after both: nothing changes.
	db := filepath.Join(t.TempDir(), "f.db")
	for _, f := range []string{early, late} {
		if code, out, errOut := runFinops(t, "--db", db, "ingest", f); code != 0 {
			t.Fatalf("exit %d: %s %s", code, out, errOut)
		}
	}
	code, out, _ := runFinops(t, "--db", db, "ingest", early)
	if code != 0 || !strings.Contains(out, "an older copy of charges that "+late+" holds: nothing changed") {
		t.Errorf("the early download again: exit %d:\n%s", code, out)
	}
	if _, got := storedEffective(t, db); !got.Equal(want) {
		t.Errorf("after the early download again: %s, want %s", got, want)
	}
}

// TestIngestOneExportInEveryContainer: the FOCUS sample as CSV, gzipped,
// as Parquet (written by DuckDB from the same CSV) and piped in from
// gunzip: the total is the sample's, once.
func TestIngestOneExportInEveryContainer(t *testing.T) {
	sample := cloudTestdata(t, "focus_sample.csv")
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gz := filepath.Join(dir, "focus_sample.csv.gz")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(raw)
	zw.Close()
	if err := os.WriteFile(gz, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want, _, _ := csvColumnSum(t, sample, "EffectiveCost")
	db := filepath.Join(t.TempDir(), "f.db")
	for _, f := range []string{gz, sample, cloudTestdata(t, "parquet/focus_decimal.parquet"), cloudTestdata(t, "parquet/focus_double.parquet")} {
		code, out, errOut := runFinops(t, "--db", db, "ingest", f)
		if code != 0 {
			t.Fatalf("ingest %s: exit %d: %s %s", f, code, out, errOut)
		}
		if f != gz && !strings.Contains(out, "already imported (the same charges as "+gz) {
			t.Errorf("ingest %s: not told it is the same charges:\n%s", f, out)
		}
		if _, got := storedEffective(t, db); !got.Equal(want) {
			t.Errorf("after %s: stored %s, want the sample's %s once", filepath.Base(f), got, want)
		}
	}
	// Standard input, the bytes gunzip would give: the same charges again.
	code, out, errOut := finopsStdin(t, raw, "--db", db, "ingest", "-")
	if code != 0 || !strings.Contains(out, "already imported") {
		t.Fatalf("stdin: exit %d: %s %s", code, out, errOut)
	}
	if _, got := storedEffective(t, db); !got.Equal(want) {
		t.Errorf("after stdin: stored %s, want %s", got, want)
	}
}

// copyTree copies a testdata folder so a test may change its files.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if fi.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return err
		}
		return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// gzipCSV writes rows as a gzipped CSV.
func gzipCSV(t *testing.T, path string, rows [][]string) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	w := csv.NewWriter(zw)
	w.WriteAll(rows)
	zw.Close()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readGzipCSV reads a gzipped CSV.
func readGzipCSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(zr).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestIngestRestatedCURWithBadFile: January's CUR is delivered (aaaa-1111),
// then restated (bbbb-2222) with one bad file. The restatement imports
// nothing, the first delivery stays whole, the failure is said on the
// ingest and in the next report (exit 3); once the file is fixed the
// restatement replaces the first delivery, and the first can be brought
// back on purpose.
func TestIngestRestatedCURWithBadFile(t *testing.T) {
	root := t.TempDir()
	copyTree(t, cloudTestdata(t, "aws/delivery/cur/gpu-report/20260101-20260201"), root)
	oldManifest := filepath.Join(root, "aaaa-1111", "gpu-report-Manifest.json")
	sumOf := func(delivery string) decimal.Decimal {
		a, _, _ := csvColumnSum(t, filepath.Join(root, delivery, "gpu-report-1.csv.gz"), "lineItem/UnblendedCost")
		b, _, _ := csvColumnSum(t, filepath.Join(root, delivery, "gpu-report-2.csv.gz"), "lineItem/UnblendedCost")
		return a.Add(b)
	}
	oldTotal, newTotal := sumOf("aaaa-1111"), sumOf("bbbb-2222")
	if oldTotal.Equal(newTotal) {
		t.Fatalf("the deliveries should differ: %s", oldTotal)
	}
	db := filepath.Join(t.TempDir(), "f.db")
	if code, out, errOut := runFinops(t, "--db", db, "ingest", oldManifest); code != 0 {
		t.Fatalf("first delivery: exit %d: %s %s", code, out, errOut)
	}

	// The restatement's second file gets a cost that is not a number.
	bad := filepath.Join(root, "bbbb-2222", "gpu-report-2.csv.gz")
	good, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	recs := readGzipCSV(t, bad)
	costCol := -1
	for i, h := range recs[0] {
		if h == "lineItem/UnblendedCost" {
			costCol = i
		}
	}
	recs[1][costCol] = "twelve"
	gzipCSV(t, bad, recs)

	code, out, errOut := runFinops(t, "--db", db, "ingest", root)
	if code == 0 {
		t.Fatalf("a delivery with a bad file imported: exit 0\n%s", out)
	}
	for _, w := range []string{"delivery bbbb-2222 of aws-cur:111122223333:2026-01 (2 files) not imported, the period's earlier delivery stays",
		"gpu-report-2.csv.gz"} {
		if !strings.Contains(out+errOut, w) {
			t.Errorf("ingest output lacks %q:\n%s\n%s", w, out, errOut)
		}
	}
	if _, billed, _ := storedTotals(t, db); !billed.Equal(oldTotal) {
		t.Errorf("after the bad restatement: billed %s, want the first delivery's %s", billed, oldTotal)
	}

	// The next report names the failed delivery and exits 3.
	outDir := t.TempDir()
	code, out, errOut = runFinops(t, "--db", db, "report", "--from", "2026-01-01", "--to", "2026-01-31", "--out", outDir, "--format", "json")
	if code != cli.ExitPartial {
		t.Errorf("report after a failed delivery: exit %d, want %d\n%s\n%s", code, cli.ExitPartial, out, errOut)
	}
	js, err := os.ReadFile(filepath.Join(outDir, "finops-2026-01-01_2026-01-31.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		DataQuality struct {
			Sources []struct{ Name, Status, Detail string }
		} `json:"data_quality"`
	}
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, s := range rep.DataQuality.Sources {
		// The period folder's manifest, which AWS rewrites for the latest
		// delivery, chose bbbb-2222.
		if s.Status == "failed" && s.Name == filepath.Join(root, "gpu-report-Manifest.json") &&
			strings.Contains(s.Detail, "did not import (2026-11-30T03:00:00Z): delivery bbbb-2222 of aws-cur:111122223333:2026-01") &&
			strings.Contains(s.Detail, "gpu-report-2.csv.gz:2: field \"lineItem/UnblendedCost\"") {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("the report's data quality does not name the failed delivery once: %+v", rep.DataQuality.Sources)
	}

	// Fixed: the restatement replaces the first delivery, and the report
	// no longer names a failure.
	if err := os.WriteFile(bad, good, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runFinops(t, "--db", db, "ingest", root); code != 0 {
		t.Fatalf("fixed restatement: exit %d: %s %s", code, out, errOut)
	}
	if _, billed, _ := storedTotals(t, db); !billed.Equal(newTotal) {
		t.Errorf("after the fixed restatement: billed %s, want %s", billed, newTotal)
	}
	if code, out, errOut := runFinops(t, "--db", db, "report", "--from", "2026-01-01", "--to", "2026-01-31", "--out", outDir, "--format", "json"); code != 0 {
		t.Errorf("report after the fix: exit %d\n%s\n%s", code, out, errOut)
	}

	// The first delivery brought back on purpose.
	code, out, errOut = runFinops(t, "--db", db, "ingest", "--replace", oldManifest)
	if code != 0 {
		t.Fatalf("--replace the first delivery: exit %d: %s %s", code, out, errOut)
	}
	if _, billed, _ := storedTotals(t, db); !billed.Equal(oldTotal) {
		t.Errorf("after --replace of the first delivery: billed %s, want %s", billed, oldTotal)
	}
}

// TestIngestPartialOverlapRefused: a FOCUS file of days 5–20 after one of
// days 1–10 of the same accounts: neither reaches the other's start, so
// finops cannot tell which is right. The second is refused (exit 1), the
// report names it and exits 3; with --replace it wins from day 5 on.
func TestIngestPartialOverlapRefused(t *testing.T) {
	dir := t.TempDir()
	first := writeFOCUSUntil(t, dir, "focus-days-1-10.csv", "2024-09-11")
	second := writeFOCUSBetween(t, dir, "focus-days-5-20.csv", "2024-09-05", "2024-09-21")
	db := filepath.Join(t.TempDir(), "f.db")
	if code, out, errOut := runFinops(t, "--db", db, "ingest", first); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	firstCost, _, _ := csvColumnSum(t, first, "EffectiveCost")
	code, out, _ := runFinops(t, "--db", db, "ingest", second)
	if code != cli.ExitFailed || !strings.Contains(out, "neither file holds all of the other's") ||
		!strings.Contains(out, "finops ingest --replace "+second) {
		t.Fatalf("partial overlap: exit %d, want %d and the refusal:\n%s", code, cli.ExitFailed, out)
	}
	if _, got := storedEffective(t, db); !got.Equal(firstCost) {
		t.Errorf("after the refusal: %s, want the first file's %s", got, firstCost)
	}
	outDir := t.TempDir()
	report := func() int {
		code, _, _ := runFinops(t, "--db", db, "report", "--from", "2024-09-01", "--to", "2024-09-30", "--out", outDir, "--format", "json")
		return code
	}
	if code := report(); code != cli.ExitPartial {
		t.Errorf("report after the refusal: exit %d, want %d", code, cli.ExitPartial)
	}
	if code, out, errOut := runFinops(t, "--db", db, "ingest", "--replace", second); code != 0 {
		t.Fatalf("--replace: exit %d: %s %s", code, out, errOut)
	}
	// Days 1–4 of the first file, then days 5–20 of the second.
	head, _, _ := csvColumnSum(t, writeFOCUSUntil(t, dir, "focus-days-1-4.csv", "2024-09-05"), "EffectiveCost")
	tail, _, _ := csvColumnSum(t, second, "EffectiveCost")
	if _, got := storedEffective(t, db); !got.Equal(head.Add(tail)) {
		t.Errorf("after --replace: %s, want %s + %s", got, head, tail)
	}
	if code := report(); code != 0 {
		t.Errorf("report after --replace: exit %d, want 0", code)
	}
}

// TestCheckNamesFOCUSVersion: a FOCUS 0.5 file is read as 1.x and its
// version is on the check's format line and the import's summary, where
// the reader looks, not only in a warning.
func TestCheckNamesFOCUSVersion(t *testing.T) {
	f := cloudTestdata(t, "focus_0.5.csv")
	code, out, errOut := runFinops(t, "ingest", "--check", f)
	if code != 0 || !strings.Contains(out, "  format:     focus 0.5\n") {
		t.Errorf("--check: exit %d: %s %s", code, out, errOut)
	}
	db := filepath.Join(t.TempDir(), "f.db")
	code, out, errOut = runFinops(t, "--db", db, "ingest", f)
	if code != 0 || !strings.Contains(out, f+": focus 0.5, ") {
		t.Errorf("ingest: exit %d: %s %s", code, out, errOut)
	}
}
