package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/fetch/fetchtest"
)

// secretFile writes a secret to a file of its own (cli() passes finops no
// environment, so the tests name secrets by file).
func secretFile(t *testing.T, secret string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIngestCloudSources: the FOCUS sample that TestIngestS3 reads from S3,
// ingested from a file, from a real Azurite (shared key and SAS token, az://
// and a glob) and from a real fake-gcs-server (gs://, by the config's
// endpoint and by STORAGE_EMULATOR_HOST), stores the same lines and the
// same total as the file's own BilledCost column sums to; each file is
// recorded by its az:// or gs:// URL, never with the SAS token, and no
// temporary copy is left.
func TestIngestCloudSources(t *testing.T) {
	focus := filepath.Join(repoRoot(t), "testdata", "ingest", "focus_sample.csv")
	raw, err := os.ReadFile(focus)
	if err != nil {
		t.Fatal(err)
	}
	// The known total, summed from the file independently of finops.
	wantBilled, wantRows, _ := csvColumnSum(t, focus, "BilledCost")

	az := fetchtest.StartAzurite(t)
	az.CreateContainer(t, "billing")
	az.Put(t, "billing", "exports/focus/focus_sample.csv", raw)
	az.Put(t, "billing", "exports/focus/.DS_Store", []byte("not an export"))
	sas := az.SAS(t, "billing", time.Now().Add(time.Hour))
	gcs := fetchtest.StartFakeGCS(t)
	gcs.CreateBucket(t, "gcp-billing")
	gcs.Put(t, "gcp-billing", "bq/focus/focus_sample.csv", raw)

	azure := func(secret string) string {
		return "sources:\n  azure:\n    account: " + fetchtest.AzuriteAccount + "\n    endpoint: " + az.Endpoint + "\n    " + secret + "\n"
	}
	keyCfg := azure("account_key_file: " + secretFile(t, fetchtest.AzuriteKey))
	for _, tc := range []struct {
		name, config, source, wantURI string
		env                           map[string]string
	}{
		{name: "file", source: focus, wantURI: focus},
		{name: "azurite shared key", config: keyCfg, source: "az://billing/exports/focus",
			wantURI: "az://devstoreaccount1/billing/exports/focus/focus_sample.csv"},
		{name: "azurite glob", config: keyCfg, source: "az://billing/exports/*/*.csv",
			wantURI: "az://devstoreaccount1/billing/exports/focus/focus_sample.csv"},
		{name: "azurite SAS token", config: azure("sas_token_file: " + secretFile(t, sas)), source: "az://billing/exports/",
			wantURI: "az://devstoreaccount1/billing/exports/focus/focus_sample.csv"},
		{name: "fake-gcs-server endpoint", config: "sources:\n  gcs:\n    endpoint: " + gcs.URL + "\n", source: "gs://gcp-billing/bq",
			wantURI: "gs://gcp-billing/bq/focus/focus_sample.csv"},
		{name: "fake-gcs-server STORAGE_EMULATOR_HOST", source: "gs://gcp-billing/bq/*/*.csv",
			env: map[string]string{"STORAGE_EMULATOR_HOST": strings.TrimPrefix(gcs.URL, "http://")}, wantURI: "gs://gcp-billing/bq/focus/focus_sample.csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			args := []string{"--db", filepath.Join(t.TempDir(), "f.db")}
			if tc.config != "" {
				args = append(args, "--config", writeConfig(t, t.TempDir(), "finops.yaml", tc.config))
			}
			code, out, errOut := runFinops(t, append(args, "ingest", tc.source)...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
			}
			if n, billed, _ := storedTotals(t, args[1]); n != wantRows || !billed.Equal(wantBilled) {
				t.Errorf("stored %d lines billing %s; the file has %d rows billing %s\n%s", n, billed, wantRows, wantBilled, out)
			}
			if got := storedURIs(t, args[1]); !slices.Equal(got, []string{tc.wantURI}) {
				t.Errorf("stored URIs %q, want %q", got, tc.wantURI)
			}
			if !strings.Contains(out, tc.wantURI+": focus") {
				t.Errorf("output does not name %s:\n%s", tc.wantURI, out)
			}
			if strings.Contains(out+errOut, tmp) || strings.Contains(out+errOut, "sig=") {
				t.Errorf("output names the temporary copies or the SAS token:\n%s\n%s", out, errOut)
			}
			if left := finopsTemps(t, tmp); len(left) > 0 {
				t.Errorf("temporary copies left behind: %q", left)
			}
		})
	}

	// What goes wrong says what to do, never the secret.
	wrongKey := "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk="
	for _, tc := range []struct {
		name, config, source string
		wantCode             int
		wantMsg              []string
		secret               string
	}{
		{"missing container", keyCfg, "az://nope/exports", cli.ExitFailed,
			[]string{"az://devstoreaccount1/nope/exports", `container "nope" does not exist`}, fetchtest.AzuriteKey},
		{"empty prefix", keyCfg, "az://billing/nothing-here", cli.ExitFailed, []string{"az://billing/nothing-here: no objects match"}, ""},
		{"refused key", azure("account_key_file: " + secretFile(t, wrongKey)), "az://billing/exports", cli.ExitFailed,
			[]string{"refused the credentials", "account_key_file"}, wrongKey},
		{"no account for az://", "", "az://billing/exports", cli.ExitUsage, []string{"set sources.azure.account"}, ""},
		{"SAS token in the URL", "", "https://acct.blob.core.windows.net/billing/x?sv=1&sig=SECRETSIGNATURE", cli.ExitUsage,
			[]string{"sas_token_env"}, "SECRETSIGNATURE"},
		{"missing bucket", "sources:\n  gcs:\n    endpoint: " + gcs.URL + "\n", "gs://nope/bq", cli.ExitFailed,
			[]string{`bucket "nope" does not exist at ` + gcs.URL}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"--db", filepath.Join(t.TempDir(), "f.db")}
			if tc.config != "" {
				args = append(args, "--config", writeConfig(t, t.TempDir(), "finops.yaml", tc.config))
			}
			code, out, errOut := runFinops(t, append(args, "ingest", tc.source)...)
			msg := strings.ReplaceAll(out+errOut, `\"`, `"`)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d:\n%s", code, tc.wantCode, msg)
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(msg, w) {
					t.Errorf("output lacks %q:\n%s", w, msg)
				}
			}
			if tc.secret != "" && strings.Contains(msg, tc.secret) {
				t.Errorf("output shows the secret:\n%s", msg)
			}
		})
	}
}

