package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/store"
)

// cloudTestdata is testdata/ingest/<rel>.
func cloudTestdata(t *testing.T, rel string) string {
	return filepath.Join(repoRoot(t), "testdata", "ingest", filepath.FromSlash(rel))
}

// storedTotals reads the billing lines back: count, Σ billed_cost and Σ
// cost (effective, else billed).
func storedTotals(t *testing.T, db string) (n int, billed, cost decimal.Decimal) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q, err := st.DB().Query(`SELECT billed_cost, coalesce(effective_cost, billed_cost) FROM billing_lines`)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for q.Next() {
		var b, c *string
		if err := q.Scan(&b, &c); err != nil {
			t.Fatal(err)
		}
		n++
		if b != nil {
			billed = billed.Add(decimal.RequireFromString(*b))
		}
		if c != nil {
			cost = cost.Add(decimal.RequireFromString(*c))
		}
	}
	return n, billed, cost
}

// TestIngestCURDeliveryFolder: `finops ingest <synced CUR bucket>` reads the
// manifests, imports only each month's latest delivery, replaces an older
// delivery imported before, and changes nothing when run again.
func TestIngestCURDeliveryFolder(t *testing.T) {
	folder := cloudTestdata(t, "aws/delivery")
	jan := filepath.Join(folder, "cur", "gpu-report", "20260101-20260201")
	feb := filepath.Join(folder, "cur", "gpu-report", "20260201-20260301")
	db := filepath.Join(t.TempDir(), "f.db")

	// The older January delivery, named by its manifest.
	code, out, errOut := runFinops(t, "--db", db, "ingest", filepath.Join(jan, "aaaa-1111", "gpu-report-Manifest.json"))
	if code != 0 {
		t.Fatalf("older delivery: exit %d: %s %s", code, out, errOut)
	}
	a1, n1, _ := csvColumnSum(t, filepath.Join(jan, "aaaa-1111", "gpu-report-1.csv.gz"), "lineItem/UnblendedCost")
	a2, n2, _ := csvColumnSum(t, filepath.Join(jan, "aaaa-1111", "gpu-report-2.csv.gz"), "lineItem/UnblendedCost")
	if n, billed, _ := storedTotals(t, db); n != n1+n2 || !billed.Equal(a1.Add(a2)) {
		t.Errorf("older delivery stored %d lines, billed %s; the files have %d rows, %s", n, billed, n1+n2, a1.Add(a2))
	}

	// The whole folder: the latest January delivery replaces the older one.
	code, out, errOut = runFinops(t, "--db", db, "ingest", folder)
	if code != 0 {
		t.Fatalf("folder: exit %d: %s %s", code, out, errOut)
	}
	for _, w := range []string{"aws-cur:111122223333:2026-01 delivery bbbb-2222", "1 older delivery of the period left out",
		"2 file(s) of older deliveries", "replaces", "aws-cur:111122223333:2026-02 delivery cccc-3333"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	var wantBilled decimal.Decimal
	wantRows := 0
	for _, f := range []string{filepath.Join(jan, "bbbb-2222", "gpu-report-1.csv.gz"), filepath.Join(jan, "bbbb-2222", "gpu-report-2.csv.gz"),
		filepath.Join(feb, "cccc-3333", "gpu-report-1.csv.gz")} {
		s, n, _ := csvColumnSum(t, f, "lineItem/UnblendedCost")
		wantBilled, wantRows = wantBilled.Add(s), wantRows+n
	}
	n, billed, cost := storedTotals(t, db)
	if n != wantRows || !billed.Equal(wantBilled) {
		t.Errorf("stored %d lines, billed %s; the latest deliveries have %d rows, invoice %s", n, billed, wantRows, wantBilled)
	}
	// January has no upfront fees, so its amortized total is its invoice;
	// February's 1000 upfront fee is amortized (0.65 remains that month).
	febBilled, _, _ := csvColumnSum(t, filepath.Join(feb, "cccc-3333", "gpu-report-1.csv.gz"), "lineItem/UnblendedCost")
	if want := wantBilled.Sub(febBilled).Add(decimal.RequireFromString("0.65")); !cost.Equal(want) {
		t.Errorf("amortized total %s, want %s", cost, want)
	}

	// Again: nothing changes; nor does the older delivery named again.
	before := counts(t, db)
	code, out, _ = runFinops(t, "--db", db, "ingest", folder)
	if code != 0 || strings.Contains(out, "replaces") || strings.Count(out, "already imported") != 3 {
		t.Errorf("re-import: exit %d:\n%s", code, out)
	}
	code, out, _ = runFinops(t, "--db", db, "ingest", filepath.Join(jan, "aaaa-1111", "gpu-report-Manifest.json"))
	if code != 0 || strings.Count(out, "since replaced by bbbb-2222: nothing changed") != 2 {
		t.Errorf("older delivery again: exit %d:\n%s", code, out)
	}
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("re-import changed the database: %v → %v", before, after)
	}
}

