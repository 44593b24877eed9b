package fetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/idle"
	"github.com/finops-oss/finops/publish"
	"github.com/finops-oss/finops/sanitize"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
)

// GCSConfig is how to reach one bucket.
type GCSConfig struct {
	Bucket string
	// Endpoint replaces https://storage.googleapis.com (fake-gcs-server,
	// a private gateway): a URL or host:port ($STORAGE_EMULATOR_HOST's
	// form). An endpoint on this machine is an emulator and is reached
	// without credentials unless CredentialsFile is set.
	Endpoint string
	// CredentialsFile is a service-account key file; "" is Application
	// Default Credentials.
	CredentialsFile string
	// IdleTimeout ends a request or a read that waits this long without a
	// byte (sources.idle_timeout; default idle.DefaultLimit).
	IdleTimeout time.Duration
}

// maxCredentialsBytes bounds a service-account key file: they are about
// 2 KB.
const maxCredentialsBytes = 64 << 10

// GCS fetches from one Google Cloud Storage bucket.
type GCS struct {
	client   *storage.Client
	bucket   string
	endpoint string // for messages
	secrets  []string
	idle     time.Duration
}

// NewGCS makes a client of one bucket; it reads the credentials file but
// talks to nothing yet. Close releases it.
func NewGCS(ctx context.Context, c GCSConfig) (*GCS, error) {
	g := &GCS{bucket: c.Bucket, endpoint: "https://storage.googleapis.com", idle: c.IdleTimeout}
	opts := []option.ClientOption{storage.WithJSONReads()}
	if c.Endpoint != "" {
		u, err := emulatorURL(c.Endpoint)
		if err != nil {
			return nil, fmt.Errorf("fetch: %s: the endpoint (sources.gcs.endpoint or STORAGE_EMULATOR_HOST) %w", g.url(""), err)
		}
		g.endpoint = sanitize.URL(u.Scheme + "://" + u.Host)
		opts = append(opts, option.WithEndpoint(u.String()))
		if c.CredentialsFile == "" && loopback(u.Hostname()) {
			opts = append(opts, option.WithoutAuthentication())
		}
	}
	if c.CredentialsFile != "" {
		b, err := capped.ReadRegular(ctx, c.CredentialsFile, maxCredentialsBytes)
		if err != nil {
			return nil, fmt.Errorf("fetch: %s: sources.gcs.credentials_file: %w", g.url(""), err)
		}
		var key struct {
			Type       string `json:"type"`
			PrivateKey string `json:"private_key"`
			KeyID      string `json:"private_key_id"`
		}
		if json.Unmarshal(b, &key) != nil || key.Type != "service_account" {
			return nil, fmt.Errorf("fetch: %s: sources.gcs.credentials_file %s is not a service-account key file (JSON with \"type\": \"service_account\"): "+
				"create one with gcloud iam service-accounts keys create, or leave the key out for Application Default Credentials", g.url(""), c.CredentialsFile)
		}
		g.secrets = append(g.secrets, key.PrivateKey, key.KeyID)
		opts = append(opts, option.WithAuthCredentialsJSON(option.ServiceAccount, b))
	}
	client, err := storage.NewClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("fetch: %s: %s; check sources.gcs.credentials_file, or Application Default Credentials (gcloud auth application-default login, GOOGLE_APPLICATION_CREDENTIALS)",
			g.url(""), sanitize.Redact(err.Error(), g.secrets...))
	}
	g.client = client
	return g, nil
}

// emulatorURL turns an endpoint into the JSON API's base URL:
// host:port → http://host:port/storage/v1/; a URL without a path gets
// /storage/v1/.
func emulatorURL(s string) (*url.URL, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" {
		return nil, fmt.Errorf("is not an http(s) URL or host:port without credentials")
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/storage/v1/"
	}
	return u, nil
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Close releases the client.
func (g *GCS) Close() error {
	if g == nil || g.client == nil {
		return nil
	}
	return g.client.Close()
}

// Fetch downloads the objects under prefix that accept takes into dir
// (see download); each one's URL is gs://bucket/key.
func (g *GCS) Fetch(ctx context.Context, prefix string, accept func(string) bool, dir string) ([]publish.Fetched, []error, error) {
	return download(ctx, g, prefix, accept, dir)
}

