package config

// Issue #26, hardening round three: a secret file (url_file, secret_file,
// secret_key_file, password_file) or the config itself on /dev/zero was read
// until memory ran out (19.5 GB), and on a FIFO with no writer blocked in
// open for ever, holding the run lock and deaf to SIGTERM. They are read
// only from regular files (a link to one is fine), refused from their stat,
// and capped: a secret at 64 KiB, the config at 4 MiB of bytes read.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/fifotest"
)

// notRegular is each kind of path that is not a small regular file, with
// what the error must say of it.
func notRegular(t *testing.T, dir string, big int) []struct{ name, path, want string } {
	t.Helper()
	folder := filepath.Join(dir, "folder")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge")
	if err := os.WriteFile(huge, []byte(strings.Repeat("x", big)), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, path, want string }{
		{"fifo", fifotest.Make(t, filepath.Join(dir, "pipe")), ": a named pipe (FIFO), not a regular file: finops reads"},
		{"folder", folder, ": a folder, not a regular file: name the file itself, not its folder"},
		{"oversize", huge, " is " + capped.Bytes(int64(big)) + ", over the "},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, struct{ name, path, want string }{"/dev/zero", "/dev/zero", ": a character device, not a regular file: finops reads"})
	}
	return cases
}

// within runs fn and fails the test when it has not returned after d,
// releasing a reader blocked in opening path (a FIFO) so that a regression
// fails instead of hanging the suite.
func within(t *testing.T, d time.Duration, path string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	if !fifotest.Within(path, d, done) {
		t.Fatalf("%s: took longer than %v: it opened or read a FIFO or device", path, d)
	}
}

// TestSecretFileNotRegular: each *_file key naming a FIFO with no writer,
// /dev/zero, a folder or a file over 64 KiB is refused at once, the error
// naming the key, the path, its type (or size and limit) and what to do. A
// link to a regular file is read.
func TestSecretFileNotRegular(t *testing.T) {
	getenv := func(k string) string {
		if k == "AK" {
			return "access"
		}
		return ""
	}
	keys := []struct {
		key  string
		read func(path string) (string, error)
	}{
		{"url_file", func(p string) (string, error) {
			return Channel{Type: "slack", URLFile: p}.URL(context.Background(), getenv, capped.ReadRegular)
		}},
		{"secret_file", func(p string) (string, error) {
			return Channel{Type: "feishu", SecretFile: p}.Secret(context.Background(), getenv, capped.ReadRegular)
		}},
		{"publish.s3.secret_key_file", func(p string) (string, error) {
			_, sk, _, err := S3{AccessKeyEnv: "AK", SecretKeyFile: p}.Credentials(context.Background(), getenv, capped.ReadRegular)
			return sk, err
		}},
		{"publish.smtp.password_file", func(p string) (string, error) {
			return SMTP{PasswordFile: p}.Password(context.Background(), getenv, capped.ReadRegular)
		}},
	}
	for _, k := range keys {
		t.Run(k.key, func(t *testing.T) {
			dir := t.TempDir()
			for _, tc := range notRegular(t, dir, MaxSecretBytes+1) {
				within(t, 5*time.Second, tc.path, func() {
					v, err := k.read(tc.path)
					if err == nil {
						t.Errorf("%s: read %d bytes, want it refused", tc.name, len(v))
						return
					}
					if msg := err.Error(); !strings.HasPrefix(msg, k.key+": ") || !strings.Contains(msg, tc.path+tc.want) {
						t.Errorf("%s: err = %q, want %q then %q", tc.name, msg, k.key+": ", tc.path+tc.want)
					}
				})
			}
			// A link to a regular file, and a file of exactly 64 KiB, are read.
			real := filepath.Join(dir, "token")
			if err := os.WriteFile(real, []byte(strings.Repeat("t", MaxSecretBytes-1)+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, "link")
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			if v, err := k.read(link); err != nil || len(v) != MaxSecretBytes-1 {
				t.Errorf("a link to a 64 KiB file: %d bytes, %v", len(v), err)
			}
		})
	}
}

// TestConfigFileNotRegular: Load of a config that is a FIFO with no writer,
// /dev/zero, a folder or a file over 4 MiB fails at once naming the path and
// what to do; a link to a config loads. A missing optional config still
// means the defaults.
func TestConfigFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range notRegular(t, dir, MaxFileBytes+1) {
		within(t, 5*time.Second, tc.path, func() {
			_, err := Load(tc.path, true, capped.ReadRegular)
			if err == nil || !strings.HasPrefix(err.Error(), "config: ") || !strings.Contains(err.Error(), tc.path+tc.want) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.path+tc.want)
			}
			if tc.name == "fifo" && (err == nil || !strings.Contains(err.Error(), "--config")) {
				t.Errorf("%s: err = %v, want it to say the config is named with --config", tc.name, err)
			}
		})
	}
	real := filepath.Join(dir, "real.yaml")
	if err := os.WriteFile(real, []byte("currency: EUR\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "finops.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(link, true, capped.ReadRegular); err != nil || c.Currency != "EUR" {
		t.Errorf("a link to a config: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml"), false, capped.ReadRegular); err != nil {
		t.Errorf("a missing optional config: %v", err)
	}
}

// TestSecretFileReadWithContext: a secret file is read under the caller's
// context: once the run is told to stop, no secret is read.
func TestSecretFileReadWithContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(p, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if v, err := (SMTP{PasswordFile: p}).Password(ctx, func(string) string { return "" }, capped.ReadRegular); err != nil || v != "s3cret" {
		t.Fatalf("live context: %q, %v", v, err)
	}
	cancel()
	if _, err := (SMTP{PasswordFile: p}).Password(ctx, func(string) string { return "" }, capped.ReadRegular); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
}
