package deliver

import (
	"context"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/objkey"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/sanitize"
)

// Transports are a run's S3 and SMTP settings, with the secrets read from
// the environment or files.
type Transports struct {
	S3      *publish.S3Config   // nil: no upload (not configured, or --no-upload)
	SMTP    *publish.SMTPConfig // nil: no email
	From    string
	Secrets []string // every secret read, for Redact
	// Missing are the secrets a dry run could not read (a variable not set,
	// a file not there), each naming its config key: a dry run says what it
	// would do without them, and what a real run would lack.
	Missing []string
}

// NewTransports turns the config's publish block into transport settings.
// getenv reads the secrets' variables. With opts.DryRun a secret that
// cannot be read is listed in Missing instead of failing: nothing is sent.
func NewTransports(ctx context.Context, p config.Publish, opts Options, getenv func(string) string) (Transports, error) {
	var t Transports
	if opts.DryRun {
		getenv = t.standIn(p, getenv)
	}
	// A secret error is fatal, except in a dry run, which notes it.
	secretErr := func(err error) error {
		if !opts.DryRun {
			return err
		}
		t.Missing = append(t.Missing, err.Error())
		return nil
	}
	if p.S3.Bucket != "" && !opts.NoUpload {
		sc, secrets, err := S3Settings(ctx, p.S3, getenv)
		if err != nil {
			if err := secretErr(err); err != nil {
				return Transports{}, err
			}
			sc = publish.S3Config{Bucket: p.S3.Bucket, Prefix: p.S3.Prefix, Region: p.S3.Region, Endpoint: p.S3.Endpoint,
				PathStyle: p.S3.PathStyle}
		}
		t.Secrets = append(t.Secrets, realSecrets(secrets...)...)
		sc.AccessKeyID, sc.SecretAccessKey, sc.SessionToken = realSecret(sc.AccessKeyID), realSecret(sc.SecretAccessKey), realSecret(sc.SessionToken)
		t.S3 = &sc
	}
	if p.SMTP.Host != "" && !opts.NoEmail {
		pass, err := p.SMTP.Password(ctx, getenv, capped.ReadRegular)
		if err != nil {
			if err := secretErr(err); err != nil {
				return Transports{}, err
			}
		}
		t.Secrets = append(t.Secrets, realSecrets(pass)...)
		sc, err := SMTPSettings(ctx, p.SMTP, realSecret(pass))
		if err != nil {
			return Transports{}, err
		}
		t.SMTP, t.From = sc, p.SMTP.From
	}
	return t, nil
}

// notSet stands in, in a dry run, for a secret variable that is not set. It
// is never sent anywhere: a dry run connects to nothing.
const notSet = "\x00finops-dry-run-not-set"

// standIn is getenv for a dry run: each configured secret variable that is
// not set is listed in Missing and reads as notSet, so that every missing
// one is named, not only the first, and the settings are still made.
func (t *Transports) standIn(p config.Publish, getenv func(string) string) func(string) string {
	keys := map[string]string{}
	for key, name := range map[string]string{"publish.s3.access_key_env": p.S3.AccessKeyEnv,
		"publish.s3.secret_key_env": p.S3.SecretKeyEnv, "publish.smtp.password_env": p.SMTP.PasswordEnv} {
		if name != "" {
			keys[name] = key
		}
	}
	return func(name string) string {
		v := getenv(name)
		if key, ok := keys[name]; ok && v == "" {
			t.Missing = append(t.Missing, fmt.Sprintf("%s: environment variable %s is not set", key, name))
			return notSet
		}
		return v
	}
}

// realSecrets drops the dry run's stand-ins and empty values.
func realSecrets(secrets ...string) []string {
	var out []string
	for _, s := range secrets {
		if realSecret(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// realSecret is a secret, or "" for the dry run's stand-in.
func realSecret(secret string) string {
	if secret == notSet {
		return ""
	}
	return secret
}

// S3Settings is the client settings of a publish.s3 block, its keys read
// from the environment or files; secrets lists them, for redaction.
func S3Settings(ctx context.Context, s config.S3, getenv func(string) string) (_ publish.S3Config, secrets []string, err error) {
	ak, sk, tok, err := s.Credentials(ctx, getenv, capped.ReadRegular)
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
	if host, err := os.Hostname(); err == nil && objkey.SafeName(host) == host {
		sc.HelloName = host
	}
	return sc, nil
}

// Redact removes secrets (4 characters or more) from s, and the passwords
// and credential parameters of every URL in it (sanitize.URLs): whatever a
// library or a config puts in a message, it reaches no output, report or
// ledger row.
func Redact(s string, secrets ...string) string { return sanitize.Redact(s, secrets...) }

// Redact removes the transports' secrets from s.
func (t Transports) Redact(s string) string { return Redact(s, t.Secrets...) }
