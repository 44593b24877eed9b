package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/capped"
)

// TestSourcesValidate: the sources block is checked at load, each error
// naming its key; secrets are read from the named variable or file only.
func TestSourcesValidate(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"ok", "sources: {azure: {account: acct, sas_token_env: AZ_SAS}, gcs: {endpoint: 'http://127.0.0.1:4443'}}", ""},
		{"account as a URL", "sources: {azure: {account: acct.blob.core.windows.net}}", "sources.azure.account"},
		{"key and SAS", "sources: {azure: {account: a, account_key_env: K, sas_token_env: S}}", "a shared key (account_key_env or account_key_file) or a SAS token"},
		{"env and file", "sources: {azure: {account: a, sas_token_env: S, sas_token_file: /f}}", "give sas_token_env or sas_token_file, not both"},
		{"a value for a name", "sources: {azure: {account: a, account_key_env: 'abc+def/=='}}", "the name of an environment variable"},
		{"gcs endpoint not a URL", "sources: {gcs: {endpoint: 'ftp://x'}}", "sources.gcs.endpoint: want an http:// or https:// URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.yaml))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestAzureSourceSecrets(t *testing.T) {
	dir := t.TempDir()
	sasFile := filepath.Join(dir, "sas")
	if err := os.WriteFile(sasFile, []byte("?sv=2024&sig=abc%2F\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"AZ_KEY": "a2V5", "AZ_KEY_PASTED": " a2V5\n"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		name          string
		a             AzureSource
		key, sas, err string
	}{
		{name: "none", a: AzureSource{}},
		{name: "key from env", a: AzureSource{AccountKeyEnv: "AZ_KEY"}, key: "a2V5"},
		// Read as every other secret variable is (secretFrom): a pasted
		// key's spaces and newline are not part of it.
		{name: "key from env, trimmed", a: AzureSource{AccountKeyEnv: "AZ_KEY_PASTED"}, key: "a2V5"},
		{name: "SAS from a file, its ? and newline dropped", a: AzureSource{SASTokenFile: sasFile}, sas: "sv=2024&sig=abc%2F"},
		{name: "unset variable", a: AzureSource{SASTokenEnv: "AZ_UNSET"}, err: "sources.azure: the environment variable AZ_UNSET (sas_token_env) is empty or not set"},
		{name: "missing file", a: AzureSource{AccountKeyFile: filepath.Join(dir, "none")}, err: "sources.azure: account_key_file: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, sas, err := tc.a.Secrets(context.Background(), getenv, capped.ReadRegular)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || key != tc.key || sas != tc.sas {
				t.Fatalf("got %q, %q, %v; want %q, %q", key, sas, err, tc.key, tc.sas)
			}
		})
	}
}
