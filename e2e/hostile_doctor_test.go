package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
	"github.com/finops-oss/finops/internal/proctest"
)

// TestHostileDoctor runs `finops doctor` against the real servers of the
// publishing tests (versitygw, mailpit with a password file) and a real
// Prometheus holding ten minutes of two GPUs before the fixed clock, on the
// demo fleet's database and sources. Healthy, every check is OK, the test
// email arrives and the S3 probe leaves nothing behind; with S3 stopped, a
// wrong SMTP password, Prometheus gone, a broken database or a bad config,
// exactly that check fails, saying what to check, with exit 1 (2 for the
// config). No secret is ever printed, and the database is never written.
func TestHostileDoctor(t *testing.T) {
	w := newPubWorld(t)
	var om promtest.OpenMetrics
	om.Family(dcgm.GPUUtil)
	for m := 10; m > 0; m-- {
		for _, g := range []string{"GPU-doctor-0", "GPU-doctor-1"} {
			om.Sample([]string{"UUID", g, "Hostname", "gpu-a", "modelName", "NVIDIA A100-SXM4-80GB"},
				now.Add(-time.Duration(m)*time.Minute), "50")
		}
	}
	promSrv := promtest.Start(t, om.Bytes())
	deadProm := "http://127.0.0.1:" + strconv.Itoa(proctest.FreePort(t))
	env := func(t *testing.T, url string) *pubEnv { return doctorEnv(t, w, url) }

	// The demo's sources: every one is listed as OK (the count comes from
	// the demo config, read independently of doctor).
	e := env(t, promSrv.URL)
	cfgText, _ := os.ReadFile(e.cfg)
	nSources := strings.Count(string(cfgText), "path:")

	doctor, find, verdicts := runDoctor, doctorFind, doctorVerdicts
	noProbeLeft := func(t *testing.T, e *pubEnv) {
		t.Helper()
		doctorNoProbeLeft(t, w, e)
	}

	t.Run("healthy", func(t *testing.T) {
		ls := doctor(t, e, cli.ExitOK, "--send-test", "lead@example.com")
		noProbeLeft(t, e)
		n := verdicts(ls)
		ok := n["OK billing"] + n["OK utilization"] + n["OK tasks"]
		if ok != nSources {
			t.Errorf("%d sources OK, want the config's %d: %v", ok, nSources, ls)
		}
		for _, c := range []string{"config", "database", "prometheus", "s3", "smtp", "smtp send"} {
			if n["OK "+c] != 1 {
				t.Errorf("want one OK %s: %v", c, ls)
			}
		}
		if l := find(t, ls, "prometheus"); !strings.Contains(l.detail, "2 GPU series") {
			t.Errorf("prometheus: %q, want the 2 GPUs backfilled", l.detail)
		}
		if l := find(t, ls, "s3"); !strings.Contains(l.detail, "s3://"+e.bucket+"/weekly/.finops-doctor-") {
			t.Errorf("s3: %q, want the probe under the prefix", l.detail)
		}
		if l := find(t, ls, "smtp"); !strings.Contains(l.detail, "AUTH as finops") {
			t.Errorf("smtp: %q", l.detail)
		}
		msgs := w.mp.Messages(t)
		if len(msgs) != 1 || len(msgs[0].To) != 1 || msgs[0].To[0].Address != "lead@example.com" {
			t.Errorf("mailpit got %+v, want one test email to lead@example.com", msgs)
		}
	})

	t.Run("no send without --send-test", func(t *testing.T) {
		e := env(t, promSrv.URL)
		doctor(t, e, cli.ExitOK)
		noProbeLeft(t, e)
		if msgs := w.mp.Messages(t); len(msgs) != 0 {
			t.Errorf("doctor sent %d emails without --send-test", len(msgs))
		}
	})

	for _, tc := range []struct {
		name, check, want string
		setup             func(e *pubEnv) func()
		extra             string
	}{
		{name: "S3 down", check: "s3", want: "cannot reach the S3 service at " + w.s3.URL,
			setup: func(*pubEnv) func() { w.s3.Stop(); return w.s3.Start }},
		{name: "wrong SMTP password", check: "smtp", want: "smtp auth: ",
			setup: func(e *pubEnv) func() { e.vars["T_SMTP_PASS"] = "wrong-PASS-7d1e"; return func() {} }},
		{name: "Prometheus gone", check: "prometheus", want: "check utilization.prometheus url",
			extra: deadProm},
		{name: "database broken", check: "database", want: "finops restore",
			setup: func(e *pubEnv) func() {
				// A SQLite header followed by garbage: opens, but is not a database.
				os.Remove(e.db + "-wal")
				os.WriteFile(e.db, append([]byte("SQLite format 3\x00"), make([]byte, 4096)...), 0o644)
				return func() {}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := promSrv.URL
			if tc.extra != "" {
				url = tc.extra
			}
			e := env(t, url)
			restore := func() {}
			if tc.setup != nil {
				restore = tc.setup(e)
			}
			ls := doctor(t, e, cli.ExitFailed)
			restore()
			noProbeLeft(t, e)
			for _, l := range ls {
				if (l.verdict == "FAIL") != (l.check == tc.check) {
					t.Errorf("%s %s: %s; want only %s to fail", l.verdict, l.check, l.detail, tc.check)
				}
			}
			if l := find(t, ls, tc.check); !strings.Contains(l.detail, tc.want) {
				t.Errorf("%s: %q, want %q", tc.check, l.detail, tc.want)
			}
		})
	}

	t.Run("wrong SMTP password hint", func(t *testing.T) {
		e := env(t, promSrv.URL)
		e.vars["T_SMTP_PASS"] = "wrong-PASS-7d1e"
		ls := doctor(t, e, cli.ExitFailed)
		if l := find(t, ls, "smtp"); !strings.Contains(l.detail, "check publish.smtp.user and the password") {
			t.Errorf("smtp: %q, want the settings to check", l.detail)
		}
	})

	t.Run("bad config", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "finops.yaml")
		os.WriteFile(cfg, []byte("publish: {smtp: {host: smtp.example.com, tls: ssl, from: f@example.com}}\n"), 0o644)
		code, stdout, _ := runFinops(t, "--config", cfg, "doctor")
		if code != cli.ExitUsage {
			t.Errorf("exit %d, want %d", code, cli.ExitUsage)
		}
		if !strings.HasPrefix(stdout, "FAIL  config") || !strings.Contains(stdout, "publish.smtp.tls") {
			t.Errorf("stdout %q, want a FAIL config line naming publish.smtp.tls", stdout)
		}
	})
}

