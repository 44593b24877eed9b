package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/capped"
)

func TestPublishValidation(t *testing.T) {
	for _, tc := range []struct {
		yaml, want string
	}{
		{"publish: {smtp: {host: smtp.example.com, tls: none, from: f@example.com}}", "none (plaintext) is allowed only"},
		{"publish: {smtp: {host: smtp.example.com, tls: ssl, from: f@example.com}}", `tls: "ssl"`},
		{"publish: {smtp: {host: smtp.example.com}}", "publish.smtp.from"},
		{"publish: {smtp: {host: smtp.example.com, from: f@example.com, user: u}}", "name the password"},
		{"publish: {smtp: {host: h, from: f@example.com, user: u, password_env: 'hunter2 is my password'}}", "NAME of an environment variable"},
		{"publish: {smtp: {host: h, from: f@example.com, admins: [not-an-address]}}", "publish.smtp.admins"},
		{"publish: {s3: {bucket: b, access_key_env: K}}", "together with secret_key_env"},
		{"publish: {s3: {bucket: b, endpoint: 'https://key:secret@s3.example.com'}}", "must not contain credentials"},
		{"publish: {s3: {bucket: b, endpoint: 's3.example.com'}}", "http:// or https://"},
		{"publish: {s3: {bucket: b, retention_weeks: -1}}", "retention_weeks"},
		// OSS answers a path-style request with 403 SecondLevelDomainForbidden (its documentation).
		{"publish: {s3: {bucket: b, endpoint: 'https://oss-cn-hangzhou.aliyuncs.com', path_style: true}}", "publish.s3.path_style: Alibaba Cloud OSS"},
		{"publish: {s3: {bucket: b, endpoint: 'https://OSS-cn-beijing-internal.aliyuncs.com/', path_style: true}}", "set path_style: false"},
		{"publish: {s3: {bucket: 'a/b'}}", "publish.s3.bucket"},
		{"publish: {link_base_url: 'ftp://x'}", "link_base_url"},
	} {
		_, err := Parse("t.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.yaml, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error quotes what may be a secret: %v", err)
		}
	}
	ok := `publish:
  s3: {bucket: b, prefix: weekly, endpoint: 'http://127.0.0.1:7070', path_style: true, access_key_env: K, secret_key_env: S, retention_weeks: 4, timeout: 2m}
  smtp: {host: 127.0.0.1, port: 1025, tls: none, from: f@example.com, user: u, password_env: P, timeout: 10s, admins: [a@example.com]}
  link_base_url: https://reports.example.com/finops
  metrics_textfile: /tmp/finops.prom
`
	// The documented settings of the S3-compatible services (finops.example.yaml) are accepted.
	for _, s3 := range []string{
		"{bucket: b, endpoint: 'https://oss-cn-hangzhou.aliyuncs.com', region: cn-hangzhou, path_style: false}",
		"{bucket: b-1250000000, endpoint: 'https://cos.ap-guangzhou.myqcloud.com', region: ap-guangzhou, path_style: false}",
		"{bucket: b, endpoint: 'https://0123456789abcdef.r2.cloudflarestorage.com', region: auto, path_style: true}",
	} {
		if _, err := Parse("t.yaml", []byte("publish: {s3: "+s3+"}")); err != nil {
			t.Errorf("%s: %v", s3, err)
		}
	}
	c, err := Parse("t.yaml", []byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if c.Publish.S3.RetentionWeeks != 4 || c.Publish.S3.Timeout.Minutes() != 2 || c.Publish.SMTP.Timeout.Seconds() != 10 {
		t.Errorf("parsed %+v", c.Publish)
	}
}

// TestConfigURLCredentialsNotEchoed: a password written into an address of
// the config is refused (SMTP host, S3 endpoint) or redacted (a Prometheus
// URL, which may carry one) in the error; never quoted.
func TestConfigURLCredentialsNotEchoed(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"publish: {smtp: {host: 'mailer:hunter2@smtp.example.com', from: f@example.com}}", "publish.smtp.host: want a host name only"},
		{"publish: {smtp: {host: 'smtp://mailer:hunter2@smtp.example.com', tls: none, from: f@example.com}}", "publish.smtp.host: want a host name only"},
		{"publish: {s3: {bucket: b, endpoint: 'https://AKIA:hunter2@minio:9000'}}", "publish.s3.endpoint: must not contain credentials"},
	} {
		_, err := Parse("t.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.yaml, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error quotes the password: %v", err)
		}
	}
}

func TestPublishSecrets(t *testing.T) {
	env := map[string]string{"K": "AKIAKEY", "S": "the-secret", "P": "the-password"}
	getenv := func(k string) string { return env[k] }
	s3 := S3{AccessKeyEnv: "K", SecretKeyEnv: "S"}
	if ak, sk, _, err := s3.Credentials(context.Background(), getenv, capped.ReadRegular); err != nil || ak != "AKIAKEY" || sk != "the-secret" {
		t.Errorf("Credentials = %q, %q, %v", ak, sk, err)
	}
	if ak, sk, tok, err := (S3{}).Credentials(context.Background(), getenv, capped.ReadRegular); ak+sk+tok != "" || err != nil {
		t.Error("no env names should mean the default AWS chain")
	}
	file := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(file, []byte("from-a-file\n"), 0o600)
	if _, sk, _, err := (S3{AccessKeyEnv: "K", SecretKeyFile: file}).Credentials(context.Background(), getenv, capped.ReadRegular); err != nil || sk != "from-a-file" {
		t.Errorf("secret_key_file: %q, %v", sk, err)
	}
	if _, _, _, err := (S3{AccessKeyEnv: "K", SecretKeyEnv: "MISSING"}).Credentials(context.Background(), getenv, capped.ReadRegular); err == nil ||
		!strings.Contains(err.Error(), "MISSING is not set") {
		t.Errorf("missing variable: %v", err)
	}
	if p, err := (SMTP{PasswordEnv: "P"}).Password(context.Background(), getenv, capped.ReadRegular); err != nil || p != "the-password" {
		t.Errorf("Password = %q, %v", p, err)
	}
	if p, err := (SMTP{PasswordFile: file}).Password(context.Background(), getenv, capped.ReadRegular); err != nil || p != "from-a-file" {
		t.Errorf("password_file = %q, %v", p, err)
	}
	os.WriteFile(file, nil, 0o600)
	if _, err := (SMTP{PasswordFile: file}).Password(context.Background(), getenv, capped.ReadRegular); err == nil {
		t.Error("an empty password file is accepted")
	}
}
