package source

import (
	"cmp"
	"context"
	"fmt"

	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/fetch"
	"github.com/finops-oss/finops/internal/objstore"
	"github.com/finops-oss/finops/internal/sanitize"
)

// planRemote plans an az://, https://<account>.blob.core.windows.net/ or
// gs:// source (a prefix, or a glob in the key part) by downloading its
// objects into a temporary folder with the settings of the config's
// sources block, then planning them as s3:// sources are (fetchPlan).
// Each file is recorded as az://account/container/key or gs://bucket/key.
func (pl Planner) planRemote(ctx context.Context, name string) (*Plan, error) {
	c := pl.Config
	src, err := fetch.Parse(name)
	if err != nil {
		return nil, ConfigError{err}
	}
	prefix, match, err := objstore.SourceKeys(src.Key)
	if err != nil {
		return nil, ConfigError{fmt.Errorf("%s: %w", sanitize.Redact(name), err)}
	}
	var (
		f       objstore.Store
		secrets []string
	)
	switch src.Kind {
	case fetch.KindAzure:
		az := c.Sources.Azure
		key, sas, err := az.Secrets(ctx, pl.Getenv, capped.ReadRegular)
		if err != nil {
			return nil, ConfigError{fmt.Errorf("%s: %w", sanitize.Redact(name), err)}
		}
		secrets = []string{key, sas}
		account := cmp.Or(src.Account, az.Account)
		a, err := fetch.NewAzure(fetch.AzureConfig{Account: account, Container: src.Bucket, Endpoint: az.Endpoint,
			Host: src.Host, AccountKey: key, SASToken: sas, IdleTimeout: c.Sources.IdleTimeout.Duration})
		if err != nil {
			return nil, ConfigError{RedactErr(err, secrets...)}
		}
		f = a
	default:
		g, err := fetch.NewGCS(ctx, fetch.GCSConfig{Bucket: src.Bucket, CredentialsFile: c.Sources.GCS.CredentialsFile,
			Endpoint: cmp.Or(c.Sources.GCS.Endpoint, pl.Getenv("STORAGE_EMULATOR_HOST")), IdleTimeout: c.Sources.IdleTimeout.Duration})
		if err != nil {
			return nil, ConfigError{err}
		}
		defer g.Close()
		f = g
	}
	return pl.fetchPlan(ctx, sanitize.Redact(name), src.Kind, f, prefix, match, secrets)
}
