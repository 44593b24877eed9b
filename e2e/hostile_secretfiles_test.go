package e2e

// Issue #26, hardening round three, item 1: the config (--config) or a
// secret file (url_file, secret_file, secret_key_file, password_file) on
// /dev/zero was read until memory ran out (up to 19.5 GB), and on a FIFO
// with no writer blocked in open for ever, with the run lock held and
// SIGTERM ignored. Each is now refused at once from its stat (a link to a
// regular file is fine), and a file over its cap (4 MiB for the config,
// 64 KiB for a secret) by its size, the message naming the key, the path
// and what to do.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/fifotest"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
	"github.com/finops-oss/finops/internal/store"
)

// hostilePath is a path that is not a small regular file, and what the
// error must say of it after the path.
type hostilePath struct{ name, path, want string }

// hostilePaths makes a FIFO with no writer, a folder and a file of big
// bytes under dir, and adds /dev/zero where there is one (last: a
// regression on it eats memory while the test runs on).
func hostilePaths(t *testing.T, dir string, big int) []hostilePath {
	t.Helper()
	folder := filepath.Join(dir, "folder")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge")
	if err := os.WriteFile(huge, bytes.Repeat([]byte("#"), big), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []hostilePath{
		{"fifo", fifotest.Make(t, filepath.Join(dir, "pipe")), ": a named pipe (FIFO), not a regular file: finops reads"},
		{"folder", folder, ": a folder, not a regular file: name the file itself, not its folder"},
		{"oversize", huge, " is " + capped.Bytes(int64(big)) + ", over the "},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, hostilePath{"/dev/zero", "/dev/zero", ": a character device, not a regular file: finops reads"})
	}
	return cases
}

// TestHostileConfigNotRegular: `finops run` with --config naming a FIFO, a
// folder, a file over 4 MiB or /dev/zero exits 2 at once naming the path and
// its type, with the database unchanged and no out folder.
func TestHostileConfigNotRegular(t *testing.T) {
	for _, tc := range hostilePaths(t, t.TempDir(), config.MaxFileBytes+1) {
		t.Run(strings.TrimPrefix(tc.name, "/dev/"), func(t *testing.T) {
			want := []string{tc.path + tc.want}
			if tc.name == "fifo" {
				want = append(want, "--config")
			}
			doneWithin(t, 5*time.Second, tc.path, func() {
				refusedConfig(t, tc.name, tc.path, []string{"run", "--week", "2026-W48", "--no-upload", "--no-email"}, want...)
			})
		})
	}
}

// secretFilesConfig is a config whose publish.s3 and publish.smtp read
// their secrets from s3Secret and smtpPassword (each a file, or "" for an
// environment variable). Nothing listens at either address: a secret is
// read before any connection.
func secretFilesConfig(t *testing.T, dir, s3Secret, smtpPassword string) string {
	t.Helper()
	s3Key, smtpKey := "secret_key_env: T_S3_SECRET", "password_env: T_SMTP_PASS"
	if s3Secret != "" {
		s3Key = "secret_key_file: " + s3Secret
	}
	if smtpPassword != "" {
		smtpKey = "password_file: " + smtpPassword
	}
	return writeConfig(t, dir, "finops.yaml", fmt.Sprintf(`database: %s
out: %s
formats: [json]
billing:
  - path: %s
    mapping: autodl
publish:
  s3:
    bucket: weekly
    region: us-east-1
    endpoint: http://127.0.0.1:9
    path_style: true
    access_key_env: T_S3_KEY
    %s
    timeout: 2s
  smtp:
    host: 127.0.0.1
    port: 9
    tls: none
    from: finops@example.com
    user: finops
    %s
    admins: [cto@example.com]
    timeout: 2s
`, filepath.Join(dir, "f.db"), filepath.Join(dir, "out"), writeWeekBill(t, dir), s3Key, smtpKey))
}

