//go:build !finops_nocloud

package objstore

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/sanitize"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// maxCredentialsBytes bounds a service-account key file: they are about
// 2 KB.
const maxCredentialsBytes = 64 << 10

// gcsScope is the OAuth scope of every request: objects are listed, read
// and (Put) written.
const gcsScope = "https://www.googleapis.com/auth/devstorage.read_write"

// GCS is one Google Cloud Storage bucket, reached through the JSON API
// with a plain HTTP client (gcs_http.go): no gRPC, no client library.
type GCS struct {
	hc       *http.Client
	api      *url.URL // the JSON API's base, …/storage/v1/
	bucket   string
	endpoint string // for messages
	rep      reporter
}

// NewGCS makes a client of one bucket; it reads the credentials file but
// talks to nothing yet. Close releases it.
func NewGCS(ctx context.Context, c GCSConfig) (*GCS, error) {
	pkg := pkgOr(c.Pkg)
	g := &GCS{bucket: c.Bucket, endpoint: "https://storage.googleapis.com"}
	g.rep = reporter{pkg: pkg, setting: c.IdleSetting, idle: c.IdleTimeout, again: "run the ingest again (it resumes where the database stands)"}
	api, _ := url.Parse("https://storage.googleapis.com/storage/v1/")
	anonymous := false
	if c.Endpoint == "" {
		c.Endpoint = os.Getenv("STORAGE_EMULATOR_HOST")
	}
	if c.Endpoint != "" {
		u, err := emulatorURL(c.Endpoint)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: the endpoint (sources.gcs.endpoint or STORAGE_EMULATOR_HOST) %w", pkg, g.URL(""), err)
		}
		g.endpoint = sanitize.URL(u.Scheme + "://" + u.Host)
		api = u
		anonymous = c.CredentialsFile == "" && loopback(u.Hostname())
	}
	if !strings.HasSuffix(api.Path, "/") {
		api.Path += "/"
	}
	g.api, g.rep.service = api, g.endpoint
	base := http.DefaultTransport.(*http.Transport).Clone()
	g.hc = &http.Client{Transport: base}
	if anonymous {
		return g, nil
	}
	var creds *google.Credentials
	if c.CredentialsFile != "" {
		b, err := capped.ReadRegular(ctx, c.CredentialsFile, maxCredentialsBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: sources.gcs.credentials_file: %w", pkg, g.URL(""), err)
		}
		var key struct {
			Type       string `json:"type"`
			PrivateKey string `json:"private_key"`
			KeyID      string `json:"private_key_id"`
		}
		if json.Unmarshal(b, &key) != nil || key.Type != "service_account" {
			return nil, fmt.Errorf("%s: %s: sources.gcs.credentials_file %s is not a service-account key file (JSON with \"type\": \"service_account\"): "+
				"create one with gcloud iam service-accounts keys create, or leave the key out for Application Default Credentials", pkg, g.URL(""), c.CredentialsFile)
		}
		g.rep.secrets = append(g.rep.secrets, key.PrivateKey, key.KeyID)
		creds, err = google.CredentialsFromJSONWithType(ctx, b, google.ServiceAccount, gcsScope)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: sources.gcs.credentials_file %s: %s", pkg, g.URL(""), c.CredentialsFile, g.rep.redact(err.Error()))
		}
	} else {
		var err error
		creds, err = google.FindDefaultCredentials(ctx, gcsScope)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %s; check sources.gcs.credentials_file, or Application Default Credentials (gcloud auth application-default login, GOOGLE_APPLICATION_CREDENTIALS)",
				pkg, g.URL(""), g.rep.redact(strings.Join(strings.Fields(err.Error()), " ")))
		}
	}
	// The token source outlives NewGCS's ctx: tokens are fetched with the
	// request's own context.
	g.hc.Transport = &oauth2.Transport{Source: oauth2.ReuseTokenSource(nil, creds.TokenSource), Base: base}
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

// Close releases the client's idle connections.
func (g *GCS) Close() error {
	if g == nil || g.hc == nil {
		return nil
	}
	g.hc.CloseIdleConnections()
	return nil
}

// Fetch downloads the objects under prefix that accept takes into dir
// (see the package's Fetch); each one's URL is gs://bucket/key.
func (g *GCS) Fetch(ctx context.Context, prefix string, accept func(string) bool, dir string) ([]Fetched, []error, error) {
	return Fetch(ctx, g, prefix, accept, dir)
}

// URL is gs://bucket/key.
func (g *GCS) URL(key string) string { return "gs://" + g.bucket + "/" + key }

func (g *GCS) reporter() *reporter      { return &g.rep }
func (g *GCS) fetchErr(err error) error { return err }
