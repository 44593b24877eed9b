package deliver

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/config"
)

// TestSMTPSettingsCAFileNotRegular: publish.smtp.ca_file naming a FIFO
// nobody writes, /dev/zero or a folder is refused at once naming the key,
// never read until the run hangs or fills its memory (issue #26).
func TestSMTPSettingsCAFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ca.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, p := range []string{fifo, "/dev/zero", dir} {
		done := make(chan error, 1)
		go func() {
			_, err := SMTPSettings(context.Background(), config.SMTP{Host: "smtp.example.com", CAFile: p}, "")
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "publish.smtp.ca_file") || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: err = %v, want it refused naming the key", p, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still reading after 5 s", p)
		}
	}
}

// TestNewTransportsDryRunMissing: a dry run turns each secret it cannot
// read into a Missing line naming the key and the variable or file, keeps
// the settings (bucket, host) to say what it would do, and holds no
// stand-in as a credential or a secret to redact; a real run fails on the
// first one.
func TestNewTransportsDryRunMissing(t *testing.T) {
	pub := config.Publish{
		S3: config.S3{Bucket: "reports", Prefix: "weekly", AccessKeyEnv: "K", SecretKeyEnv: "S"},
		SMTP: config.SMTP{Host: "127.0.0.1", TLS: "none", From: "finops@example.com", User: "finops",
			PasswordFile: filepath.Join(t.TempDir(), "absent")},
	}
	for _, tc := range []struct {
		name        string
		dryRun      bool
		env         map[string]string
		wantMissing []string // substrings, one per Missing line, in order
		wantErr     string
	}{
		{"DryRunNothingSet", true, nil, []string{"publish.s3.access_key_env: environment variable K is not set",
			"publish.s3.secret_key_env: environment variable S is not set", "publish.smtp.password_file: "}, ""},
		{"DryRunKeySet", true, map[string]string{"K": "AKIAKNOWNKEY"}, []string{
			"publish.s3.secret_key_env: environment variable S is not set", "publish.smtp.password_file: "}, ""},
		{"RealRun", false, nil, nil, "publish.s3.access_key_env: environment variable K is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := NewTransports(context.Background(), pub, Options{DryRun: tc.dryRun}, func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Missing) != len(tc.wantMissing) {
				t.Fatalf("Missing = %q, want %d lines", tr.Missing, len(tc.wantMissing))
			}
			for i, want := range tc.wantMissing {
				if !strings.Contains(tr.Missing[i], want) {
					t.Errorf("Missing[%d] = %q, want it to contain %q", i, tr.Missing[i], want)
				}
			}
			if tr.S3 == nil || tr.S3.Bucket != "reports" || tr.SMTP == nil || tr.SMTP.Host != "127.0.0.1" {
				t.Fatalf("settings lost: S3 %+v, SMTP %+v", tr.S3, tr.SMTP)
			}
			if tr.S3.AccessKeyID != tc.env["K"] || tr.S3.SecretAccessKey != "" || tr.SMTP.Password != "" {
				t.Errorf("credentials: access %q, secret %q, password %q", tr.S3.AccessKeyID, tr.S3.SecretAccessKey, tr.SMTP.Password)
			}
			for _, s := range tr.Secrets {
				if s != tc.env["K"] {
					t.Errorf("secret to redact %q, want only the key that was set", s)
				}
			}
		})
	}
}