// secretsCLI runs finops in-process with the variables the config names.
func secretsCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	vars := map[string]string{"T_S3_KEY": "AKIDTEST", "T_S3_SECRET": "not-the-one", "T_SMTP_PASS": "not-the-one"}
	var out, errb bytes.Buffer
	m := cli.NewMain(bytes.NewReader(nil), &out, &errb)
	m.Now = func() time.Time { return now }
	m.Getenv = func(k string) string { return vars[k] }
	code := m.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

// TestHostileSecretFilesRun: `finops run` and `finops doctor` with
// publish.s3.secret_key_file or publish.smtp.password_file naming a FIFO, a
// folder, a file over 64 KiB or /dev/zero end at once: run with exit 2
// before taking the run lock (the next one is not busy), doctor with the
// check failed; each message names the key, the path and what to do.
func TestHostileSecretFilesRun(t *testing.T) {
	for _, key := range []string{"publish.s3.secret_key_file", "publish.smtp.password_file"} {
		for _, tc := range hostilePaths(t, t.TempDir(), config.MaxSecretBytes+1) {
			t.Run(key+"/"+strings.TrimPrefix(tc.name, "/dev/"), func(t *testing.T) {
				dir := t.TempDir()
				s3Secret, smtpPassword := tc.path, ""
				if key == "publish.smtp.password_file" {
					s3Secret, smtpPassword = "", tc.path
				}
				cfg := secretFilesConfig(t, dir, s3Secret, smtpPassword)
				want := key + ": " + tc.path + tc.want
				doneWithin(t, 5*time.Second, tc.path, func() {
					code, out, errOut := secretsCLI(t, "--config", cfg, "run", "--week", "2026-W48")
					if code != cli.ExitUsage || !strings.Contains(out+errOut, want) {
						t.Errorf("run: exit %d, want %d and %q:\n%s%s", code, cli.ExitUsage, want, out, errOut)
					}
				})
				lock, err := store.AcquireRunLock(filepath.Join(dir, "f.db"), "test", time.Now())
				if err != nil {
					t.Fatalf("after the refused run: %v", err)
				}
				lock.Release()
				doneWithin(t, 5*time.Second, tc.path, func() {
					code, out, errOut := secretsCLI(t, "--config", cfg, "doctor")
					if code == 0 || !strings.Contains(out, want) {
						t.Errorf("doctor: exit %d, want a failed check saying %q:\n%s%s", code, want, out, errOut)
					}
				})
			})
		}
	}
}

// TestHostileWatchSecretFiles: a watch pass against a real Prometheus whose
// channel's url_file or secret_file names a FIFO, a folder, a file over
// 64 KiB or /dev/zero ends at once (it holds the run lock), the message
// naming the channel, the key and the path, kept pending for the next pass.
func TestHostileWatchSecretFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus")
	}
	srv := promtest.Start(t, watchOpenMetrics(watchUtil))
	for _, key := range []string{"url_file", "secret_file"} {
		for _, tc := range hostilePaths(t, t.TempDir(), config.MaxSecretBytes+1) {
			t.Run(key+"/"+strings.TrimPrefix(tc.name, "/dev/"), func(t *testing.T) {
				channel := "    - type: json\n      url_file: " + tc.path + "\n"
				if key == "secret_file" {
					channel = "    - type: feishu\n      url_env: SLACK_URL\n      secret_file: " + tc.path + "\n"
				}
				e := newWatchEnv(t, srv.URL, "watch:\n  channels:\n"+channel)
				want := "watch.channels[0]: " + key + ": " + tc.path + tc.want
				doneWithin(t, 5*time.Second, tc.path, func() {
					code, out, errOut := e.run(t, watchAt(1, 31), "watch")
					if code == 0 || !strings.Contains(out+errOut, want) {
						t.Errorf("watch: exit %d, want a failure saying %q:\n%s%s", code, want, out, errOut)
					}
				})
				lock, err := store.AcquireRunLock(e.db, "test", time.Now())
				if err != nil {
					t.Fatalf("after the pass: %v", err)
				}
				lock.Release()
			})
		}
	}
}
