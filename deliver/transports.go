package deliver

import (
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/publish"
	"github.com/finops-oss/finops/sanitize"
)

// Transports are a run's S3 and SMTP settings, with the secrets read from
// the environment or files.
type Transports struct {
	S3      *publish.S3Config   // nil: no upload (not configured, or --no-upload)
	SMTP    *publish.SMTPConfig // nil: no email
	From    string
	Secrets []string // every secret read, for Redact
}

// NewTransports turns the config's publish block into transport settings.
// getenv reads the secrets' variables.
func NewTransports(ctx context.Context, p config.Publish, opts Options, getenv func(string) string) (Transports, error) {
	var t Transports
	if p.S3.Bucket != "" && !opts.NoUpload {
		sc, secrets, err := S3Settings(ctx, p.S3, getenv)
		if err != nil {
			return Transports{}, err
		}
		t.Secrets = append(t.Secrets, secrets...)
		t.S3 = &sc
	}
	if p.SMTP.Host != "" && !opts.NoEmail {
		pass, err := p.SMTP.Password(ctx, getenv)
		if err != nil {
			return Transports{}, err
		}
		t.Secrets = append(t.Secrets, pass)
		sc, err := SMTPSettings(ctx, p.SMTP, pass)
		if err != nil {
			return Transports{}, err
		}
		t.SMTP, t.From = sc, p.SMTP.From
	}
	return t, nil
}

// S3Settings is the client settings of a publish.s3 block, its keys read
// from the environment or files; secrets lists them, for redaction.
func S3Settings(ctx context.Context, s config.S3, getenv func(string) string) (_ publish.S3Config, secrets []string, err error) {
	ak, sk, tok, err := s.Credentials(ctx, getenv)
	if err != nil {
		return publish.S3Config{}, nil, err
	}
	return publish.S3Config{Bucket: s.Bucket, Prefix: s.Prefix, Region: s.Region, Endpoint: s.Endpoint,
		PathStyle: s.PathStyle, AccessKeyID: ak, SecretAccessKey: sk, SessionToken: tok}, []string{ak, sk, tok}, nil
}

// maxCAFileBytes bounds publish.smtp.ca_file: a system's whole CA bundle is
// a few hundred KB.
const maxCAFileBytes = 4 << 20

// SMTPSettings is the transport settings of a publish.smtp block with its
// password (read by config.SMTP.Password) and its CA file, if any.
func SMTPSettings(ctx context.Context, m config.SMTP, password string) (*publish.SMTPConfig, error) {
	sc := &publish.SMTPConfig{Host: m.Host, Port: m.Port, TLS: m.TLS, Username: m.User, Password: password,
		Timeout: m.Timeout.Duration}
	if m.CAFile != "" {
		// A regular file only, and bounded: a FIFO or /dev/zero named here
		// would hang the run, or fill its memory, holding the run lock.
		pem, err := capped.ReadRegular(ctx, m.CAFile, maxCAFileBytes)
		if err != nil {
			return nil, fmt.Errorf("publish.smtp.ca_file: %w", err)
		}
		sc.RootCAs = x509.NewCertPool()
		if !sc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("publish.smtp.ca_file %s: no PEM certificate in it", m.CAFile)
		}
	}
	if host, err := os.Hostname(); err == nil && publish.SafeName(host) == host {
		sc.HelloName = host
	}
	return sc, nil
}

// Redact removes secrets (4 characters or more) from s, and the passwords
// and credential parameters of every URL in it (sanitize.URLs): whatever a
// library or a config puts in a message, it reaches no output, report or
// ledger row.
func Redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return sanitize.URLs(s)
}

// Redact removes the transports' secrets from s.
func (t Transports) Redact(s string) string { return Redact(s, t.Secrets...) }
