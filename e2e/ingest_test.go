package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/store"
)

func counts(t *testing.T, db string) map[string]int {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// csvColumnSum sums one column of a CSV (plain or .gz, with or without a
// byte-order mark) with encoding/csv and decimals, skipping NULL and empty
// cells: an independent check of what finops stores.
func csvColumnSum(t *testing.T, path, column string) (sum decimal.Decimal, rows, nulls int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(recs[0], column)
	if col < 0 {
		t.Fatalf("%s has no column %s", path, column)
	}
	for _, rec := range recs[1:] {
		if col >= len(rec) || rec[col] == "" || rec[col] == "NULL" {
			nulls++
			continue
		}
		sum = sum.Add(decimal.RequireFromString(rec[col]))
	}
	return sum, len(recs) - 1, nulls
}

func TestIngestFOCUSSample(t *testing.T) {
	sample := filepath.Join(repoRoot(t), "testdata", "ingest", "focus_sample.csv")
	db := filepath.Join(t.TempDir(), "f.db")
	code, stdout, stderr := runFinops(t, "--db", db, "ingest", sample)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	want, rows, nulls := csvColumnSum(t, sample, "EffectiveCost")

	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var got decimal.Decimal
	var n, nullCells, gpuLines int
	q, err := st.DB().Query(`SELECT effective_cost, instance_type, gpu_count FROM billing_lines`)
	if err != nil {
		t.Fatal(err)
	}
	gpuTypes := map[string]bool{}
	for q.Next() {
		var ec, it *string
		var gpus int
		if err := q.Scan(&ec, &it, &gpus); err != nil {
			t.Fatal(err)
		}
		n++
		if ec == nil {
			nullCells++
		} else {
			got = got.Add(decimal.RequireFromString(*ec))
		}
		if gpus > 0 {
			gpuLines++
			if it != nil {
				gpuTypes[*it] = true
			}
		}
	}
	q.Close()
	if n != rows {
		t.Errorf("stored %d lines, the file has %d rows", n, rows)
	}
	if !got.Equal(want) {
		t.Errorf("Σ EffectiveCost stored = %s, Σ in the file = %s", got, want)
	}
	if nullCells != nulls {
		t.Errorf("null EffectiveCost cells stored = %d, in the file %d (nulls are not zeros)", nullCells, nulls)
	}
	for _, it := range []string{"g5.4xlarge", "g3.4xlarge"} {
		if !gpuTypes[it] {
			t.Errorf("%s rows are not recognised as GPU lines (GPU instance types seen: %v)", it, gpuTypes)
		}
	}
	if !strings.Contains(stdout, "focus, 1000 rows") {
		t.Errorf("ingest output does not describe the file: %q", stdout)
	}

	// The same file again changes nothing and says so.
	before := counts(t, db)
	code, stdout, _ = runFinops(t, "--db", db, "ingest", sample)
	if code != 0 || !strings.Contains(stdout, "already imported") {
		t.Errorf("re-import: exit %d, output %q", code, stdout)
	}
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("re-import changed the database: %v → %v", before, after)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestBadFileLeavesDatabaseUnchanged: a bad file exits non-zero naming
// file:line and field, and the database keeps exactly the rows it had.
func TestBadFileLeavesDatabaseUnchanged(t *testing.T) {
	root := repoRoot(t)
	db := filepath.Join(t.TempDir(), "f.db")
	if code, out, errOut := runFinops(t, "--db", db, "ingest", filepath.Join(root, "testdata", "ingest", "autodl_sample.csv")); code != 0 {
		t.Fatalf("good file: exit %d: %s %s", code, out, errOut)
	}
	wrongHeader := filepath.Join(t.TempDir(), "wrong_header.csv")
	if err := os.WriteFile(wrongHeader, []byte("date,amount,what\n2026-11-01,3.50,coffee\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := counts(t, db)
	if before["billing_lines"] == 0 {
		t.Fatal("the good file stored no lines")
	}
	for _, tc := range []struct {
		file string
		want []string
	}{
		{wrongHeader, []string{"wrong_header.csv:1", "unrecognised header"}},
		// Line 3 has "1;50" in BilledCost.
		{"bad_number.csv", []string{"bad_number.csv:3", "BilledCost"}},
		{"bad_date.csv", []string{"bad_date.csv:", "ChargePeriod"}},
		{"not_utf8.csv", []string{"not_utf8.csv:", "UTF-8"}},
		{"empty.csv", []string{"empty.csv", "empty"}},
		{"truncated.csv.gz", []string{"truncated.csv.gz"}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			path := tc.file
			if !filepath.IsAbs(path) {
				path = filepath.Join(root, "testdata", "ingest", "bad", tc.file)
			}
			code, stdout, stderr := runFinops(t, "--db", db, "ingest", path)
			if code != cli.ExitFailed {
				t.Errorf("exit %d, want %d", code, cli.ExitFailed)
			}
			msg := stdout + stderr
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
			if after := counts(t, db); !equalCounts(before, after) {
				t.Errorf("database changed: %v → %v", before, after)
			}
		})
	}
}

func TestIngestCheckWritesNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	sample := filepath.Join(repoRoot(t), "testdata", "ingest", "autodl_sample.csv")
	code, stdout, _ := runFinops(t, "--db", db, "ingest", "--check", sample)
	if code != 0 || !strings.Contains(stdout, "autodl_sample.csv: OK\n  format:     rental") {
		t.Fatalf("--check: exit %d, output %q", code, stdout)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("--check created the database")
	}
}

// rentalFile is a fixture of testdata/ingest/rental.
func rentalFile(t *testing.T, name string) string {
	return filepath.Join(repoRoot(t), "testdata", "ingest", "rental", name)
}

// TestIngestCheckReport: --check prints, per file, the detected format,
// rows, period, currency, exact total, GPU lines, unknown GPUs and every
// rejected row with its reason; it writes nothing and exits 1 when a file
// would be refused.
func TestIngestCheckReport(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	code, stdout, stderr := runFinops(t, "--db", db, "ingest", "--check",
		rentalFile(t, "alibaba_billing_item_detail_gbk.csv"), rentalFile(t, "runpod_billing_pods.json"),
		rentalFile(t, "vast_invoices_legacy.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	for _, want := range []string{
		"alibaba_billing_item_detail_gbk.csv: OK\n",
		`  format:     rental (mapping "alibaba"), decoded from GB18030`,
		"  rows:       8 good, 0 rejected",
		"  period:     2026-10-31T16:00:00Z .. 2026-11-30T16:00:00Z",
		"  currency:   CNY",
		"  total cost: 171380.56 CNY", // 8.01 + 0.03 + 171360.00 + 0.52 + 12.34 − 4.00 + 3.00 + 0.66
		"  GPU lines:  6 of 8",
		"unknown GPUs: 1 lines name a GPU the catalog does not know (the report's data quality lists them): ecs.gn9z-c16g1.4xlarge",
		"runpod_billing_pods.json: OK\n",
		"  total cost: 109.52 USD", // 29.9 + 71.76 + 3.45 + 3.58 + 0.2 + 0.63
		"  period:     2026-11-02T00:00:00Z .. 2026-11-04T00:00:00Z",
		"vast_invoices_legacy.json: OK\n",
		"  rows:       3 good, 0 rejected, 1 skipped (not charges: deposits, payouts)",
		"  total cost: 2.22 USD", // 2.224 to the cent (issue #16 item 8)
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--check output lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("--check created the database")
	}

	// Bad rows: every reason is listed; the verdict follows --max-bad-rows.
	bad := filepath.Join(t.TempDir(), "runpod_bad.json")
	if err := os.WriteFile(bad, []byte(`[
{"amount": 1.5, "podId": "a", "time": "2026-11-02T00:00:00Z", "timeBilledMs": 3600000},
{"amount": "lots", "podId": "b", "time": "2026-11-02T00:00:00Z"},
{"amount": 2, "podId": "c", "time": "noon"}
]`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = runFinops(t, "--db", db, "ingest", "--check", bad)
	for _, want := range []string{
		"runpod_bad.json: INVALID: 2 bad rows, more than --max-bad-rows 0: an import would refuse the file\n",
		"  rows:       1 good, 2 rejected",
		`  rejected: ` + bad + `:3: field "[1].amount": expected an amount in USD like 100.5, found "\"lots\""`,
		`  rejected: ` + bad + `:4: field "[2].time": expected the bucket start as RFC 3339`,
		"2 bad rows, more than --max-bad-rows 0: an import would refuse the file",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--check of bad rows lacks %q:\n%s", want, stdout)
		}
	}
	if code != cli.ExitFailed {
		t.Errorf("exit %d, want %d", code, cli.ExitFailed)
	}
	if code, stdout, _ = runFinops(t, "--db", db, "ingest", "--check", "--max-bad-rows", "2", bad); code != 0 ||
		!strings.Contains(stdout, "runpod_bad.json: OK\n") || strings.Count(stdout, "rejected: ") != 2 {
		t.Errorf("--max-bad-rows 2: exit %d:\n%s", code, stdout)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("--check created the database")
	}
}

// TestIngestRentalPlatforms imports an Alibaba Cloud GBK bill, a RunPod and a
// Vast.ai billing file; each file's stored lines sum to the total computed
// from the file itself. Bad files (cut-off JSON, JSON nested too deep, a file
// in the wrong encoding) fail naming file and line and change nothing.
func TestIngestRentalPlatforms(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	files := map[string]string{ // file → Σ cost, summed by hand in the fixtures' comments (ingest tests)
		"alibaba_billing_item_detail_gbk.csv": "171380.56",
		"runpod_billing_pods.json":            "109.52",
		"vast_charges.json":                   "1.933",
	}
	for f := range files {
		if code, out, errOut := runFinops(t, "--db", db, "ingest", rentalFile(t, f)); code != 0 {
			t.Fatalf("%s: exit %d: %s %s", f, code, out, errOut)
		}
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	q, err := st.DB().Query(`SELECT f.uri, b.billed_cost, b.currency FROM billing_lines b JOIN source_files f ON f.id = b.source_id`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]decimal.Decimal{}
	for q.Next() {
		var uri, cost, cur string
		if err := q.Scan(&uri, &cost, &cur); err != nil {
			t.Fatal(err)
		}
		got[filepath.Base(uri)] = got[filepath.Base(uri)].Add(decimal.RequireFromString(cost))
	}
	q.Close()
	st.Close()
	for f, want := range files {
		if !got[f].Equal(decimal.RequireFromString(want)) {
			t.Errorf("%s: Σ stored %s, want %s", f, got[f], want)
		}
	}

	dir := t.TempDir()
	good, err := os.ReadFile(rentalFile(t, "runpod_billing_pods.json"))
	if err != nil {
		t.Fatal(err)
	}
	gbkHeader, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "ingest", "bad", "not_utf8_header.csv"))
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string]struct {
		data []byte
		want []string
	}{
		"cut.json":  {good[:len(good)*2/3], []string{"cut.json:", "cut off"}},
		"deep.json": {[]byte("[\n" + strings.Repeat(`{"a":`, 50) + "1" + strings.Repeat("}", 50) + "\n]"), []string{"deep.json:2", "[0]", "nested 50 levels"}},
		// A UTF-8 AutoDL header over GBK rows: the built-in mapping reads
		// GBK, but a file that is evidently UTF-8 is read as UTF-8, so the GBK
		// row is refused by line and field.
		"mixed.csv": {append([]byte("实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n"), gbkHeader[:bytes.IndexByte(gbkHeader, '\n')+1]...),
			[]string{"mixed.csv:2", `field "实例ID"`, "not UTF-8"}},
	}
	before := counts(t, db)
	for name, b := range bad {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runFinops(t, "--db", db, "ingest", path)
		if code != cli.ExitFailed {
			t.Errorf("%s: exit %d, want %d", name, code, cli.ExitFailed)
		}
		for _, w := range b.want {
			if !strings.Contains(stdout+stderr, w) {
				t.Errorf("%s: message %q lacks %q", name, stdout+stderr, w)
			}
		}
		if after := counts(t, db); !equalCounts(before, after) {
			t.Errorf("%s changed the database: %v → %v", name, before, after)
		}
	}
}
