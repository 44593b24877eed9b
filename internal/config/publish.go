package config

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
)

// SMTP TLS modes.
const (
	TLSStartTLS = "starttls" // the default: upgrade with STARTTLS, refuse a server that cannot
	TLSImplicit = "implicit" // TLS from the first byte (port 465)
	TLSNone     = "none"     // plaintext, allowed only for a server on this host
)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (p Publish) validate() []error {
	errs := p.S3.validate()
	for _, e := range []struct{ key, name string }{{"s3.access_key_env", p.S3.AccessKeyEnv},
		{"s3.secret_key_env", p.S3.SecretKeyEnv}, {"s3.session_token_env", p.S3.SessionTokenEnv},
		{"smtp.password_env", p.SMTP.PasswordEnv}} {
		if e.name != "" && !envName.MatchString(e.name) {
			// Not echoed: a value here that is not a variable name may be the secret itself.
			errs = append(errs, fmt.Errorf("publish.%s: want the NAME of an environment variable (letters, digits, _), not its value", e.key))
		}
	}
	errs = append(errs, p.S3.validateCredentials()...)
	errs = append(errs, p.SMTP.validate()...)
	if p.LinkBaseURL != "" {
		if err := checkURL(p.LinkBaseURL); err != nil {
			errs = append(errs, fmt.Errorf("publish.link_base_url: %w", err))
		}
	}
	return errs
}

// validate checks the bucket and the endpoint of publish.s3.
func (s S3) validate() []error {
	var errs []error
	if s.Bucket != "" && (strings.ContainsAny(s.Bucket, "/\\ \t\r\n") || len(s.Bucket) > 255) {
		errs = append(errs, fmt.Errorf("publish.s3.bucket %q: a bucket name, without slashes or spaces", s.Bucket))
	}
	if s.Endpoint != "" {
		if err := checkURL(s.Endpoint); err != nil {
			errs = append(errs, fmt.Errorf("publish.s3.endpoint: %w", err))
		} else if s.PathStyle && virtualHostOnly(s.Endpoint) && !strings.Contains(s.Endpoint, "?") {
			// Shown as written: without a password (checkURL) or a query
			// there is nothing sanitize.URL would redact.
			errs = append(errs, fmt.Errorf("publish.s3.path_style: Alibaba Cloud OSS (%s) refuses path-style requests (SecondLevelDomainForbidden): set path_style: false", s.Endpoint))
		}
	}
	return errs
}

// validateCredentials checks how publish.s3's keys are given, its retention
// and its timeout.
func (s S3) validateCredentials() []error {
	var errs []error
	hasSecret := s.SecretKeyEnv != "" || s.SecretKeyFile != ""
	if (s.AccessKeyEnv != "") != hasSecret {
		errs = append(errs, fmt.Errorf("publish.s3: give access_key_env together with secret_key_env or secret_key_file (or neither, for the default AWS credential chain)"))
	}
	if s.SecretKeyEnv != "" && s.SecretKeyFile != "" {
		errs = append(errs, fmt.Errorf("publish.s3: give secret_key_env or secret_key_file, not both"))
	}
	if s.RetentionWeeks < 0 {
		errs = append(errs, fmt.Errorf("publish.s3.retention_weeks: want 0 (keep all) or more"))
	}
	if s.Timeout.Duration < 0 {
		errs = append(errs, fmt.Errorf("publish.s3.timeout: want a positive duration"))
	}
	return errs
}

// validate checks publish.smtp: a host name only, a TLS mode that never
// sends a password in plaintext off this host, and the addresses.
func (m SMTP) validate() []error {
	var errs []error
	hostOnly := !strings.ContainsAny(m.Host, "@/")
	if !hostOnly {
		// Not echoed: user:password@host or smtp://… may hold the password.
		errs = append(errs, fmt.Errorf("publish.smtp.host: want a host name only (smtp.example.com); the user goes in smtp.user, the password in smtp.password_env or password_file, the port in smtp.port"))
	}
	switch m.TLS {
	case "", TLSStartTLS, TLSImplicit:
	case TLSNone:
		if m.Host != "" && hostOnly && !IsLoopback(m.Host) {
			errs = append(errs, fmt.Errorf("publish.smtp.tls: none (plaintext) is allowed only for a server on this host (localhost, 127.0.0.1, ::1), not %q: use starttls or implicit", m.Host))
		}
	default:
		errs = append(errs, fmt.Errorf("publish.smtp.tls: %q is not starttls, implicit or none", m.TLS))
	}
	if m.Port < 0 || m.Port > 65535 {
		errs = append(errs, fmt.Errorf("publish.smtp.port: %d is not between 1 and 65535", m.Port))
	}
	if m.Host != "" && !plausibleEmail(m.From) {
		errs = append(errs, fmt.Errorf("publish.smtp.from %q: want the sender's email address", m.From))
	}
	if m.PasswordEnv != "" && m.PasswordFile != "" {
		errs = append(errs, fmt.Errorf("publish.smtp: give password_env or password_file, not both"))
	}
	if m.User != "" && m.PasswordEnv == "" && m.PasswordFile == "" {
		errs = append(errs, fmt.Errorf("publish.smtp.user is set: name the password with password_env or password_file"))
	}
	if m.User == "" && (m.PasswordEnv != "" || m.PasswordFile != "") {
		errs = append(errs, fmt.Errorf("publish.smtp: a password is configured but no user"))
	}
	if m.Timeout.Duration < 0 {
		errs = append(errs, fmt.Errorf("publish.smtp.timeout: want a positive duration"))
	}
	for _, a := range m.Admins {
		if !plausibleEmail(a) {
			errs = append(errs, fmt.Errorf("publish.smtp.admins: %q is not an email address", a))
		}
	}
	return errs
}

