package ingest

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func walkFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadManifestCUR(t *testing.T) {
	m, err := ReadManifest(testdata("aws/delivery/cur/gpu-report/20260101-20260201/gpu-report-Manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != ManifestCUR || m.Period != "aws-cur:111122223333:2026-01" || m.Delivery != "bbbb-2222" || !m.periodLevel {
		t.Errorf("%+v", m)
	}
	want := []string{testdata(curDeliveryB + "gpu-report-1.csv.gz"), testdata(curDeliveryB + "gpu-report-2.csv.gz")}
	if !slices.Equal(m.Files, want) || filepath.Base(m.Root) != "20260101-20260201" {
		t.Errorf("files %v root %s", m.Files, m.Root)
	}
}

func TestReadManifestDataExports(t *testing.T) {
	m, err := ReadManifest(testdata("aws/cur2/exports/gpu-export/metadata/BILLING_PERIOD=2026-01/gpu-export-Manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != ManifestDataExports || m.Delivery != "exec-0001-aaaa" ||
		m.Period != "aws-data-exports:arn:aws:bcm-data-exports:us-east-1:111122223333:export/gpu-export-1234:2026-01" ||
		len(m.Files) != 1 || m.Files[0] != testdata(cur2Data) {
		t.Errorf("%+v", m)
	}
}

func TestReadManifestAzure(t *testing.T) {
	m, err := ReadManifest(testdata("azure/delivery/exports/gpu-costs/20260101-20260131/202601071200/run-2222/manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != ManifestAzure || m.Period != "azure:exports/gpu-costs:2026-01" || m.Delivery != "202601071200/run-2222" ||
		!m.Time.Equal(time.Date(2026, 1, 7, 12, 0, 0, 0, time.UTC)) || len(m.Files) != 2 || filepath.Base(m.Root) != "20260101-20260131" {
		t.Errorf("%+v", m)
	}

	// The newer manifest format names the export's scope, type and run.
	dir := t.TempDir()
	run := filepath.Join(dir, "finops", "gpu-amortized", "20260201-20260228", "7d0f")
	writeFile(t, filepath.Join(run, "part_0_0001.csv"), "Date,MeterCategory,CostInBillingCurrency\n02/01/2026,Virtual Machines,1\n")
	writeFile(t, filepath.Join(run, "manifest.json"), `{"manifestVersion":"2024-04-01","byteCount":58,"blobCount":1,"dataRowCount":1,
	  "exportConfig":{"exportName":"gpu-amortized","resourceId":"/providers/Microsoft.Billing/billingAccounts/1234:5678_2019-05-31","dataVersion":"2023-05-01","type":"AmortizedCost","timeFrame":"MonthToDate","granularity":"Daily"},
	  "deliveryConfig":{"partitionData":true,"dataOverwriteBehavior":"OverwritePreviousReport","fileFormat":"Csv"},
	  "runInfo":{"executionType":"Scheduled","submittedTime":"2026-02-09T04:13:23.0170000Z","runId":"7d0f","startDate":"2026-02-01T00:00:00","endDate":"2026-02-08T00:00:00"},
	  "blobs":[{"blobName":"finops/gpu-amortized/20260201-20260228/7d0f/part_0_0001.csv","byteCount":71,"dataRowCount":1}]}`)
	m, err = ReadManifest(filepath.Join(run, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Period != "azure:/providers/microsoft.billing/billingaccounts/1234:5678_2019-05-31:2026-02" || m.Delivery != "AmortizedCost:7d0f" ||
		m.CostType != "AmortizedCost" || m.Time.Format(time.RFC3339) != "2026-02-09T04:13:23Z" || len(m.Files) != 1 {
		t.Errorf("%+v", m)
	}
}

// TestManifestRefusals: a manifest that cannot be used says why and what to do.
func TestManifestRefusals(t *testing.T) {
	// koku's real Azure manifest, without the blob it lists.
	_, err := ReadManifest(testdata("azure/koku/manifest.json"))
	wantErrParts(t, err, "manifest.json", "cost/partitioned/20230101-20230131/202301041442/73746dc5-5dcc-4b83-b340-bb1bd2b1ca30/000001.csv",
		"not here", "copy the whole delivery")

	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "p", "x-00001.snappy.parquet"), "PAR1")
	writeFile(t, filepath.Join(dir, "p", "x-Manifest.json"), `{"executionId":"e1","exportArn":"arn:x","dataFiles":["s3://b/p/x-00001.snappy.parquet"],"billingPeriod":{"start":"2026-01-01T00:00:00.000Z"}}`)
	// A Data Exports delivery in Parquet (the default format) is read like a CSV one.
	m, err := ReadManifest(filepath.Join(dir, "p", "x-Manifest.json"))
	if err != nil || m == nil || len(m.Files) != 1 || filepath.Base(m.Files[0]) != "x-00001.snappy.parquet" {
		t.Fatalf("Parquet delivery: files %v, err %v; want x-00001.snappy.parquet", m, err)
	}

	writeFile(t, filepath.Join(dir, "s", "20260101-20260131", "r1", "part_0_0001.csv"), "short")
	writeFile(t, filepath.Join(dir, "s", "20260101-20260131", "r1", "manifest.json"), `{"manifestVersion":"2021-01-01","blobs":[{"blobName":"x/20260101-20260131/r1/part_0_0001.csv","byteCount":999}]}`)
	_, err = ReadManifest(filepath.Join(dir, "s", "20260101-20260131", "r1", "manifest.json"))
	wantErrParts(t, err, "part_0_0001.csv has 5 bytes but the manifest says 999", "incomplete")

	writeFile(t, filepath.Join(dir, "n", "r-Manifest.json"), `{"assemblyId":"a1","account":"1","billingPeriod":{"start":"20260101T000000.000Z"},"reportKeys":[]}`)
	_, err = ReadManifest(filepath.Join(dir, "n", "r-Manifest.json"))
	wantErrParts(t, err, "lists no data files")

	writeFile(t, filepath.Join(dir, "o", "manifest.json"), `{"name":"my-web-app","version":"1.0.0"}`)
	_, err = ReadManifest(filepath.Join(dir, "o", "manifest.json"))
	wantErrParts(t, err, "not a billing-export manifest")

	writeFile(t, filepath.Join(dir, "q", "r-Manifest.json"), `{"account":"1","billingPeriod":{"start":"20260101T000000.000Z"},"reportKeys":["a.csv"]}`)
	_, err = ReadManifest(filepath.Join(dir, "q", "r-Manifest.json"))
	wantErrParts(t, err, "assemblyId")
}

// TestPlanDeliveries: a synced CUR bucket holds two deliveries of January
// (the period folder's manifest names the latest) and one of February.
func TestPlanDeliveries(t *testing.T) {
	root := testdata("aws/delivery")
	plan := PlanDeliveries(walkFiles(t, root))
	if len(plan.Errs) > 0 {
		t.Fatal(plan.Errs)
	}
	var got []string
	for _, f := range plan.Files {
		rel, _ := filepath.Rel(root, f.Path)
		got = append(got, rel+" "+f.Period+" "+f.Delivery)
	}
	want := []string{
		"cur/gpu-report/20260101-20260201/bbbb-2222/gpu-report-1.csv.gz aws-cur:111122223333:2026-01 bbbb-2222",
		"cur/gpu-report/20260101-20260201/bbbb-2222/gpu-report-2.csv.gz aws-cur:111122223333:2026-01 bbbb-2222",
		"cur/gpu-report/20260201-20260301/cccc-3333/gpu-report-1.csv.gz aws-cur:111122223333:2026-02 cccc-3333",
	}
	if !slices.Equal(got, want) {
		t.Errorf("planned\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(plan.Skipped) != 2 || !strings.Contains(plan.Skipped[0], "aaaa-1111") || len(plan.Notes) != 2 ||
		!strings.Contains(plan.Notes[0], "1 older delivery of the period left out") {
		t.Errorf("skipped %v notes %v", plan.Skipped, plan.Notes)
	}

	// Azure: the later run folder wins; a file outside every delivery is imported as is.
	files := append(walkFiles(t, testdata("azure/delivery")), testdata("azure/German.csv"))
	plan = PlanDeliveries(files)
	if len(plan.Errs) > 0 || len(plan.Files) != 3 || plan.Files[0].Period != "" || plan.Files[1].Delivery != "202601071200/run-2222" ||
		len(plan.Skipped) != 1 || !strings.Contains(plan.Skipped[0], "run-1111") {
		t.Errorf("azure plan: %+v", plan)
	}

	// Only the older manifest given: it is used, as asked.
	plan = PlanDeliveries([]string{testdata("aws/delivery/cur/gpu-report/20260101-20260201/aaaa-1111/gpu-report-Manifest.json")})
	if len(plan.Files) != 2 || plan.Files[0].Delivery != "aaaa-1111" {
		t.Errorf("explicit manifest: %+v", plan)
	}

	// The latest delivery is incomplete: the period imports nothing rather
	// than an older delivery.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "20260101-20260131", "r1", "part_0_0001.csv"), "Date,MeterCategory,CostInBillingCurrency\n")
	writeFile(t, filepath.Join(dir, "20260101-20260131", "r1", "manifest.json"), `{"manifestVersion":"2021-01-01","blobs":[{"blobName":"e/20260101-20260131/r1/part_0_0001.csv"}]}`)
	writeFile(t, filepath.Join(dir, "20260101-20260131", "r2", "manifest.json"), `{"manifestVersion":"2021-01-01","blobs":[{"blobName":"e/20260101-20260131/r2/part_0_0001.csv"}]}`)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "20260101-20260131", "r2", "manifest.json"), later, later); err != nil {
		t.Fatal(err)
	}
	plan = PlanDeliveries(walkFiles(t, dir))
	if len(plan.Files) != 0 || len(plan.Errs) != 1 || len(plan.Skipped) != 1 {
		t.Errorf("incomplete latest delivery: %+v", plan)
	}
	wantErrParts(t, plan.Errs[0], "r2", "not here", "nothing of that period imported")
}

// TestPlanDeliveriesWithin: a manifest in a synced folder is bucket data; it
// may not reach for local files outside the folder the user named.
func TestPlanDeliveriesWithin(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "outside", "secret.csv")
	synced := filepath.Join(dir, "synced")
	mdir := filepath.Join(synced, "rep", "20260301-20260401")
	for _, d := range []string{filepath.Dir(secret), mdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(mdir, "rep-Manifest.json")
	// "a/b/c/outside/secret.csv" climbs up to five folders from the manifest:
	// three levels above it is dir, where outside/secret.csv exists.
	if err := os.WriteFile(manifest, []byte(`{"assemblyId":"a1","account":"1","reportName":"rep",
		"billingPeriod":{"start":"20260301T000000.000Z","end":"20260401T000000.000Z"},
		"reportKeys":["a/b/c/outside/secret.csv"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if plan := PlanDeliveries([]string{manifest}); len(plan.Files) != 1 || plan.Files[0].Path != secret {
		t.Fatalf("without a limit the key resolves to %s (the test's premise): %+v", secret, plan.Files)
	}
	plan := PlanDeliveriesWithin([]string{manifest}, synced)
	if len(plan.Files) != 0 || len(plan.Errs) != 1 || !strings.Contains(plan.Errs[0].Error(), "which is not here") {
		t.Errorf("within %s: files %+v, errors %v; want none imported and one error", synced, plan.Files, plan.Errs)
	}
}

// TestPlanDeliveriesLinkOutside: a data file the manifest lists inside the
// synced folder that is a symbolic link out of it (to /etc/passwd in the
// issue) is refused, naming where it leads; a link within the folder is
// followed.
func TestPlanDeliveriesLinkOutside(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "outside", "passwd")
	synced := filepath.Join(dir, "synced")
	mdir := filepath.Join(synced, "rep", "20260301-20260401")
	for _, d := range []string{filepath.Dir(secret), mdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(secret, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o600)
	inside := filepath.Join(synced, "real.csv")
	os.WriteFile(inside, []byte("x"), 0o600)
	if err := os.Symlink(secret, filepath.Join(mdir, "rep-1.csv")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink(inside, filepath.Join(mdir, "rep-2.csv"))
	manifest := filepath.Join(mdir, "rep-Manifest.json")
	body := func(key string) []byte {
		return []byte(`{"assemblyId":"a1","account":"1","reportName":"rep",
		"billingPeriod":{"start":"20260301T000000.000Z","end":"20260401T000000.000Z"},"reportKeys":["` + key + `"]}`)
	}
	os.WriteFile(manifest, body("rep/20260301-20260401/rep-1.csv"), 0o600)
	plan := PlanDeliveriesWithin([]string{manifest}, synced)
	if len(plan.Files) != 0 || len(plan.Errs) != 1 || !strings.Contains(plan.Errs[0].Error(), "leads to "+secret+", outside "+synced) {
		t.Errorf("a link out of the folder: files %+v, errors %v", plan.Files, plan.Errs)
	}
	os.WriteFile(manifest, body("rep/20260301-20260401/rep-2.csv"), 0o600)
	if plan := PlanDeliveriesWithin([]string{manifest}, synced); len(plan.Files) != 1 || len(plan.Errs) != 0 {
		t.Errorf("a link within the folder: files %+v, errors %v", plan.Files, plan.Errs)
	}
}

// TestPlanDeliveriesLinkOutsideNamedManifest: issue 32's leftover — a
// manifest named by hand (no source folder) whose listed file is a link to a
// file outside the folder the key was found in is refused before anything
// reads it, naming the paths only: the outside file's first line is in no
// message (before, its header was quoted as "unrecognised header (...)").
func TestPlanDeliveriesLinkOutsideNamedManifest(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "outside", "secret.csv")
	synced := filepath.Join(dir, "synced")
	mdir := filepath.Join(synced, "rep", "20260301-20260401")
	for _, d := range []string{filepath.Dir(secret), mdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(secret, []byte("SECRET-FIRST-LINE,token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(mdir, "rep-1.csv")); err != nil {
		t.Fatal("symbolic links are needed here:", err)
	}
	manifest := filepath.Join(mdir, "rep-Manifest.json")
	if err := os.WriteFile(manifest, []byte(`{"assemblyId":"a1","account":"1","reportName":"rep",
		"billingPeriod":{"start":"20260301T000000.000Z","end":"20260401T000000.000Z"},"reportKeys":["rep/20260301-20260401/rep-1.csv"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := PlanDeliveries([]string{manifest})
	if len(plan.Files) != 0 || len(plan.Errs) != 1 || !strings.Contains(plan.Errs[0].Error(), "leads to "+secret) {
		t.Fatalf("a hand-named manifest's link out of its folder: files %+v, errors %v", plan.Files, plan.Errs)
	}
	for _, e := range plan.Errs {
		if strings.Contains(e.Error(), "SECRET") {
			t.Errorf("the outside file's content is in the message: %v", e)
		}
	}
	// A plain file (no link) found by climbing, as a Data Exports manifest's
	// sibling data folder is, is still read.
	if err := os.Remove(filepath.Join(mdir, "rep-1.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mdir, "rep-1.csv"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if plan := PlanDeliveries([]string{manifest}); len(plan.Files) != 1 || len(plan.Errs) != 0 {
		t.Errorf("a plain listed file: files %+v, errors %v", plan.Files, plan.Errs)
	}
}
