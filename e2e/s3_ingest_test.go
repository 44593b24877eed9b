package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/publish/publishtest"
	"github.com/finops-oss/finops/internal/store"
)

// s3SourceConfig writes a config whose publish.s3 block points at endpoint;
// the keys come from the default AWS credential chain (the helper cli()
// sees no environment of its own), set here for the test.
func s3SourceConfig(t *testing.T, endpoint, extra string) string {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", testAccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testSecretKey)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	cfg := filepath.Join(t.TempDir(), "finops.yaml")
	body := fmt.Sprintf("publish:\n  s3:\n    region: us-east-1\n    endpoint: %s\n    path_style: true\n%s", endpoint, extra)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// storedURIs lists the source files' URIs.
func storedURIs(t *testing.T, db string) []string {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q, err := st.DB().Query(`SELECT uri FROM source_files ORDER BY uri`)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var out []string
	for q.Next() {
		var u string
		if err := q.Scan(&u); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// finopsTemps lists what finops left in the temporary folder.
func finopsTemps(t *testing.T, tmp string) []string {
	t.Helper()
	var left []string
	filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != tmp {
			left = append(left, p)
		}
		return nil
	})
	return left
}

// TestIngestS3 ingests billing exports straight from a real versitygw: a
// FOCUS export, a gzipped copy of it (through a glob) and a CUR delivery
// folder whose manifests choose the latest delivery per month. What is
// stored matches sums taken independently from the files, each file is
// recorded by its s3:// URL, the temporary copies are gone afterwards and a
// second ingest changes nothing.
func TestIngestS3(t *testing.T) {
	srv := publishtest.StartS3(t, testAccessKey, testSecretKey)
	srv.CreateBucket(t, "billing")
	focus := filepath.Join(repoRoot(t), "testdata", "ingest", "focus_sample.csv")
	raw, err := os.ReadFile(focus)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	srv.Put(t, "billing", "exports/focus/focus_sample.csv", raw)
	srv.Put(t, "billing", "exports/focus/.DS_Store", []byte("not an export"))
	srv.Put(t, "billing", "exports/.staging/partial.csv", []byte("not,an,export\n"))
	srv.Put(t, "billing", "exports/focus/empty/", nil)
	srv.Put(t, "billing", "archive/2026-11/focus_sample.csv.gz", gz.Bytes())
	srv.Put(t, "billing", "archive/2026-11/notes.txt", []byte("not matched by the glob"))
	delivery := cloudTestdata(t, "aws/delivery")
	deliveryFiles := 0
	filepath.WalkDir(delivery, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			deliveryFiles++
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(delivery, p)
			srv.Put(t, "billing", "exports/"+filepath.ToSlash(rel), b)
		}
		return nil
	})

	cfg := s3SourceConfig(t, srv.URL, "")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	db := filepath.Join(t.TempDir(), "f.db")
	code, out, errOut := runFinops(t, "--config", cfg, "--db", db, "ingest", "s3://billing/exports", "s3://billing/archive/*/*.csv.gz")
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}

	// Independently: the FOCUS file once (plain and gzipped: different
	// bytes, the same charges, counted once — issue #24) and the latest
	// January and February deliveries.
	focusBilled, focusRows, _ := csvColumnSum(t, focus, "BilledCost")
	wantRows, wantBilled := focusRows, focusBilled
	jan := filepath.Join(delivery, "cur", "gpu-report", "20260101-20260201", "bbbb-2222")
	feb := filepath.Join(delivery, "cur", "gpu-report", "20260201-20260301", "cccc-3333")
	for _, f := range []string{filepath.Join(jan, "gpu-report-1.csv.gz"), filepath.Join(jan, "gpu-report-2.csv.gz"),
		filepath.Join(feb, "gpu-report-1.csv.gz")} {
		s, n, _ := csvColumnSum(t, f, "lineItem/UnblendedCost")
		wantBilled, wantRows = wantBilled.Add(s), wantRows+n
	}
	if n, billed, _ := storedTotals(t, db); n != wantRows || !billed.Equal(wantBilled) {
		t.Errorf("stored %d lines, billed %s; the objects have %d rows, %s\n%s", n, billed, wantRows, wantBilled, out)
	}
	wantURIs := []string{"s3://billing/exports/cur/gpu-report/20260101-20260201/bbbb-2222/gpu-report-1.csv.gz",
		"s3://billing/exports/cur/gpu-report/20260101-20260201/bbbb-2222/gpu-report-2.csv.gz",
		"s3://billing/exports/cur/gpu-report/20260201-20260301/cccc-3333/gpu-report-1.csv.gz",
		"s3://billing/exports/focus/focus_sample.csv"}
	if got := storedURIs(t, db); !slices.Equal(got, wantURIs) {
		t.Errorf("stored URIs %q, want %q", got, wantURIs)
	}
	for _, w := range []string{"s3://billing/exports/focus/focus_sample.csv: focus", "delivery bbbb-2222", "delivery cccc-3333",
		"2 file(s) of older deliveries",
		"s3://billing/archive/2026-11/focus_sample.csv.gz: already imported (the same charges as s3://billing/exports/focus/focus_sample.csv"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out+errOut, tmp) || strings.Contains(out+errOut, "finops-s3-") {
		t.Errorf("output names the temporary copies:\n%s\n%s", out, errOut)
	}
	if left := finopsTemps(t, tmp); len(left) > 0 {
		t.Errorf("temporary copies left behind: %q", left)
	}

	checkS3IngestAgain(t, cfg, db, tmp, deliveryFiles)
	checkS3IngestRefusals(t, srv.URL, cfg, db)
}

