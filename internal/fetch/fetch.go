// Package fetch is the billing sources' side of remote objects: it parses
// az://, https://<account>.blob.core.windows.net/ and gs:// source names
// (url.go) and makes internal/objstore clients of their container or
// bucket whose errors name this package and the sources' idle-limit
// setting. The download itself (listing, streaming, MD5 checks, saving
// into a folder through an os.Root) is objstore.Fetch, as S3's is.
package fetch

import (
	"context"

	"github.com/finops-oss/finops/internal/objstore"
)

// IdleSetting is the config key of the idle limit, named in the errors of
// a stalled read.
const IdleSetting = "sources.idle_timeout"

// AzureConfig is how to reach one container (objstore.AzureConfig; its
// IdleSetting and Pkg are this package's).
type AzureConfig = objstore.AzureConfig

// GCSConfig is how to reach one bucket (objstore.GCSConfig; its
// IdleSetting and Pkg are this package's).
type GCSConfig = objstore.GCSConfig

// NewAzure makes a client of one container; it talks to nothing yet.
func NewAzure(c AzureConfig) (*objstore.Azure, error) {
	c.Pkg, c.IdleSetting = "fetch", IdleSetting
	return objstore.NewAzure(c)
}

// NewGCS makes a client of one bucket; it reads the credentials file but
// talks to nothing yet. Close releases it.
func NewGCS(ctx context.Context, c GCSConfig) (*objstore.GCS, error) {
	c.Pkg, c.IdleSetting = "fetch", IdleSetting
	return objstore.NewGCS(ctx, c)
}