func (g *GCS) url(key string) string { return "gs://" + g.bucket + "/" + key }

// list lists the objects under prefix. The iterator fetches a page in some
// of its Next calls, with the context it was made with: one Watch, armed
// around each Next, ends a page that has not come within the idle limit.
func (g *GCS) list(ctx context.Context, prefix string) ([]publish.Listed, error) {
	wctx, watch := idle.Start(ctx, g.idle)
	defer watch.Stop()
	it := g.client.Bucket(g.bucket).Objects(wctx, &storage.Query{Prefix: prefix})
	var out []publish.Listed
	for {
		watch.Arm()
		a, err := it.Next()
		watch.Disarm()
		if errors.Is(err, iterator.Done) {
			return out, nil
		}
		if serr := watch.Err(0, -1); err != nil && serr != nil {
			return nil, readError(g, "list", prefix, serr)
		}
		if err != nil {
			return nil, g.explain("list", prefix, err)
		}
		out = append(out, publish.Listed{Key: a.Name, LastModified: a.Updated, MD5: a.MD5, Size: a.Size, ETag: a.Etag})
	}
}

func (g *GCS) open(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	// The reader checks the object's CRC32C as it ends, and reopens a
	// connection cut mid-body from where it stopped.
	r, err := g.client.Bucket(g.bucket).Object(key).NewReader(ctx)
	if err != nil {
		return nil, 0, g.explain("download", key, err)
	}
	size := r.Attrs.Size
	if r.Attrs.Decompressed {
		// Attrs.Size is the stored, compressed length, not what is read.
		size = -1
	}
	return r, size, nil
}

func (g *GCS) service() string          { return g.endpoint }
func (g *GCS) redact(msg string) string { return sanitize.Redact(msg, g.secrets...) }
func (g *GCS) idleLimit() time.Duration { return g.idle }

// explain turns a GCS error into one line naming the object URL and what
// to check; it still unwraps to the library's error.
func (g *GCS) explain(op, key string, err error) error {
	var ours *remoteError
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ours) {
		return err
	}
	var api *googleapi.Error
	isAPI := errors.As(err, &api)
	var netErr *net.OpError
	var hint string
	msg := err.Error()
	switch {
	case errors.Is(err, storage.ErrBucketNotExist) || (isAPI && api.Code == http.StatusNotFound && op == "list"):
		hint = fmt.Sprintf("bucket %q does not exist at %s: check the bucket in the gs:// URL (and sources.gcs.endpoint)", g.bucket, g.endpoint)
	case isAPI && api.Code == http.StatusUnauthorized:
		hint = "the service refused the credentials: check sources.gcs.credentials_file or Application Default Credentials"
	case isAPI && api.Code == http.StatusForbidden:
		hint = fmt.Sprintf("access denied to bucket %q: the credentials need storage.objects.list and storage.objects.get on it (roles/storage.objectViewer)", g.bucket)
	case strings.Contains(msg, "could not find default credentials") || strings.Contains(msg, "credentials: ") ||
		strings.Contains(msg, "cannot fetch token"):
		hint = "no usable Google credentials: set sources.gcs.credentials_file, or set up Application Default Credentials " +
			"(gcloud auth application-default login, GOOGLE_APPLICATION_CREDENTIALS, a service account attached to the machine)"
	case errors.As(err, &netErr):
		hint = fmt.Sprintf("cannot reach the storage service at %s: check sources.gcs.endpoint (or STORAGE_EMULATOR_HOST) and the network", g.endpoint)
	}
	var ue *url.Error
	switch {
	case isAPI:
		msg = fmt.Sprintf("HTTP %d: %s", api.Code, api.Message)
	case errors.As(err, &ue):
		// The request's URL is ours, long and says nothing new.
		msg = ue.Err.Error()
	}
	// One line: googleapi's and the token service's messages span lines.
	msg = strings.Join(strings.Fields(msg), " ")
	out := fmt.Sprintf("fetch: %s %s: %s", op, g.url(key), sanitize.Redact(msg, g.secrets...))
	if hint != "" {
		out += "; " + hint
	}
	return &remoteError{msg: out, err: err}
}
