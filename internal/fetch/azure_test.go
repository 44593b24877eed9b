package fetch

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/fetch/fetchtest"
	"github.com/finops-oss/finops/internal/proctest"
)

// TestAzureFetch downloads from a real Azurite: globs, prefixes, an empty
// prefix, an empty container, a missing one, keys that cannot be saved
// safely, a SAS token, and credentials the service refuses — whose errors
// name the container and what to check, never the key or the token.
func TestAzureFetch(t *testing.T) {
	az := fetchtest.StartAzurite(t)
	focus := focusSample(t)
	objects := map[string][]byte{
		"exports/focus/focus_sample.csv": focus,
		"exports/focus/.DS_Store":        []byte("not an export"),
		"exports/2026-11/a.csv":          []byte("a\n"),
		"exports/2026-12/b.csv":          []byte("b\n"),
		"exports/2026-12/notes.txt":      []byte("notes\n"),
		"exports-old/c.csv":              []byte("c\n"),
	}
	az.CreateContainer(t, "billing")
	for k, b := range objects {
		az.Put(t, "billing", k, b)
	}
	az.CreateContainer(t, "empty")
	// Keys a blob service stores but no local folder can hold safely.
	odd := map[string][]byte{
		"odd/../../../escape.csv": []byte("x\n"),
		"odd/./dot.csv":           []byte("x\n"),
		"odd/x//y.csv":            []byte("x\n"),
		"odd/ok.csv":              []byte("ok\n"),
	}
	// A blob whose stored MD5 is not its bytes' (a broken uploader).
	az.CreateContainer(t, "torn")
	az.Put(t, "torn", "bill.csv", []byte("a,b\n"))
	az.SetMD5(t, "torn", "bill.csv", make([]byte, 16))
	az.CreateContainer(t, "odd")
	for k, b := range odd {
		az.Put(t, "odd", k, b)
	}
	const base = "az://" + fetchtest.AzuriteAccount + "/"
	shared := AzureConfig{Account: fetchtest.AzuriteAccount, Endpoint: az.Endpoint, AccountKey: fetchtest.AzuriteKey}
	withKey := func(c string) AzureConfig { s := shared; s.Container = c; return s }

	sas := az.SAS(t, "billing", time.Now().Add(time.Hour))
	q, _ := url.ParseQuery(sas)
	sig := q.Get("sig")
	// The same token with another signature: well-formed, refused.
	badSAS := strings.Replace(sas, url.QueryEscape(sig), url.QueryEscape("AAAA"+sig[4:]), 1)
	// An address nothing listens on (free a moment ago).
	closed := fmt.Sprintf("http://127.0.0.1:%d/%s", proctest.FreePort(t), fetchtest.AzuriteAccount)
	// A key of the right form that is not the account's.
	wrongKey := "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk="

	for _, tc := range []struct {
		cfg AzureConfig
		fetchCase
		secrets []string
	}{
		{cfg: withKey("billing"), fetchCase: fetchCase{name: "glob", key: "exports/*/*.csv",
			want: []string{"exports/2026-11/a.csv", "exports/2026-12/b.csv", "exports/focus/focus_sample.csv"}}},
		{cfg: withKey("billing"), fetchCase: fetchCase{name: "folder prefix, hidden names left out", key: "exports/focus",
			want: []string{"exports/focus/focus_sample.csv"}}},
		{cfg: withKey("billing"), fetchCase: fetchCase{name: "a prefix is a folder, not a name's start", key: "exports",
			want: []string{"exports/2026-11/a.csv", "exports/2026-12/b.csv", "exports/2026-12/notes.txt", "exports/focus/focus_sample.csv"}}},
		{cfg: withKey("billing"), fetchCase: fetchCase{name: "empty prefix: the whole container", key: "",
			want: []string{"exports-old/c.csv", "exports/2026-11/a.csv", "exports/2026-12/b.csv", "exports/2026-12/notes.txt",
				"exports/focus/focus_sample.csv"}}},
		{cfg: withKey("billing"), fetchCase: fetchCase{name: "nothing under the prefix", key: "nothing/"}},
		{cfg: withKey("empty"), fetchCase: fetchCase{name: "empty container", key: ""}},
		{cfg: withKey("nope"), fetchCase: fetchCase{name: "missing container", key: "exports/",
			errHas: []string{"az://devstoreaccount1/nope/exports/", `container "nope" does not exist in account "devstoreaccount1"`, "check the container"}}},
		{cfg: withKey("torn"), fetchCase: fetchCase{name: "a copy that is not the stored MD5", key: "",
			errHas: []string{"az://devstoreaccount1/torn/bill.csv: its MD5 is not the one the service keeps", "run the ingest again"}}},
		{cfg: withKey("odd"), fetchCase: fetchCase{name: "odd keys stay inside the folder", key: "odd/",
			want: []string{"odd/ok.csv"},
			refused: []string{`az://devstoreaccount1/odd/odd/../../../escape.csv: key "odd/../../../escape.csv"`,
				`az://devstoreaccount1/odd/odd/./dot.csv`, `az://devstoreaccount1/odd/odd/x//y.csv`}}},
		{cfg: AzureConfig{Account: fetchtest.AzuriteAccount, Container: "billing", Endpoint: az.Endpoint, SASToken: sas},
			fetchCase: fetchCase{name: "SAS token", key: "exports/focus/", want: []string{"exports/focus/focus_sample.csv"}}},
		{cfg: AzureConfig{Account: fetchtest.AzuriteAccount, Container: "billing", Endpoint: az.Endpoint, SASToken: badSAS},
			fetchCase: fetchCase{name: "SAS token refused", key: "exports/",
				errHas: []string{"az://devstoreaccount1/billing/exports/", "(HTTP 403)", "refused the credentials", "SAS token"}},
			secrets: []string{badSAS, "AAAA" + sig[4:], url.QueryEscape("AAAA" + sig[4:])}},
		{cfg: AzureConfig{Account: fetchtest.AzuriteAccount, Container: "billing", Endpoint: az.Endpoint, AccountKey: wrongKey},
			fetchCase: fetchCase{name: "shared key refused", key: "exports/",
				errHas: []string{"az://devstoreaccount1/billing/exports/", "refused the credentials", "account_key_env"}},
			secrets: []string{wrongKey}},
		{cfg: AzureConfig{Account: fetchtest.AzuriteAccount, Container: "billing", Endpoint: closed, SASToken: sas},
			fetchCase: fetchCase{name: "endpoint that does not answer", key: "exports/",
				errHas: []string{"az://devstoreaccount1/billing/exports/", "cannot reach the blob service at " + closed, "check sources.azure.endpoint"}},
			secrets: []string{sas, sig, url.QueryEscape(sig)}},
		{cfg: AzureConfig{Account: fetchtest.AzuriteAccount, Container: "billing", Endpoint: az.Endpoint},
			fetchCase: fetchCase{name: "DefaultAzureCredential over http", key: "exports/",
				errHas: []string{"az://devstoreaccount1/billing/exports/", "https only", "account_key_env or sas_token_env"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAzure(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			all := objects
			if tc.cfg.Container == "odd" {
				all = odd
			}
			runFetch(t, a, tc.fetchCase, base+tc.cfg.Container+"/", all, tc.secrets...)
		})
	}
}

// TestNewAzureRefuses: settings that cannot work fail before any request,
// saying what to set, and never show the key.
func TestNewAzureRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    AzureConfig
		errHas string
	}{
		{"no account", AzureConfig{Container: "billing"}, "no storage account: set sources.azure.account"},
		{"a key that is not base64", AzureConfig{Account: "acct", Container: "c", AccountKey: "not-base64-secret!"},
			"is not a storage account key (base64)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAzure(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Fatalf("err %v, want %q", err, tc.errHas)
			}
			if tc.cfg.AccountKey != "" && strings.Contains(err.Error(), tc.cfg.AccountKey) {
				t.Errorf("error shows the key: %v", err)
			}
		})
	}
}