// TestIngestAzureRestatedRun: Azure's export folders in a real Azurite —
// <export>/<period>/<timestamp>/<run>/manifest.json and its parts — come out
// as deliveries: the first run is imported, then a restated run of the same
// month replaces it, and only the restated run's parts stay stored.
func TestIngestAzureRestatedRun(t *testing.T) {
	az := fetchtest.StartAzurite(t)
	az.CreateContainer(t, "costs")
	folder := cloudTestdata(t, "azure/delivery")
	month := filepath.Join(folder, "exports", "gpu-costs", "20260101-20260131")
	upload := func(run string) {
		err := filepath.WalkDir(filepath.Join(month, run), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(folder, p)
			if err != nil {
				return err
			}
			az.Put(t, "costs", filepath.ToSlash(rel), b)
			return nil
		})
		if err != nil {
			t.Fatalf("upload %s: %v", run, err)
		}
	}
	cfg := writeConfig(t, t.TempDir(), "finops.yaml", "sources:\n  azure:\n    account: "+fetchtest.AzuriteAccount+"\n    endpoint: "+az.Endpoint+
		"\n    account_key_file: "+secretFile(t, fetchtest.AzuriteKey)+"\n")
	db := filepath.Join(t.TempDir(), "f.db")
	const src = "az://costs/exports/gpu-costs/"
	const base = "az://devstoreaccount1/costs/exports/gpu-costs/20260101-20260131/"

	upload(filepath.Join("202601051200", "run-1111"))
	if code, out, errOut := runFinops(t, "--config", cfg, "--db", db, "ingest", src); code != 0 {
		t.Fatalf("run 1: exit %d:\n%s\n%s", code, out, errOut)
	}
	if got := storedURIs(t, db); !slices.Equal(got, []string{base + "202601051200/run-1111/part_0_0001.csv"}) {
		t.Errorf("after run 1: stored %q", got)
	}

	upload(filepath.Join("202601071200", "run-2222"))
	code, out, errOut := runFinops(t, "--config", cfg, "--db", db, "ingest", src)
	if code != 0 || !strings.Contains(out, "delivery 202601071200/run-2222") || !strings.Contains(out, "replaces") {
		t.Fatalf("run 2: exit %d:\n%s\n%s", code, out, errOut)
	}
	wantURIs := []string{base + "202601071200/run-2222/part_0_0001.csv", base + "202601071200/run-2222/part_0_0002.csv"}
	if got := storedURIs(t, db); !slices.Equal(got, wantURIs) {
		t.Errorf("after run 2: stored %q, want %q", got, wantURIs)
	}
	wantRestatedRun(t, db, month)
}
