//go:build !finops_nocloud

package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/finops-oss/finops/internal/sanitize"
)

// S3 is one bucket of S3 or an S3-compatible service.
type S3 struct {
	client   *s3.Client
	bucket   string
	endpoint string // "" on AWS; named in error messages (NewS3 refuses one with credentials)
	pageSize int32  // keys per List page; 0 is the service's default (1000)
	rep      reporter
}

// NewS3 builds the client. It does not contact the service.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	pkg := pkgOr(cfg.Pkg)
	if cfg.Bucket == "" {
		return nil, fmt.Errorf("%s: s3: no bucket configured", pkg)
	}
	if sanitize.URL(cfg.Endpoint) != cfg.Endpoint {
		// Not echoed; the SDK would quote it whole in every error.
		return nil, fmt.Errorf("%s: s3: the endpoint holds credentials (a password or a token parameter): "+
			"give the keys through publish.s3.access_key_env and secret_key_env instead", pkg)
	}
	opts := []func(*awsconfig.LoadOptions) error{
		awsconfig.WithRetryer(func() aws.Retryer { return newRetryer(cfg) }),
	}
	if cfg.Region != "" {
		opts = append(opts, awsconfig.WithRegion(cfg.Region))
	}
	if cfg.AccessKeyID != "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(cfg.AccessKeyID, cfg.SecretAccessKey, cfg.SessionToken)))
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: s3: load AWS configuration: %w", pkg, err)
	}
	if awsCfg.Region == "" {
		awsCfg.Region = "us-east-1"
	}
	where := "AWS S3"
	if cfg.Endpoint != "" {
		where = cfg.Endpoint
	}
	return &S3{client: s3.NewFromConfig(awsCfg, ClientOptions(cfg)), bucket: cfg.Bucket, endpoint: cfg.Endpoint,
		rep: reporter{pkg: pkg, service: where, setting: cfg.IdleSetting, idle: cfg.IdleTimeout}}, nil
}

// ClientOptions are the S3 client options cfg implies: the base endpoint
// and path style for S3-compatible services, and — on those custom
// endpoints only — request checksums and response validation only when an
// operation requires them, as many S3-compatible services reject the SDK's
// default trailing checksums (aws-chunked CRC32 trailers).
func ClientOptions(cfg S3Config) func(*s3.Options) {
	return func(o *s3.Options) {
		o.UsePathStyle = cfg.PathStyle
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(strings.TrimRight(cfg.Endpoint, "/"))
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
	}
}

// newRetryer retries throttling, 5xx and connection errors with jittered
// exponential backoff; the caller's context carries the overall deadline. No
// retry quota: a weekly job would rather keep trying until its deadline.
func newRetryer(cfg S3Config) aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = cfg.MaxAttempts
		if o.MaxAttempts <= 0 {
			o.MaxAttempts = 5
		}
		o.MaxBackoff = cfg.MaxBackoff
		if o.MaxBackoff <= 0 {
			o.MaxBackoff = 10 * time.Second
		}
		o.RateLimiter = ratelimit.None
	})
}

// Bucket is the bucket name.
func (c *S3) Bucket() string { return c.bucket }

// URL is the s3:// URL of a key.
func (c *S3) URL(key string) string { return "s3://" + c.bucket + "/" + key }

func (c *S3) reporter() *reporter { return &c.rep }

// Fetch downloads the objects under prefix that accept takes into dir (see
// the package's Fetch); each one's URL is s3://bucket/key.
func (c *S3) Fetch(ctx context.Context, prefix string, accept func(string) bool, dir string) ([]Fetched, []error, error) {
	return Fetch(ctx, c, prefix, accept, dir)
}

// Put puts size bytes of body to key with its content type and its sha256
// (hex) as metadata. The body must seek: the SDK rewinds it to retry a
// request, and to sign one on a plain-HTTP endpoint (it reads it once for
// the payload hash).
func (c *S3) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, o PutOptions) error {
	in := &s3.PutObjectInput{
		Bucket:        aws.String(c.bucket),
		Key:           aws.String(key),
		Body:          body,
		ContentLength: aws.Int64(size),
	}
	if o.ContentType != "" {
		in.ContentType = aws.String(o.ContentType)
	}
	if o.SHA256 != "" {
		in.Metadata = map[string]string{SHA256Meta: o.SHA256}
	}
	if _, err := c.client.PutObject(ctx, in); err != nil {
		return fmt.Errorf("%s: upload %s: %w", c.rep.pkg, c.URL(key), err)
	}
	return nil
}

// Open starts streaming key. An object that is not there is an
// fs.ErrNotExist naming its URL.
func (c *S3) Open(ctx context.Context, key string) (*Stream, error) {
	out, err := c.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key)})
	if err != nil {
		var nk *types.NoSuchKey
		if errors.As(err, &nk) {
			return nil, fmt.Errorf("%s: %s does not exist: %w", c.rep.pkg, c.URL(key), os.ErrNotExist)
		}
		return nil, fmt.Errorf("%s: download %s: %w", c.rep.pkg, c.URL(key), err)
	}
	size := int64(-1)
	if out.ContentLength != nil {
		size = *out.ContentLength
	}
	return &Stream{Body: out.Body, Size: size, SHA256: out.Metadata[SHA256Meta]}, nil
}

// List lists the objects under a key prefix (relative to the bucket). Each
// page is one request under the idle limit: the SDK reads the page whole, so
// a page that has not arrived within it is ended. S3 keeps no MD5 of an
// object as such (an ETag is one only for some uploads), so MD5 is empty.
func (c *S3) List(ctx context.Context, prefix string) ([]Listed, error) {
	var out []Listed
	in := &s3.ListObjectsV2Input{Bucket: aws.String(c.bucket), Prefix: aws.String(prefix)}
	if c.pageSize > 0 {
		in.MaxKeys = aws.Int32(c.pageSize)
	}
	url := c.URL(prefix)
	p := s3.NewListObjectsV2Paginator(c.client, in)
	for p.HasMorePages() {
		page, err := listStep(ctx, &c.rep, url, func(ctx context.Context) (*s3.ListObjectsV2Output, error) {
			return p.NextPage(ctx)
		})
		var ours *remoteError
		if errors.As(err, &ours) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("%s: list %s: %w", c.rep.pkg, url, err)
		}
		for _, o := range page.Contents {
			out = append(out, Listed{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), ETag: strings.Trim(aws.ToString(o.ETag), `"`),
				LastModified: aws.ToTime(o.LastModified)})
		}
	}
	return out, nil
}

// Delete deletes one key (one request per key: DeleteObjects needs a
// checksum some S3-compatible services do not accept).
func (c *S3) Delete(ctx context.Context, key string) error {
	if _, err := c.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key)}); err != nil {
		return fmt.Errorf("%s: delete %s: %w", c.rep.pkg, c.URL(key), err)
	}
	return nil
}
