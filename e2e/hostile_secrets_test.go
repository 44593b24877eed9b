package e2e

// Issue 14, item 1: a password (or a token parameter) written into a source's
// address reaches no output, report or database row; the address is shown
// the way url.URL.Redacted shows it.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

// promSecret and promToken are what the hostile Prometheus address carries;
// no byte of output may hold either.
const (
	promSecret = "hunter2-pw"
	promToken  = "tok-hunter3"
)

// fakeProm answers query_range like a Prometheus behind basic auth: 401
// without reader:promSecret (so the test also shows the credentials are still
// used), 503 when down is set, else one sample of GPU-a0 at 50 % at the
// start of each day asked for.
func fakeProm(t *testing.T, down bool) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "reader" || p != promSecret {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if down {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"status":"error","errorType":"unavailable","error":"TSDB not ready"}`)
			return
		}
		_ = r.ParseForm()
		result := []any{}
		if start, _ := strconv.ParseFloat(r.Form.Get("start"), 64); strings.Contains(r.Form.Get("query"), "UTIL") {
			result = append(result, map[string]any{"metric": map[string]string{"UUID": weekUUIDs[0], "Hostname": "gpu-a"},
				"values": [][]any{{start, "50"}}})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix", "result": result}})
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// credentialsIn returns base (http://127.0.0.1:port) with the user, password
// and a token parameter in it, and how finops must show it (by hand: the
// password and the token's value become xxxxx, as url.URL.Redacted does).
func credentialsIn(base string) (withSecrets, shown string) {
	rest := strings.TrimPrefix(base, "http://")
	return "http://reader:" + promSecret + "@" + rest + "/?token=" + promToken,
		"http://reader:xxxxx@" + rest + "/?token=xxxxx"
}

// noSecret fails when any of texts (named by its key) holds a secret.
func noSecret(t *testing.T, texts map[string]string) {
	t.Helper()
	for where, s := range texts {
		for _, secret := range []string{promSecret, promToken} {
			if strings.Contains(s, secret) {
				i := strings.Index(s, secret)
				t.Errorf("%s shows %q: …%s…", where, secret, s[max(0, i-80):min(len(s), i+40)])
			}
		}
	}
}

// dbAndReports reads what a run leaves behind: the database file (every
// table, the runs ledger and source records included, as raw bytes) and
// the reports.
func dbAndReports(t *testing.T, dir string) map[string]string {
	t.Helper()
	texts := map[string]string{}
	paths, _ := filepath.Glob(filepath.Join(dir, "f.db*"))
	reports, _ := filepath.Glob(filepath.Join(dir, "out", "*"))
	for _, p := range append(paths, reports...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(p)] = string(b)
	}
	if len(reports) == 0 {
		t.Error("no report written")
	}
	return texts
}

func TestHostileURLCredentials(t *testing.T) {
	for _, tc := range []struct {
		name     string
		down     bool
		wantCode int
		status   string // of the source in the data-quality box
	}{
		{"answers", false, cli.ExitOK, "ok"},
		{"down", true, cli.ExitPartial, "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, shown := credentialsIn(fakeProm(t, tc.down))
			dir := t.TempDir()
			cfg := filepath.Join(dir, "finops.yaml")
			// The fake answers with no series of the bill's GPUs: coverage 0,
			// which min_coverage 0 accepts, so only the source's fate sets
			// the exit code here.
			yaml := fmt.Sprintf("database: %s\nout: %s\nformats: [json, html]\nbilling:\n  - path: %s\n    mapping: autodl\n"+
				"thresholds:\n  min_coverage: 0\n"+
				"utilization:\n  prometheus:\n    - url: %s\n      timeout: 2s\n      retries: 0\n",
				filepath.Join(dir, "f.db"), filepath.Join(dir, "out"), writeWeekBill(t, dir), url)
			if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			// -v prints a line per file and per day; json logs the failure
			// and the result line.
			code, stdout, stderr := runFinops(t, "--config", cfg, "-v", "run", "--week", "2026-W48")
			if code != tc.wantCode {
				t.Fatalf("run: exit %d, want %d\n%s%s", code, tc.wantCode, stdout, stderr)
			}
			jcode, jout, jerr := runFinops(t, "--config", cfg, "--log-format", "json", "run", "--week", "2026-W48")
			if jcode != tc.wantCode {
				t.Errorf("run --log-format json: exit %d\n%s%s", jcode, jout, jerr)
			}
			texts := dbAndReports(t, dir)
			texts["stdout"], texts["stderr"], texts["json stdout"], texts["json stderr"] = stdout, stderr, jout, jerr
			noSecret(t, texts)

			// The source is still named, redacted, where it is reported.
			name := "prometheus " + shown
			if !strings.Contains(stdout, "source "+name) {
				t.Errorf("stdout does not name the source as %q:\n%s", name, stdout)
			}
			r := readSummary(t, filepath.Join(dir, "out", "finops-2026-W48.json"))
			found := false
			for _, s := range r.DataQuality.Sources {
				if s.Name == name {
					found = true
					if s.Status != tc.status {
						t.Errorf("source %+v: want status %s", s, tc.status)
					}
				}
			}
			if !found {
				t.Errorf("data quality does not list %q: %+v", name, r.DataQuality.Sources)
			}
			if tc.down && !strings.Contains(texts["f.db"], name) {
				t.Error("the runs ledger does not name the missing source")
			}
		})
	}
}

// TestHostileURLCredentialsIngest: `finops ingest prometheus --url` with the
// credentials in the URL prints each day without them, and a URL that is no
// http(s) one is refused naming it redacted.
func TestHostileURLCredentialsIngest(t *testing.T) {
	url, shown := credentialsIn(fakeProm(t, false))
	db := filepath.Join(t.TempDir(), "f.db")
	code, stdout, stderr := runFinops(t, "--db", db, "ingest", "prometheus", "--url", url, "--from", "2026-11-23", "--to", "2026-11-24")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	noSecret(t, map[string]string{"stdout": stdout, "stderr": stderr})
	if !strings.Contains(stdout, "prometheus "+shown+" 2026-11-23: 1 samples") {
		t.Errorf("stdout does not name the day's source redacted:\n%s", stdout)
	}
	bad := strings.Replace(url, "http://", "ftp://", 1)
	code, stdout, stderr = runFinops(t, "--db", db, "ingest", "prometheus", "--url", bad, "--since", "1d")
	if code != cli.ExitUsage || !strings.Contains(stderr, strings.Replace(shown, "http://", "ftp://", 1)) {
		t.Errorf("ftp:// URL: exit %d, want %d naming it redacted\n%s%s", code, cli.ExitUsage, stdout, stderr)
	}
	noSecret(t, map[string]string{"stdout": stdout, "stderr": stderr})
}

// TestHostileURLCredentialsS3SMTP: the same for the other addresses a
// config or a command line holds: an s3:// source or restore location with
// keys in it, an S3 endpoint with a password or a token parameter, an SMTP
// host with a user and password. Each is refused (exit 2) naming the key or
// the argument, and quoting no secret.
func TestHostileURLCredentialsS3SMTP(t *testing.T) {
	dir := t.TempDir()
	config := func(name, yaml string) string {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte("database: "+filepath.Join(dir, name+".db")+"\n"+yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := config("plain", "")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"s3 source", []string{"--config", plain, "ingest", "s3://AKIAKEY:" + promSecret + "@bucket/cur/"}, "an s3:// URL must not contain credentials"},
		{"restore from", []string{"--config", plain, "restore", "--from", "s3://AKIAKEY:" + promSecret + "@bucket/weekly", "--period", "2026-W47"}, "must not contain credentials"},
		{"s3 endpoint password", []string{"--config", config("endpoint", "publish:\n  s3: {bucket: b, endpoint: 'https://AKIAKEY:"+promSecret+"@minio:9000'}\n"), "run"},
			"publish.s3.endpoint: must not contain credentials"},
		{"s3 endpoint token", []string{"--config", config("token", "publish:\n  s3: {bucket: b, endpoint: 'https://minio:9000/?X-Amz-Security-Token="+promToken+"'}\n"), "run"},
			"publish.s3.endpoint: must not contain credentials"},
		{"smtp host", []string{"--config", config("smtp", "publish:\n  smtp: {host: 'mailer:"+promSecret+"@smtp.example.com', from: f@example.com}\n"), "run"},
			"publish.smtp.host: want a host name only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runFinops(t, tc.args...)
			if code != cli.ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d and %q\n%s%s", code, cli.ExitUsage, tc.want, stdout, stderr)
			}
			noSecret(t, map[string]string{"stdout": stdout, "stderr": stderr})
		})
	}
}
