package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"github.com/finops-oss/finops/internal/idle"
	"github.com/finops-oss/finops/sanitize"
)

// SHA256Meta is the user-metadata key holding an object's hex sha256
// (x-amz-meta-sha256): restore checks downloads against it.
const SHA256Meta = "sha256"

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
	return fmt.Sprintf("s3://%s/%s (endpoint %q, region %q, path style %v)", c.Bucket, CleanPrefix(c.Prefix),
		sanitize.URL(c.Endpoint), c.Region, c.PathStyle)
}

// S3 uploads to and downloads from one bucket and prefix.
type S3 struct {
	client   *s3.Client
	bucket   string
	prefix   string
	endpoint string // "" on AWS; named in error messages (NewS3 refuses one with credentials)
	pageSize int32  // keys per List page; 0 is the service's default (1000)

	idle        time.Duration // S3Config.IdleTimeout
	idleSetting string
}

// Object is one listed object.
type Object struct {
	Key          string
	Size         int64
	LastModified time.Time
	ETag         string // as the service quotes it; opaque (a multipart upload's is no MD5)
}

// NewS3 builds the client. It does not contact the service.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	if cfg.Bucket == "" {
		return nil, errors.New("publish: s3: no bucket configured")
	}
	if sanitize.URL(cfg.Endpoint) != cfg.Endpoint {
		// Not echoed; the SDK would quote it whole in every error.
		return nil, errors.New("publish: s3: the endpoint holds credentials (a password or a token parameter): " +
			"give the keys through publish.s3.access_key_env and secret_key_env instead")
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
		return nil, fmt.Errorf("publish: s3: load AWS configuration: %w", err)
	}
	if awsCfg.Region == "" {
		awsCfg.Region = "us-east-1"
	}
	return &S3{client: s3.NewFromConfig(awsCfg, ClientOptions(cfg)), bucket: cfg.Bucket, prefix: CleanPrefix(cfg.Prefix),
		endpoint: cfg.Endpoint, idle: cfg.IdleTimeout, idleSetting: cfg.IdleSetting}, nil
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

// Prefix is the cleaned key prefix.
func (c *S3) Prefix() string { return c.prefix }

// URL is the s3:// URL of a key.
func (c *S3) URL(key string) string { return "s3://" + c.bucket + "/" + key }

// Key is the key of one file of one period under this client's prefix.
func (c *S3) Key(period, name string) (string, error) { return Key(c.prefix, period, name) }

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
	if !under(key, c.prefix) {
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
	_, err := c.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        aws.String(c.bucket),
		Key:           aws.String(key),
		Body:          body,
		ContentLength: aws.Int64(size),
		ContentType:   aws.String(contentType),
		Metadata:      map[string]string{SHA256Meta: sum},
	})
	if err != nil {
		return fmt.Errorf("publish: upload %s: %w", c.URL(key), err)
	}
	return nil
}

// Download streams key into w, checks the bytes against the sha256 metadata
// when the object has it, and returns the sha256 of what it wrote. The
// request and each read of the body are under the idle limit (idle.Watch):
// a server that stops sending is an error naming the object and how much of
// it came, as is a connection closed mid-body.
func (c *S3) Download(ctx context.Context, key string, w io.Writer) (string, error) {
	wctx, watch := idle.Start(ctx, c.idle)
	defer watch.Stop()
	out, err := c.client.GetObject(wctx, &s3.GetObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key)})
	watch.Disarm()
	if err != nil {
		if serr := watch.Err(0, -1); serr != nil {
			return "", c.readError("download", c.URL(key), serr)
		}
		var nk *types.NoSuchKey
		if errors.As(err, &nk) {
			return "", fmt.Errorf("publish: %s does not exist: %w", c.URL(key), os.ErrNotExist)
		}
		return "", fmt.Errorf("publish: download %s: %w", c.URL(key), err)
	}
	defer out.Body.Close()
	size := int64(-1)
	if out.ContentLength != nil {
		size = *out.ContentLength
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(w, h), watch.Reader(out.Body, size)); err != nil {
		return "", c.readError("download", c.URL(key), err)
	}
	got := hex.EncodeToString(h.Sum(nil))
	if want := out.Metadata[SHA256Meta]; want != "" && !strings.EqualFold(want, got) {
		return "", fmt.Errorf("publish: download %s: sha256 %s, but the object's metadata says %s", c.URL(key), got, want)
	}
	return got, nil
}

// readError is a failed download or listing of url: a stall or a cut
// connection says what to do (idle.Advice), anything else is wrapped.
func (c *S3) readError(op, url string, err error) error {
	where := "AWS S3"
	if c.endpoint != "" {
		where = c.endpoint
	}
	if advice := idle.Advice(err, where, c.idleSetting); advice != "" {
		return fmt.Errorf("publish: %s %s: %w; %s", op, url, err, advice)
	}
	return fmt.Errorf("publish: %s %s: %w", op, url, err)
}

// List lists the objects under a key prefix (relative to the bucket). Each
// page is one request under the idle limit: the SDK reads the page whole, so
// a page that has not arrived within it is ended.
func (c *S3) List(ctx context.Context, prefix string) ([]Object, error) {
	var out []Object
	in := &s3.ListObjectsV2Input{Bucket: aws.String(c.bucket), Prefix: aws.String(prefix)}
	if c.pageSize > 0 {
		in.MaxKeys = aws.Int32(c.pageSize)
	}
	p := s3.NewListObjectsV2Paginator(c.client, in)
	for p.HasMorePages() {
		page, err := c.listPage(ctx, p, prefix)
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			out = append(out, Object{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), LastModified: aws.ToTime(o.LastModified),
				ETag: aws.ToString(o.ETag)})
		}
	}
	return out, nil
}

func (c *S3) listPage(ctx context.Context, p *s3.ListObjectsV2Paginator, prefix string) (*s3.ListObjectsV2Output, error) {
	wctx, watch := idle.Start(ctx, c.idle)
	defer watch.Stop()
	page, err := p.NextPage(wctx)
	if err != nil {
		url := "s3://" + c.bucket + "/" + prefix
		if serr := watch.Err(0, -1); serr != nil {
			return nil, c.readError("list", url, serr)
		}
		return nil, fmt.Errorf("publish: list %s: %w", url, err)
	}
	return page, nil
}

// Delete deletes one key under the prefix (one request per key: DeleteObjects
// needs a checksum some S3-compatible services do not accept).
func (c *S3) Delete(ctx context.Context, key string) error {
	if !under(key, c.prefix) {
		return fmt.Errorf("publish: key %q is not under prefix %q", key, c.prefix)
	}
	if _, err := c.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key)}); err != nil {
		return fmt.Errorf("publish: delete %s: %w", c.URL(key), err)
	}
	return nil
}