// checkS3IngestAgain: again, the listing shows nothing new or changed, so
// nothing is downloaded (issue #35), one line per prefix says so, and
// nothing changes; no temporary copy is left. Under exports/: the FOCUS
// file and the delivery's files (the hidden names and the folder marker
// are no objects to ingest); under archive/: the one .csv.gz the glob
// takes.
func checkS3IngestAgain(t *testing.T, cfg, db, tmp string, deliveryFiles int) {
	t.Helper()
	before := counts(t, db)
	code, out, errOut := runFinops(t, "--config", cfg, "--db", db, "ingest", "s3://billing/exports", "s3://billing/archive/*/*.csv.gz")
	want := []string{fmt.Sprintf("s3://billing/exports: %d objects, 0 new, 0 changed, 0 downloaded\n", 1+deliveryFiles),
		"s3://billing/archive/*/*.csv.gz: 1 object, 0 new, 0 changed, 0 downloaded\n"}
	if code != 0 || out != strings.Join(want, "") {
		t.Errorf("second ingest: exit %d:\n%s\n%s\nwant:\n%s", code, out, errOut, strings.Join(want, ""))
	}
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("second ingest changed the database: %v → %v", before, after)
	}
	if left := finopsTemps(t, tmp); len(left) > 0 {
		t.Errorf("temporary copies left behind: %q", left)
	}

}

// checkS3IngestRefusals: --check reads from S3 too; a missing bucket, an
// empty prefix and unset credentials are errors that say what to check,
// never the secret.
func checkS3IngestRefusals(t *testing.T, url, cfg, db string) {
	t.Helper()
	// --check reads from S3 too, and writes nothing.
	code, out, _ := runFinops(t, "--config", cfg, "--db", db, "ingest", "--check", "s3://billing/exports/focus/focus_sample.csv")
	if code != 0 || !strings.Contains(out, "s3://billing/exports/focus/focus_sample.csv: OK") {
		t.Errorf("--check: exit %d:\n%s", code, out)
	}

	// A missing bucket: exit 1, naming the bucket and what to check.
	code, out, errOut := runFinops(t, "--config", cfg, "--db", db, "ingest", "s3://no-such-bucket/exports")
	if msg := strings.ReplaceAll(out+errOut, `\"`, `"`); code != 1 ||
		!strings.Contains(msg, `bucket "no-such-bucket" does not exist at `+url) || !strings.Contains(msg, "check the bucket") {
		t.Errorf("missing bucket: exit %d:\n%s\n%s", code, out, errOut)
	}
	// Nothing under the prefix: an error, never silently zero spend.
	code, out, errOut = runFinops(t, "--config", cfg, "--db", db, "ingest", "s3://billing/nothing-here")
	if code != 1 || !strings.Contains(out+errOut, "s3://billing/nothing-here: no objects match") {
		t.Errorf("empty prefix: exit %d:\n%s\n%s", code, out, errOut)
	}
	// Credentials named in the config but not set: a configuration error.
	bad := s3SourceConfig(t, url, "    access_key_env: FINOPS_T_UNSET_KEY\n    secret_key_env: FINOPS_T_UNSET_SECRET\n")
	code, out, errOut = runFinops(t, "--config", bad, "--db", db, "ingest", "s3://billing/exports")
	if code != 2 || !strings.Contains(out+errOut, "environment variable FINOPS_T_UNSET_KEY is not set") {
		t.Errorf("unset credentials: exit %d:\n%s\n%s", code, out, errOut)
	}
	if msg := out + errOut; strings.Contains(msg, testSecretKey) {
		t.Errorf("output shows the secret key:\n%s", msg)
	}
}

// TestIngestS3HostileKeys: a bucket listing keys such as "../../etc/x" (no
// real service stores them; a hostile or broken one may list them) writes
// nothing outside finops's temporary folder: those keys fail, named, and
// the rest is imported. A manifest from the bucket that names a file
// outside the downloaded objects is not followed.
func TestIngestS3HostileKeys(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "ingest", "focus_sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	url := publishtest.HostileS3(t, "evil", map[string][]byte{
		"../../etc/x":      raw,
		"bills/../../../y": raw,
		"bills/focus.csv":  raw,
		"cur/evil/evil-Manifest.json": []byte(`{"assemblyId":"evil-1","account":"111122223333","reportName":"evil",
			"billingPeriod":{"start":"20260301T000000.000Z","end":"20260401T000000.000Z"},"reportKeys":["x/y/z/w/v/a/secret.csv"]}`),
	})
	cfg := s3SourceConfig(t, url, "")
	sandbox := t.TempDir()
	tmp := filepath.Join(sandbox, "a", "b", "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(sandbox, "a", "secret.csv") // a local file the manifest reaches for
	if err := os.WriteFile(secret, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	db := filepath.Join(t.TempDir(), "f.db")
	code, out, errOut := runFinops(t, "--config", cfg, "--db", db, "ingest", "s3://evil")
	msg := out + errOut
	if code != 1 || !strings.Contains(msg, `s3://evil/../../etc/x: key "../../etc/x"`) || !strings.Contains(msg, "not downloaded") ||
		!strings.Contains(msg, "s3://evil/cur/evil/evil-Manifest.json: lists x/y/z/w/v/a/secret.csv, which is not here") {
		t.Errorf("exit %d:\n%s", code, msg)
	}
	if got := storedURIs(t, db); !slices.Equal(got, []string{"s3://evil/bills/focus.csv"}) {
		t.Errorf("stored %q\n%s", got, msg)
	}
	if left := finopsTemps(t, sandbox); !slices.Equal(left, []string{filepath.Join(sandbox, "a"), filepath.Join(sandbox, "a", "b"), tmp, secret}) {
		t.Errorf("files outside or left behind: %q", left)
	}
}