// doctorEnv is the publishing tests' world with Prometheus lab at url added
// to the demo config's utilization block.
func doctorEnv(t *testing.T, w *pubWorld, url string) *pubEnv {
	e := w.env(t, 0, "")
	b, err := os.ReadFile(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	prom := "utilization:\n  prometheus:\n    - name: lab\n      url: " + url + "\n      retries: 0\n      timeout: 5s\n"
	b = []byte(strings.Replace(string(b), "utilization:\n", prom, 1))
	if err := os.WriteFile(e.cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// doctorLine is one line of doctor's report.
type doctorLine struct{ verdict, check, detail string }

// doctorLines parses doctor's stdout, each line VERDICT CHECK DETAIL.
func doctorLines(t *testing.T, out string) []doctorLine {
	var ls []doctorLine
	re := regexp.MustCompile(`^(OK|FAIL|SKIP)\s+(\S+(?: send)?)\s+(.*)$`)
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		m := re.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("line %q is not VERDICT CHECK DETAIL", l)
			continue
		}
		ls = append(ls, doctorLine{m[1], m[2], m[3]})
	}
	return ls
}

// doctorDBBytes is the database file's content, to see that doctor left it
// untouched.
func doctorDBBytes(t *testing.T, e *pubEnv) string {
	b, err := os.ReadFile(e.db)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runDoctor runs doctor and checks what every run must: the exit code, no
// secret in the output, the database untouched, the bucket empty.
func runDoctor(t *testing.T, e *pubEnv, wantCode int, args ...string) []doctorLine {
	t.Helper()
	before := doctorDBBytes(t, e)
	code, stdout, stderr := e.run(t, append([]string{"doctor"}, args...)...)
	if code != wantCode {
		t.Errorf("exit %d, want %d\n%s\n%s", code, wantCode, stdout, stderr)
	}
	for _, s := range []string{testAccessKey, testSecretKey, testSMTPPass, e.vars["T_SMTP_PASS"]} {
		if strings.Contains(stdout+stderr, s) {
			t.Errorf("the output shows a secret %q:\n%s%s", s, stdout, stderr)
		}
	}
	if doctorDBBytes(t, e) != before {
		t.Error("doctor changed the database")
	}
	return doctorLines(t, stdout)
}

// doctorNoProbeLeft: the S3 probe left nothing in the bucket.
func doctorNoProbeLeft(t *testing.T, w *pubWorld, e *pubEnv) {
	t.Helper()
	if keys := w.s3.Keys(t, e.bucket, ""); len(keys) != 0 {
		t.Errorf("the probe left objects behind: %v", keys)
	}
}

// doctorVerdicts counts the lines by "VERDICT check".
func doctorVerdicts(ls []doctorLine) map[string]int {
	n := map[string]int{}
	for _, l := range ls {
		n[l.verdict+" "+l.check]++
	}
	return n
}

// doctorFind is the line of check, or a fatal error when there is none.
func doctorFind(t *testing.T, ls []doctorLine, check string) doctorLine {
	t.Helper()
	for _, l := range ls {
		if l.check == check {
			return l
		}
	}
	t.Fatalf("no %s line in %v", check, ls)
	return doctorLine{}
}
