package publish

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/finops-oss/finops/internal/objkey"
	"github.com/finops-oss/finops/internal/objstore"
	"github.com/finops-oss/finops/internal/sanitize"
)

// SHA256Meta is the user-metadata key holding an object's hex sha256
// (x-amz-meta-sha256): restore checks downloads against it.
const SHA256Meta = objstore.SHA256Meta

// S3Config says where and how to upload. AccessKeyID and SecretAccessKey
// are secrets read from the environment by the caller; empty means the
// default AWS credential chain (env, shared files, SSO, IMDS, IRSA …).
type S3Config struct {
	Bucket    string
	Prefix    string
	Region    string // default: from the AWS chain, else us-east-1
	Endpoint  string // S3-compatible services: their base URL; "" is AWS
	PathStyle bool   // bucket in the path, not the host name (most S3-compatible services)

	AccessKeyID, SecretAccessKey, SessionToken string

	MaxAttempts int           // per request, first try included (default 5)
	MaxBackoff  time.Duration // longest wait between tries (default 10s)

	// IdleTimeout ends a download or a listing page that waits this long
	// without a byte (default idle.DefaultLimit); IdleSetting is the config
	// key that sets it, named in the error ("" when none does).
	IdleTimeout time.Duration
	IdleSetting string
}

// String never shows the keys.
func (c S3Config) String() string {
	return fmt.Sprintf("s3://%s/%s (endpoint %q, region %q, path style %v)", c.Bucket, objkey.CleanPrefix(c.Prefix),
		sanitize.URL(c.Endpoint), c.Region, c.PathStyle)
}

// S3 uploads to and downloads from one bucket and prefix, through
// objstore's S3 client; its errors name this package.
type S3 struct {
	store  *objstore.S3
	prefix string
}

// NewS3 builds the client. It does not contact the service.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	st, err := objstore.NewS3(ctx, objstore.S3Config{Bucket: cfg.Bucket, Region: cfg.Region, Endpoint: cfg.Endpoint,
		PathStyle: cfg.PathStyle, AccessKeyID: cfg.AccessKeyID, SecretAccessKey: cfg.SecretAccessKey, SessionToken: cfg.SessionToken,
		MaxAttempts: cfg.MaxAttempts, MaxBackoff: cfg.MaxBackoff, IdleTimeout: cfg.IdleTimeout, IdleSetting: cfg.IdleSetting, Pkg: "publish"})
	if err != nil {
		return nil, err
	}
	return &S3{store: st, prefix: objkey.CleanPrefix(cfg.Prefix)}, nil
}

// Bucket is the bucket name.
func (c *S3) Bucket() string { return c.store.Bucket() }

// Prefix is the cleaned key prefix.
func (c *S3) Prefix() string { return c.prefix }

// URL is the s3:// URL of a key.
func (c *S3) URL(key string) string { return c.store.URL(key) }

// Key is the key of one file of one period under this client's prefix.
func (c *S3) Key(period, name string) (string, error) { return objkey.Key(c.prefix, period, name) }

// Upload puts the file at path to key with its content type and its sha256
// (hex) as metadata. The body is a seekable file, so a retried request sends
// it again from the start.
func (c *S3) Upload(ctx context.Context, key, path, contentType, sum string, opts ...UploadOption) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("publish: upload %s: %w", key, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("publish: upload %s: %w", key, err)
	}
	return c.UploadReader(ctx, key, f, fi.Size(), contentType, sum, opts...)
}

// UploadReader puts size bytes of body to key, as Upload does a file's. The
// body must seek: the SDK rewinds it to retry a request, and to sign one on
// a plain-HTTP endpoint (it reads it once for the payload hash).
func (c *S3) UploadReader(ctx context.Context, key string, body io.ReadSeeker, size int64, contentType, sum string, opts ...UploadOption) error {
	if !objkey.Under(key, c.prefix) {
		return fmt.Errorf("publish: key %q is not under prefix %q", key, c.prefix)
	}
	var o uploadOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.progress != nil {
		pr, err := newProgressReader(body, o.progress)
		if err != nil {
			return fmt.Errorf("publish: upload %s: %w", c.URL(key), err)
		}
		body = pr
	}
	return c.store.Put(ctx, key, body, size, objstore.PutOptions{ContentType: contentType, SHA256: sum})
}

// Download streams key into w, checks the bytes against the sha256 metadata
// when the object has it, and returns the sha256 of what it wrote. The
// request and each read of the body are under the idle limit (idle.Watch):
// a server that stops sending is an error naming the object and how much of
// it came, as is a connection closed mid-body. An object that is not there
// is an fs.ErrNotExist.
func (c *S3) Download(ctx context.Context, key string, w io.Writer) (string, error) {
	return objstore.Download(ctx, c.store, key, w)
}

// List lists the objects under a key prefix (relative to the bucket).
func (c *S3) List(ctx context.Context, prefix string) ([]objstore.Listed, error) {
	return c.store.List(ctx, prefix)
}

// Delete deletes one key under the prefix.
func (c *S3) Delete(ctx context.Context, key string) error {
	if !objkey.Under(key, c.prefix) {
		return fmt.Errorf("publish: key %q is not under prefix %q", key, c.prefix)
	}
	return c.store.Delete(ctx, key)
}

// Fetch downloads the objects under prefix (a key prefix in this client's
// bucket, not cleaned) that accept takes (nil: all) into dir, keeping their
// key paths (dir/<key>), as objstore.Fetch does; each object is checked
// against its sha256 metadata when it has one.
//
// err is a failure of the listing or of a download; it says what to check
// (bucket, credentials, endpoint). The caller removes dir.
func (c *S3) Fetch(ctx context.Context, prefix string, accept func(key string) bool, dir string) (files []objstore.Fetched, refused []error, err error) {
	return c.store.Fetch(ctx, prefix, accept, dir)
}

// explain adds to an S3 error what to check: the bucket name, the
// credentials or the endpoint.
func (c *S3) explain(err error) error { return c.store.Explain(err) }