// TestIngestAzureDeliveryFolder: the later run of an Azure export replaces
// the earlier; koku's manifest without its blob is refused, clearly, and
// changes nothing.
func TestIngestAzureDeliveryFolder(t *testing.T) {
	folder := cloudTestdata(t, "azure/delivery")
	month := filepath.Join(folder, "exports", "gpu-costs", "20260101-20260131")
	db := filepath.Join(t.TempDir(), "f.db")
	if code, out, errOut := runFinops(t, "--db", db, "ingest", filepath.Join(month, "202601051200", "run-1111", "manifest.json")); code != 0 {
		t.Fatalf("run 1: exit %d: %s %s", code, out, errOut)
	}
	code, out, errOut := runFinops(t, "--db", db, "ingest", folder)
	if code != 0 || !strings.Contains(out, "delivery 202601071200/run-2222") || !strings.Contains(out, "replaces") {
		t.Fatalf("folder: exit %d: %s %s", code, out, errOut)
	}
	wantRestatedRun(t, db, month)

	before := counts(t, db)
	code, out, errOut = runFinops(t, "--db", db, "ingest", cloudTestdata(t, "azure/koku/manifest.json"))
	msg := out + errOut
	if code != cli.ExitFailed || !strings.Contains(msg, "koku/manifest.json") || !strings.Contains(msg, "000001.csv, which is not here") ||
		!strings.Contains(msg, "copy the whole delivery") {
		t.Errorf("koku manifest: exit %d: %s", code, msg)
	}
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("a refused manifest changed the database: %v → %v", before, after)
	}
}

// TestIngestAzureActualThenAmortized: the actual and the amortized export of
// one month replace each other, with a warning, instead of being summed.
func TestIngestAzureActualThenAmortized(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	actual, amortized := cloudTestdata(t, "azure/EA_ActualCost_Small.csv"), cloudTestdata(t, "azure/EA_AmortizedCost_Small.csv")
	if code, out, errOut := runFinops(t, "--db", db, "ingest", actual); code != 0 {
		t.Fatalf("actual: exit %d: %s %s", code, out, errOut)
	}
	code, out, errOut := runFinops(t, "--db", db, "ingest", amortized)
	if code != 0 || !strings.Contains(out, "warning:") || !strings.Contains(out, "is the amortized export of azure:8611537:2023-09 and replaces the actual export") ||
		!strings.Contains(out, "never summed") {
		t.Fatalf("amortized: exit %d:\n%s %s", code, out, errOut)
	}
	want, rows, _ := csvColumnSum(t, amortized, "Cost")
	if n, _, cost := storedTotals(t, db); n != rows || !cost.Equal(want) {
		t.Errorf("stored %d lines costing %s; the amortized export has %d rows costing %s", n, cost, rows, want)
	}
	// Both again, as a folder holding both would: nothing changes.
	before := counts(t, db)
	if code, out, _ := runFinops(t, "--db", db, "ingest", actual, amortized); code != 0 || !strings.Contains(out, "already imported") ||
		!strings.Contains(out, "since replaced by amortized: nothing changed") || strings.Contains(out, "replaces") {
		t.Errorf("re-import: exit %d: %s", code, out)
	}
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("re-import changed the database: %v → %v", before, after)
	}
}

// TestIngestCloudSampleFolders: every file of the cloud sample folders
// imports or is refused with a message; a GCP JSON export among them.
func TestIngestCloudSampleFolders(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	// Three of Microsoft's Azure samples have no currency column: --currency says it.
	code, out, errOut := runFinops(t, "--db", db, "ingest", "--currency", "USD", cloudTestdata(t, "aws"), cloudTestdata(t, "azure"), cloudTestdata(t, "gcp"))
	// koku's Azure manifest lists a blob that is not in the repository.
	if code != cli.ExitFailed || strings.Count(out, "FAILED") != 1 || !strings.Contains(out, "koku/manifest.json") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	for _, w := range []string{"test_cur.csv: aws-cur, 19 rows", "test_cur.csv.gz: already imported (the same charges as", "2022-07-01-alt-columns.csv: aws-cur, 2 rows",
		"gpu-export-00001.csv.gz: aws-cur2, 5 rows", "German.csv: azure, 1 rows", "EA_AmortizedCost_Small.csv: azure, 28 rows",
		"gpu_billing.json: gcp, 9 rows", "2022-08-01_5.csv: gcp, 9 rows", "GPU lines"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestIngestBadCloudFiles(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	if code, out, errOut := runFinops(t, "--db", db, "ingest", cloudTestdata(t, "aws/test_cur.csv")); code != 0 {
		t.Fatalf("good file: exit %d: %s %s", code, out, errOut)
	}
	before := counts(t, db)
	for file, want := range map[string]string{
		"cur_bad_cost.csv":   `cur_bad_cost.csv:3: field "lineItem/UnblendedCost"`,
		"azure_bad_date.csv": `azure_bad_date.csv:3: field "Date"`,
		"gcp_bad_cost.json":  `gcp_bad_cost.json:2: field "cost"`,
		"gcp_truncated.json": "cut off",
	} {
		code, out, errOut := runFinops(t, "--db", db, "ingest", cloudTestdata(t, "bad/"+file))
		if code != cli.ExitFailed || !strings.Contains(out+errOut, want) {
			t.Errorf("%s: exit %d, message %q lacks %q", file, code, out+errOut, want)
		}
		if after := counts(t, db); !equalCounts(before, after) {
			t.Errorf("%s changed the database: %v → %v", file, before, after)
		}
	}
}

// wantRestatedRun checks that the store db holds exactly the lines of the
// Azure delivery's restated run (202601071200/run-2222 under month): its
// parts' rows, and the sum of their CostInBillingCurrency, added up from
// the CSVs themselves.
func wantRestatedRun(t *testing.T, db, month string) {
	t.Helper()
	var want decimal.Decimal
	rows := 0
	for _, f := range []string{"part_0_0001.csv", "part_0_0002.csv"} {
		s, n, _ := csvColumnSum(t, filepath.Join(month, "202601071200", "run-2222", f), "CostInBillingCurrency")
		want, rows = want.Add(s), rows+n
	}
	if n, _, cost := storedTotals(t, db); n != rows || !cost.Equal(want) {
		t.Errorf("stored %d lines costing %s; the restated run has %d rows costing %s", n, cost, rows, want)
	}
}