// virtualHostOnly reports whether endpoint is a service that answers only
// virtual-hosted requests (bucket in the host name): Alibaba Cloud OSS, whose
// endpoints are oss-<region>[-internal].aliyuncs.com. Tencent COS and
// Cloudflare R2 accept both styles, so they are not listed.
func virtualHostOnly(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	return strings.HasSuffix(h, ".aliyuncs.com") && strings.HasPrefix(h, "oss-")
}

// checkURL accepts an http(s) URL without a password in it; a token
// parameter in its query takes sanitize's rule, which source.CheckConfig
// applies.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("want an http:// or https:// URL")
	}
	if u.User != nil {
		return fmt.Errorf("must not contain credentials (a password or a token parameter): secrets come from environment variables or files")
	}
	return nil
}

// IsLoopback reports whether host names this machine: localhost or a
// loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Credentials returns the static S3 keys named by access_key_env and
// secret_key_env (or secret_key_file), read with getenv (files with read); all empty means
// "use the default AWS credential chain". Errors name the variable or file,
// never a value.
func (s S3) Credentials(ctx context.Context, getenv func(string) string, read ReadFunc) (accessKey, secretKey, sessionToken string, err error) {
	if s.AccessKeyEnv == "" {
		return "", "", "", nil
	}
	if accessKey = getenv(s.AccessKeyEnv); accessKey == "" {
		return "", "", "", fmt.Errorf("publish.s3.access_key_env: environment variable %s is not set", s.AccessKeyEnv)
	}
	switch {
	case s.SecretKeyEnv != "":
		if secretKey = getenv(s.SecretKeyEnv); secretKey == "" {
			return "", "", "", fmt.Errorf("publish.s3.secret_key_env: environment variable %s is not set", s.SecretKeyEnv)
		}
	case s.SecretKeyFile != "":
		if secretKey, err = readSecretFile(ctx, read, s.SecretKeyFile); err != nil {
			return "", "", "", fmt.Errorf("publish.s3.secret_key_file: %w", err)
		}
	}
	if s.SessionTokenEnv != "" {
		sessionToken = getenv(s.SessionTokenEnv)
	}
	return accessKey, secretKey, sessionToken, nil
}

// Password returns the SMTP password named by password_env or password_file;
// "" when no user is configured. Errors name the variable or file, never a value.
func (m SMTP) Password(ctx context.Context, getenv func(string) string, read ReadFunc) (string, error) {
	switch {
	case m.PasswordEnv != "":
		p := getenv(m.PasswordEnv)
		if p == "" {
			return "", fmt.Errorf("publish.smtp.password_env: environment variable %s is not set", m.PasswordEnv)
		}
		return p, nil
	case m.PasswordFile != "":
		p, err := readSecretFile(ctx, read, m.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("publish.smtp.password_file: %w", err)
		}
		return p, nil
	}
	return "", nil
}

// readSecretFile reads a one-line secret (a trailing newline is dropped)
// from a regular file of at most MaxSecretBytes; a FIFO, a device or a
// folder is refused from its stat, before any open (readFile).
func readSecretFile(ctx context.Context, read ReadFunc, path string) (string, error) {
	if read == nil {
		return "", fmt.Errorf("%s: no ReadFunc to read it with", path)
	}
	b, err := read(ctx, path, MaxSecretBytes)
	if err != nil {
		// The errors name the path and the reason, never the contents.
		return "", withFix(err, "a secret")
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", fmt.Errorf("%s is empty: write the secret into it", path)
	}
	return s, nil
}
