package config

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Sources holds the settings of billing sources in cloud object stores
// other than S3 (whose s3:// sources use publish.s3): az:// and
// https://<account>.blob.core.windows.net/ for Azure Blob Storage, gs://
// for Google Cloud Storage. Secrets come from the environment variables or
// files named here, else from each cloud's default credential chain; never
// from the YAML.
type Sources struct {
	Azure AzureSource `yaml:"azure"`
	GCS   GCSSource   `yaml:"gcs"`
	// IdleTimeout ends a download or listing of an s3://, az:// or gs://
	// source that waits this long without a byte; left out (0), the
	// clients' default, idle.DefaultLimit (60s). A stalled server is an
	// error naming the object, never a hang.
	IdleTimeout Duration `yaml:"idle_timeout"`
}

// AzureSource is how az:// sources are read.
type AzureSource struct {
	// Account is the storage account of az://container/prefix sources (an
	// https:// source names its own).
	Account string `yaml:"account"`
	// Endpoint replaces https://<account>.blob.core.windows.net: Azurite
	// (http://127.0.0.1:10000/devstoreaccount1) or a sovereign cloud.
	Endpoint       string `yaml:"endpoint"`
	AccountKeyEnv  string `yaml:"account_key_env"`  // a shared key, from this environment variable
	AccountKeyFile string `yaml:"account_key_file"` // or this file
	SASTokenEnv    string `yaml:"sas_token_env"`    // a SAS token, from this environment variable
	SASTokenFile   string `yaml:"sas_token_file"`   // or this file
}

// GCSSource is how gs:// sources are read.
type GCSSource struct {
	// CredentialsFile is a service-account key file; without it,
	// Application Default Credentials.
	CredentialsFile string `yaml:"credentials_file"`
	// Endpoint replaces https://storage.googleapis.com (fake-gcs-server:
	// http://127.0.0.1:4443); $STORAGE_EMULATOR_HOST does the same.
	Endpoint string `yaml:"endpoint"`
}

func (s Sources) validate() []error {
	var errs []error
	if err := (durRange{lo: 100 * time.Millisecond, hi: time.Hour}).check("sources.idle_timeout", s.IdleTimeout); err != nil {
		errs = append(errs, err)
	}
	a := s.Azure
	if strings.ContainsAny(a.Account, "/.:@ \t") {
		errs = append(errs, fmt.Errorf("sources.azure.account %q: a storage account name, not a URL", a.Account))
	}
	if a.Endpoint != "" {
		if err := checkURL(a.Endpoint); err != nil {
			errs = append(errs, fmt.Errorf("sources.azure.endpoint: %w", err))
		}
	}
	for _, e := range []struct{ key, val string }{{"account_key_env", a.AccountKeyEnv}, {"sas_token_env", a.SASTokenEnv}} {
		if e.val != "" && !envName.MatchString(e.val) {
			errs = append(errs, fmt.Errorf("sources.azure.%s %q: the name of an environment variable, not its value", e.key, e.val))
		}
	}
	key := a.AccountKeyEnv != "" || a.AccountKeyFile != ""
	sas := a.SASTokenEnv != "" || a.SASTokenFile != ""
	switch {
	case a.AccountKeyEnv != "" && a.AccountKeyFile != "":
		errs = append(errs, fmt.Errorf("sources.azure: give account_key_env or account_key_file, not both"))
	case a.SASTokenEnv != "" && a.SASTokenFile != "":
		errs = append(errs, fmt.Errorf("sources.azure: give sas_token_env or sas_token_file, not both"))
	case key && sas:
		errs = append(errs, fmt.Errorf("sources.azure: give a shared key (account_key_env or account_key_file) or a SAS token (sas_token_env or sas_token_file), not both"))
	}
	if s.GCS.Endpoint != "" {
		if err := checkURL(s.GCS.Endpoint); err != nil {
			errs = append(errs, fmt.Errorf("sources.gcs.endpoint: %w", err))
		}
	}
	return errs
}

// Secrets returns the shared key or the SAS token named by the azure
// block, read with getenv; both empty means "use DefaultAzureCredential".
// Errors name the variable or file, never a value.
func (a AzureSource) Secrets(ctx context.Context, getenv func(string) string, read ReadFunc) (accountKey, sasToken string, err error) {
	secret := func(env, file, what string) (string, error) {
		if env == "" && file == "" {
			return "", nil
		}
		v, err := secretFrom(ctx, getenv, read, env, file, what)
		if err != nil {
			return "", fmt.Errorf("sources.azure: %w", err)
		}
		return v, nil
	}
	if accountKey, err = secret(a.AccountKeyEnv, a.AccountKeyFile, "account_key"); err != nil {
		return "", "", err
	}
	if sasToken, err = secret(a.SASTokenEnv, a.SASTokenFile, "sas_token"); err != nil {
		return "", "", err
	}
	// A token copied with its URL's '?' still works.
	return accountKey, strings.TrimPrefix(strings.TrimSpace(sasToken), "?"), nil
}
