//go:build finops_nocloud

package objstore

import (
	"context"
	"fmt"
	"io"
)

// The demo's build (make demo: -tags finops_nocloud) leaves the cloud
// clients out: the AWS SDK, the Azure SDK and its identity library, and
// Google's OAuth are a fifth of what a cold build compiles (docs/BENCHMARKS.md
// §Build weight), and the demo never talks to a cloud. Its stores cannot
// be made: every constructor says which build to use instead, so an
// s3://, az:// or gs:// source, publishing and doctor's probes fail with
// that sentence rather than with a missing feature.

// NoCloud is what the demo's build says when asked for a remote store.
const NoCloud = "this finops binary is the demo's build (make demo), made without the cloud storage clients: " +
	"build the full one with `make build` (bin/finops) or `go install github.com/finops-oss/finops/cmd/finops@latest` " +
	"to read s3://, az:// and gs:// sources and to publish"

func noCloud(pkg, scheme string) error { return fmt.Errorf("%s: %s: %s", pkgOr(pkg), scheme, NoCloud) }

// NewS3 refuses: this build has no S3 client.
func NewS3(_ context.Context, cfg S3Config) (*S3, error) { return nil, noCloud(cfg.Pkg, "s3") }

// NewAzure refuses: this build has no Azure client.
func NewAzure(c AzureConfig) (*Azure, error) { return nil, noCloud(c.Pkg, "az") }

// NewGCS refuses: this build has no GCS client.
func NewGCS(_ context.Context, c GCSConfig) (*GCS, error) { return nil, noCloud(c.Pkg, "gs") }

// S3, Azure and GCS have the full build's methods so that their callers
// compile; no value of them is ever made here.
type (
	S3    struct{ none }
	Azure struct{ none }
	GCS   struct{ none }
)

// none is a store that cannot exist.
type none struct{}

func (none) List(context.Context, string) ([]Listed, error) {
	return nil, fmt.Errorf("objstore: %s", NoCloud)
}
func (none) Open(context.Context, string) (*Stream, error) {
	return nil, fmt.Errorf("objstore: %s", NoCloud)
}
func (none) Put(context.Context, string, io.ReadSeeker, int64, PutOptions) error {
	return fmt.Errorf("objstore: %s", NoCloud)
}
func (none) URL(key string) string                { return key }
func (none) reporter() *reporter                  { return &reporter{pkg: "objstore"} }
func (none) fetchErr(err error) error             { return err }
func (none) Explain(err error) error              { return err }
func (none) Bucket() string                       { return "" }
func (none) Close() error                         { return nil }
func (none) Delete(context.Context, string) error { return fmt.Errorf("objstore: %s", NoCloud) }
func (none) Fetch(context.Context, string, func(string) bool, string) ([]Fetched, []error, error) {
	return nil, nil, fmt.Errorf("objstore: %s", NoCloud)
}
