package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

// TestRunDryRunWithoutSecrets: `run --dry-run` says what it would do
// without the S3 and SMTP secrets, naming each one it could not read as a
// note, and exits 0; it lists the teams' pages among the uploads. A real run
// still refuses to start without them (exit 2). Nothing listens at the
// config's S3 and SMTP addresses: a dry run connects to neither.
func TestRunDryRunWithoutSecrets(t *testing.T) {
	const (
		noteKey    = "dry run: note: publish.s3.access_key_env: environment variable T_S3_KEY is not set"
		noteSecret = "dry run: note: publish.s3.secret_key_env: environment variable T_S3_SECRET is not set"
		notePass   = "dry run: note: publish.smtp.password_env: environment variable T_SMTP_PASS is not set"
		noteFile   = "dry run: note: publish.smtp.password_file: "
		page       = "dry run: would upload s3://finops-teams/weekly/2026-W48/finops-2026-W48-orchid-lab.html (team orchid-lab's page)"
		workbook   = "dry run: would upload s3://finops-teams/weekly/2026-W48/finops-2026-W48-walnut-lab.xlsx (team walnut-lab's workbook)"
		email      = "dry run: would email orchid-lead@example.com (team orchid-lab): "
		link       = "linking http://127.0.0.1:9/finops-teams/weekly/2026-W48/finops-2026-W48-orchid-lab.html"
	)
	all := []string{noteKey, noteSecret, notePass, noteFile}
	for _, tc := range []struct {
		name     string
		unset    []string // of T_S3_KEY, T_S3_SECRET, T_SMTP_PASS
		passFile bool     // password_file naming a file that is not there, for password_env
		args     []string
		wantCode int
		want     []string // in stdout (or stderr for a refused run)
	}{
		{"NoSecrets", []string{"T_S3_KEY", "T_S3_SECRET", "T_SMTP_PASS"}, false, []string{"--dry-run"}, 0,
			[]string{noteKey, noteSecret, notePass, page, workbook, email, link}},
		{"S3SecretOnly", []string{"T_S3_SECRET"}, false, []string{"--dry-run"}, 0,
			[]string{noteSecret, page, workbook, email, link}},
		{"PasswordFileMissing", nil, true, []string{"--dry-run"}, 0,
			[]string{noteFile, page, workbook, email, link}},
		{"AllSecrets", nil, false, []string{"--dry-run"}, 0,
			[]string{page, workbook, email, link}},
		{"NoUploadNoS3Notes", []string{"T_S3_KEY", "T_S3_SECRET"}, false, []string{"--dry-run", "--no-upload"}, 0,
			[]string{"dry run: no upload (--no-upload)", email}},
		{"RealRunRefuses", []string{"T_S3_KEY"}, false, nil, cli.ExitUsage,
			[]string{"publish.s3.access_key_env: environment variable T_S3_KEY is not set"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTeamEnv(t, nil, nil, "html, json")
			for _, k := range tc.unset {
				delete(e.vars, k)
			}
			if tc.passFile {
				missing := filepath.Join(e.dir, "no-such-password")
				cfg := strings.Replace(string(mustRead(t, e.cfg)), "password_env: T_SMTP_PASS", "password_file: "+missing, 1)
				if err := os.WriteFile(e.cfg, []byte(cfg), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := e.run(t, append([]string{"run", "--week", "2026-W48"}, tc.args...)...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.wantCode, stdout, stderr)
			}
			said := stdout + stderr
			for _, want := range tc.want {
				if !strings.Contains(said, want) {
					t.Errorf("output lacks %q:\n%s", want, said)
				}
			}
			for _, note := range all {
				if !slices.Contains(tc.want, note) && strings.Contains(said, note) {
					t.Errorf("output notes %q, which is not missing:\n%s", note, said)
				}
			}
			for _, secret := range []string{testAccessKey, testSecretKey, teamSMTPPW} {
				if strings.Contains(said, secret) {
					t.Errorf("output shows a secret:\n%s", said)
				}
			}
		})
	}
}
