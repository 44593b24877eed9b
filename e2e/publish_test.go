package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/proxytest"
	"github.com/finops-oss/finops/internal/publish/publishtest"
	"github.com/finops-oss/finops/internal/runjob"
	"github.com/finops-oss/finops/internal/store"
)

// The publishing integration tests run `finops run` on the demo fleet against
// a real versitygw (S3) and a real mailpit (SMTP) on 127.0.0.1, started by
// publishtest. Faults come from the real servers where they can produce them
// (versitygw stopped, mailpit refusing recipients); a TCP proxy in front of
// mailpit holds a connection open to stop a run at a known point.

// Known secrets: no output, report, database or object may contain them.
const (
	testAccessKey = "AKIAFINOPSKNOWN0KEY7"
	testSecretKey = "s3-SECRET-4f8e2b7c9d1a6e3f0b5c"
	testSMTPPass  = "smtp-PASS-9c2e7a4b1f6d3e8a0c5b"
	testLeadCount = 5 // four team leads and one admin in the demo config below
)

// pubWorld is what every publishing test shares: the demo fleet, already
// ingested, and the two servers.
type pubWorld struct {
	fixture string // demo-data folder of a `finops demo` run at the fixed clock
	s3      *publishtest.S3Server
	mp      *publishtest.Mailpit
	buckets int
}

// pubEnv is one test's world: its own database, out folder, bucket and config.
type pubEnv struct {
	w       *pubWorld
	dir     string
	cfg     string
	db      string
	out     string
	bucket  string
	vars    map[string]string
	summary analysis.Result
	backoff []time.Duration // the email retries' waits; nil: deliver's
}

func newPubWorld(t *testing.T) *pubWorld {
	t.Helper()
	w := &pubWorld{}
	w.s3 = publishtest.StartS3(t, testAccessKey, testSecretKey)
	auth := filepath.Join(t.TempDir(), "smtp-auth")
	if err := os.WriteFile(auth, []byte("finops:"+testSMTPPass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.mp = publishtest.StartMailpit(t, "--smtp-auth-file", auth)
	out := t.TempDir()
	if code, stdout, stderr := runFinops(t, "demo", "--out", out); code != 0 {
		t.Fatalf("demo exit %d\n%s\n%s", code, stdout, stderr)
	}
	w.fixture = filepath.Join(out, "demo-data")
	return w
}

// env copies the ingested demo database into a fresh folder and writes a
// config that publishes to a new bucket. smtpPort 0 means mailpit's.
func (w *pubWorld) env(t *testing.T, smtpPort int, extra string) *pubEnv {
	t.Helper()
	w.mp.DeleteAll(t)
	w.mp.RefuseRecipients(t, 0)
	w.buckets++
	e := &pubEnv{w: w, dir: t.TempDir(), bucket: fmt.Sprintf("finops-%d", w.buckets),
		vars: map[string]string{"T_S3_KEY": testAccessKey, "T_S3_SECRET": testSecretKey, "T_SMTP_PASS": testSMTPPass}}
	w.s3.CreateBucket(t, e.bucket)
	e.db = filepath.Join(e.dir, "finops.db")
	e.out = filepath.Join(e.dir, "out")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(filepath.Join(w.fixture, "finops.db"+suffix))
		if err != nil && suffix == "" {
			t.Fatal(err)
		}
		if err == nil {
			os.WriteFile(e.db+suffix, b, 0o644)
		}
	}
	base, err := os.ReadFile(filepath.Join(w.fixture, "finops.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The demo's config names its own database; this copy uses e.db.
	base = regexp.MustCompile(`(?m)^database:.*\n`).ReplaceAll(base, nil)
	if smtpPort == 0 {
		smtpPort = w.mp.SMTPPort
	}
	cfg := fmt.Sprintf(`
database: %s
out: %s
publish:
  s3:
    bucket: %s
    prefix: weekly
    region: us-east-1
    endpoint: %s
    path_style: true
    access_key_env: T_S3_KEY
    secret_key_env: T_S3_SECRET
    timeout: 5s
  smtp:
    host: 127.0.0.1
    port: %d
    tls: none
    from: finops@example.com
    user: finops
    password_env: T_SMTP_PASS
    admins: [cto@example.com]
    timeout: 20s
%s`, e.db, e.out, e.bucket, w.s3.URL, smtpPort, extra)
	e.cfg = filepath.Join(e.dir, "finops.yaml")
	if err := os.WriteFile(e.cfg, append(base, cfg...), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// run runs finops in-process with the env's variables and the fixed clock.
func (e *pubEnv) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	m := cli.NewMain(bytes.NewReader(nil), &out, &errb)
	m.Now = func() time.Time { return now }
	m.Getenv = func(k string) string { return e.vars[k] }
	m.SendBackoff = e.backoff
	code := m.Run(context.Background(), append([]string{"--config", e.cfg}, args...))
	return code, out.String(), errb.String()
}

// start starts finops as a separate process (this test binary as finops).
func (e *pubEnv) start(t *testing.T, stdout, stderr io.Writer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--config", e.cfg}, args...)...)
	cmd.Env = append(os.Environ(), "FINOPS_TEST_MAIN=1")
	for k, v := range e.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func (e *pubEnv) store(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func (e *pubEnv) keys(t *testing.T) []string { return e.w.s3.Keys(t, e.bucket, "") }

// mailTo counts the messages per recipient.
func mailTo(t *testing.T, mp *publishtest.Mailpit) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, m := range mp.Messages(t) {
		for _, a := range m.To {
			n[a.Address]++
		}
	}
	return n
}

var demoRecipients = []string{"cto@example.com", "cv-lead@example.com", "nlp-lead@example.com",
	"platform-lead@example.com", "search-lead@example.com"}

// wantOneEach fails unless every recipient got exactly one message.
func wantOneEach(t *testing.T, mp *publishtest.Mailpit) {
	t.Helper()
	got := mailTo(t, mp)
	for _, r := range demoRecipients {
		if got[r] != 1 {
			t.Errorf("%s received %d emails, want exactly 1 (mailbox: %v)", r, got[r], got)
		}
	}
	if len(got) != len(demoRecipients) {
		t.Errorf("mail went to %v", got)
	}
}

func week48Keys(teams bool) []string {
	keys := []string{"weekly/2026-W48/finops-2026-W48.db.gz", "weekly/2026-W48/finops-2026-W48.html",
		"weekly/2026-W48/finops-2026-W48.json", "weekly/2026-W48/finops-2026-W48.xlsx"}
	if teams {
		for _, t := range []string{"cv", "nlp", "platform", "search"} {
			keys = append(keys, "weekly/2026-W48/finops-2026-W48-"+t+".xlsx", "weekly/2026-W48/finops-2026-W48-"+t+".html")
		}
	}
	slices.Sort(keys)
	return keys
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// money formats like the email: ¥3,266.67.
func money(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return "¥" + b.String() + "." + frac
}

// wholeMoney formats like the subject: ¥3,267.
func wholeMoney(v float64) string {
	m := money(float64(int64(v + 0.5)))
	return strings.TrimSuffix(m, ".00")
}

// TestRunPublish is the publishing suite: one fixture and one pair of
// servers, scenarios as subtests (in order; each has its own bucket and
// database, and empties the mailbox first).
func TestRunPublish(t *testing.T) {
	w := newPubWorld(t)
	t.Run("Delivers", func(t *testing.T) { testDelivers(t, w) })
	t.Run("S3Down", func(t *testing.T) { testS3Down(t, w) })
	t.Run("SMTPRefuses", func(t *testing.T) { testSMTPRefuses(t, w) })
	t.Run("KilledMidRun", func(t *testing.T) { testKilledMidRun(t, w) })
	t.Run("TwoRunsAtOnce", func(t *testing.T) { testTwoRunsAtOnce(t, w) })
	t.Run("NoSecretsInOutput", func(t *testing.T) { testNoSecrets(t, w) })
}

// testDelivers: a run uploads the reports, the team workbooks and a database
// snapshot with the right keys, bytes, content types and sha256 metadata;
// prunes old snapshots; sends each lead one email with their team's numbers
// only; a rerun sends nothing; --resend sends again; restore brings the
// snapshot back.
func testDelivers(t *testing.T, w *pubWorld) {
	textfile := filepath.Join(t.TempDir(), "finops.prom")
	e := w.env(t, 0, fmt.Sprintf("  link_base_url: https://reports.example.com/finops\n  metrics_textfile: %s\n", textfile))
	// Retention: two weeks. An old snapshot goes, an old report stays.
	os.WriteFile(e.cfg, bytes.Replace(mustRead(t, e.cfg), []byte("    timeout: 5s\n"), []byte("    timeout: 5s\n    retention_weeks: 2\n"), 1), 0o644)
	w.s3.Put(t, e.bucket, "weekly/2026-W40/finops-2026-W40.db.gz", []byte("old"))
	w.s3.Put(t, e.bucket, "weekly/2026-W40/finops-2026-W40.xlsx", []byte("old"))

	checkDeliversDryRun(t, w, e)
	checkDeliversRun(t, w, e)
	wantCounts := checkDeliversSnapshot(t, w, e)

	// The emails.
	e.summary = readSummary(t, filepath.Join(e.out, "finops-2026-W48.json"))
	wantOneEach(t, w.mp)
	checkTeamEmails(t, w.mp, e.summary)

	checkDeliversTextfile(t, textfile)
	checkDeliversRerun(t, w, e)
	checkDeliversLedger(t, e)
	checkDeliversRestore(t, e, wantCounts)
}

// checkDeliversDryRun: --dry-run says what it would do, does nothing.
func checkDeliversDryRun(t *testing.T, w *pubWorld, e *pubEnv) {
	t.Helper()
	code, stdout, stderr := e.run(t, "run", "--week", "2026-W48", "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"dry run: would upload s3://" + e.bucket + "/weekly/2026-W48/finops-2026-W48.xlsx (",
		"dry run: would upload s3://" + e.bucket + "/weekly/2026-W48/finops-2026-W48.db.gz (database snapshot",
		"dry run: would email nlp-lead@example.com (team nlp): \"[finops] nlp · 2026-W48 · ",
		"with finops-2026-W48-nlp.xlsx attached",
		"dry run: would email cto@example.com (admins)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, stdout)
		}
	}
	if n := len(w.mp.Messages(t)); n != 0 {
		t.Errorf("dry run sent %d emails", n)
	}
	if keys := e.keys(t); len(keys) != 2 {
		t.Errorf("dry run uploaded: %v", keys)
	}
}

// checkDeliversRun: the run's one JSON line says ok, and the bucket holds
// this week's files with their content types and sha256 metadata, the old
// report, not the old snapshot.
func checkDeliversRun(t *testing.T, w *pubWorld, e *pubEnv) {
	t.Helper()
	code, stdout, stderr := e.run(t, "--log-format", "json", "run", "--week", "2026-W48")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// stdout is exactly one JSON line.
	if strings.Count(stdout, "\n") != 1 {
		t.Errorf("stdout with --log-format json is not one line:\n%s", stdout)
	}
	var res runjob.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("result line: %v\n%s", err, stdout)
	}
	if res.Status != "ok" || res.ExitCode != 0 || res.Period != "2026-W48" || len(res.EmailsSent) != testLeadCount ||
		res.Stages["upload"] != "ok" || res.Stages["email"] != "ok" || res.Stages["report"] != "ok" ||
		!slices.Equal(res.SnapshotsDeleted, []string{"weekly/2026-W40/finops-2026-W40.db.gz"}) {
		t.Errorf("result = %+v", res)
	}

	// The bucket: this week's files, the old report, not the old snapshot.
	wantKeys := append(week48Keys(true), "weekly/2026-W40/finops-2026-W40.xlsx")
	slices.Sort(wantKeys)
	if keys := e.keys(t); !slices.Equal(keys, wantKeys) {
		t.Errorf("bucket keys:\n got %v\nwant %v", keys, wantKeys)
	}
	types := map[string]string{".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
		".html": "text/html; charset=utf-8", ".json": "application/json", ".gz": "application/gzip"}
	for _, k := range week48Keys(true) {
		obj := w.s3.Get(t, e.bucket, k)
		if obj.ContentType != types[filepath.Ext(k)] || obj.Metadata["sha256"] != sha(obj.Body) {
			t.Errorf("%s: content type %q, sha256 metadata %q (body %s)", k, obj.ContentType, obj.Metadata["sha256"], sha(obj.Body))
		}
		if strings.HasSuffix(k, ".db.gz") {
			continue
		}
		if local := mustRead(t, filepath.Join(e.out, filepath.Base(k))); !bytes.Equal(local, obj.Body) {
			t.Errorf("%s: %d bytes in the bucket, %d in the out folder", k, len(obj.Body), len(local))
		}
	}
}

// checkDeliversSnapshot: the snapshot opens and has the database's row
// counts, which it returns.
func checkDeliversSnapshot(t *testing.T, w *pubWorld, e *pubEnv) map[string]int {
	t.Helper()
	// The snapshot opens and has the database's row counts.
	snap := w.s3.Get(t, e.bucket, "weekly/2026-W48/finops-2026-W48.db.gz")
	snapDB := filepath.Join(t.TempDir(), "snap.db")
	zr, err := gzip.NewReader(bytes.NewReader(snap.Body))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(snapDB, raw, 0o644)
	if err := store.CheckIntegrity(context.Background(), snapDB); err != nil {
		t.Error(err)
	}
	wantCounts, _ := e.store(t).Counts(context.Background())
	sst, err := store.Open(context.Background(), snapDB)
	if err != nil {
		t.Fatal(err)
	}
	gotCounts, _ := sst.Counts(context.Background())
	sst.Close()
	if fmt.Sprint(gotCounts) != fmt.Sprint(wantCounts) || wantCounts["billing_lines"] == 0 {
		t.Errorf("snapshot counts %v, database %v", gotCounts, wantCounts)
	}
	return wantCounts
}

// checkDeliversTextfile: the textfile for node-exporter says the run
// succeeded, and when.
func checkDeliversTextfile(t *testing.T, textfile string) {
	t.Helper()
	// The textfile for node-exporter.
	prom := string(mustRead(t, textfile))
	for _, want := range []string{"finops_last_run_success 1\n", fmt.Sprintf("finops_last_run_timestamp_seconds %d\n", now.Unix()),
		"# TYPE finops_last_run_success gauge\n", "finops_last_run_exit_code 0\n"} {
		if !strings.Contains(prom, want) {
			t.Errorf("textfile lacks %q:\n%s", want, prom)
		}
	}

}

// checkDeliversRerun: the same week again sends nothing new; --resend
// sends everyone the week again, once.
func checkDeliversRerun(t *testing.T, w *pubWorld, e *pubEnv) {
	t.Helper()
	code, stdout, stderr := e.run(t, "run", "--week", "2026-W48")
	if code != 0 || !strings.Contains(stdout, "5 recipients already have the 2026-W48 email") {
		t.Errorf("rerun: exit %d\n%s\n%s", code, stdout, stderr)
	}
	wantOneEach(t, w.mp)
	// --resend sends everyone the week again, once.
	if code, stdout, stderr = e.run(t, "run", "--week", "2026-W48", "--resend", "--no-upload"); code != 0 {
		t.Errorf("resend: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for r, n := range mailTo(t, w.mp) {
		if n != 2 {
			t.Errorf("after --resend %s has %d emails, want 2", r, n)
		}
	}
}

// checkDeliversLedger: the ledger holds the four runs and the uploaded
// artifacts under this week's keys.
func checkDeliversLedger(t *testing.T, e *pubEnv) {
	t.Helper()

	// The ledger.
	st := e.store(t)
	runs, _ := st.Runs(context.Background(), "2026-W48")
	if len(runs) != 4 || runs[0].Status != store.RunDryRun || runs[1].Status != store.RunOK || runs[3].Upload != store.StageSkipped {
		t.Errorf("runs = %+v", runs)
	}
	arts, _ := st.Artifacts(context.Background(), "2026-W48")
	for _, a := range arts {
		if a.Status != store.ArtifactUploaded || a.Key != "weekly/2026-W48/"+a.Name {
			t.Errorf("artifact %+v", a)
		}
	}

}

// checkDeliversRestore: restore brings the snapshot back; an existing
// database needs --force.
func checkDeliversRestore(t *testing.T, e *pubEnv, wantCounts map[string]int) {
	t.Helper()
	restored := filepath.Join(t.TempDir(), "restored.db")
	from := "s3://" + e.bucket + "/weekly"
	code, stdout, stderr := e.run(t, "--db", restored, "restore", "--from", from, "--period", "2026-W48")
	if code != 0 || !strings.Contains(stdout, "restored "+restored) {
		t.Fatalf("restore: exit %d\n%s\n%s", code, stdout, stderr)
	}
	rst, err := store.Open(context.Background(), restored)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := rst.Counts(context.Background()); fmt.Sprint(c) != fmt.Sprint(wantCounts) {
		t.Errorf("restored counts %v, want %v", c, wantCounts)
	}
	rst.Close()
	if code, _, stderr = e.run(t, "--db", restored, "restore", "--from", from, "--period", "2026-W48"); code != cli.ExitUsage ||
		!strings.Contains(stderr, "--force") {
		t.Errorf("restore over an existing database without --force: exit %d, %s", code, stderr)
	}
	if code, _, stderr = e.run(t, "--db", restored, "restore", "--from", from, "--period", "2026-W47", "--force"); code != cli.ExitFailed ||
		!strings.Contains(stderr, "no snapshot for 2026-W47") {
		t.Errorf("restore of a missing period: exit %d, %s", code, stderr)
	}
	if code, stdout, stderr = e.run(t, "--db", restored, "restore", "--from", from, "--period", "2026-W48", "--force"); code != 0 ||
		!strings.Contains(stdout, "the previous database is kept as "+restored+".before-restore-") {
		t.Errorf("restore --force: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// checkTeamEmails: each team lead's email is about their team only, with the
// right subject and a workbook that opens; the admin's covers everyone.
func checkTeamEmails(t *testing.T, mp *publishtest.Mailpit, s analysis.Result) {
	t.Helper()
	resources := map[string][]string{} // team → its resource ids
	for _, r := range s.ByResource {
		resources[r.Team] = append(resources[r.Team], r.ResourceID)
	}
	cost := map[string]float64{}
	for _, tc := range s.ByTeam {
		cost[tc.Team] = tc.Cost
	}
	for _, sum := range mp.Messages(t) {
		msg := mp.Message(t, sum.ID)
		to := msg.To[0].Address
		team := strings.TrimSuffix(to, "-lead@example.com")
		if len(msg.Attachments) != 1 {
			t.Errorf("%s: %d attachments", to, len(msg.Attachments))
			continue
		}
		att := msg.Attachments[0]
		wb, err := excelize.OpenReader(bytes.NewReader(mp.Attachment(t, msg.ID, att.PartID)))
		if err != nil {
			t.Errorf("%s: the workbook does not open: %v", to, err)
			continue
		}
		cells := workbookCells(wb)
		wb.Close()
		if to == "cto@example.com" {
			checkAdminEmail(t, msg, att.FileName, cells, resources)
			continue
		}
		checkLeadEmail(t, msg, team, att.FileName, cells, resources, cost)
	}
}

// workbookCells is every sheet's rows, tab-separated, one line a row.
func workbookCells(wb *excelize.File) string {
	var cells strings.Builder
	for _, sheet := range wb.GetSheetList() {
		rows, _ := wb.GetRows(sheet)
		for _, row := range rows {
			cells.WriteString(strings.Join(row, "\t") + "\n")
		}
	}
	return cells.String()
}

// checkAdminEmail: the admin's email covers every team's resources and
// links the published report.
func checkAdminEmail(t *testing.T, msg publishtest.Message, fileName, cells string, resources map[string][]string) {
	t.Helper()
	if fileName != "finops-2026-W48.xlsx" || !strings.HasPrefix(msg.Subject, "[finops] 2026-W48 · ") {
		t.Errorf("admin email: subject %q, attachment %q", msg.Subject, fileName)
	}
	for _, ids := range resources {
		for _, id := range ids {
			if !strings.Contains(msg.Text, id) && !strings.Contains(cells, id) {
				t.Errorf("admin email does not mention %s", id)
			}
		}
	}
	if !strings.Contains(msg.HTML, "https://reports.example.com/finops/weekly/2026-W48/finops-2026-W48.html") {
		t.Error("admin email does not link the published report")
	}
}

// checkLeadEmail: a team lead's email has the team's subject, workbook,
// page link and cost, and no other team's resources or cost.
func checkLeadEmail(t *testing.T, msg publishtest.Message, team, fileName, cells string, resources map[string][]string, cost map[string]float64) {
	t.Helper()
	to := msg.To[0].Address
	if want := "[finops] " + team + " · 2026-W48 · " + wholeMoney(cost[team]) + " · idle "; !strings.HasPrefix(msg.Subject, want) {
		t.Errorf("%s: subject %q, want it to start %q", to, msg.Subject, want)
	}
	if fileName != "finops-2026-W48-"+team+".xlsx" {
		t.Errorf("%s: attachment %q", to, fileName)
	}
	if link := "https://reports.example.com/finops/weekly/2026-W48/finops-2026-W48-" + team + ".html"; !strings.Contains(msg.HTML, link) {
		t.Errorf("%s: the email does not link the team's page %s", to, link)
	}
	if !strings.Contains(msg.Text, money(cost[team])) || !strings.Contains(msg.HTML, money(cost[team])) {
		t.Errorf("%s: body lacks the team's cost %s:\n%s", to, money(cost[team]), msg.Text)
	}
	for other, ids := range resources {
		if other == team {
			for _, id := range ids {
				if !strings.Contains(cells, id) {
					t.Errorf("%s: the workbook lacks the team's resource %s", to, id)
				}
			}
			continue
		}
		for _, id := range ids {
			for where, text := range map[string]string{"text": msg.Text, "html": msg.HTML, "workbook": cells} {
				if strings.Contains(text, id) {
					t.Errorf("%s: the %s mentions %s, a resource of team %s", to, where, id, other)
				}
			}
		}
		if c := money(cost[other]); cost[other] != cost[team] && (strings.Contains(msg.Text, c) || strings.Contains(msg.HTML, c)) {
			t.Errorf("%s: the body shows %s, team %s's cost", to, c, other)
		}
	}
}

// testS3Down: with S3 stopped the run still writes its report, exits 4 and
// says so; the next run, with S3 back, uploads it.
func testS3Down(t *testing.T, w *pubWorld) {
	e := w.env(t, 0, "")
	w.s3.Stop()
	code, stdout, stderr := e.run(t, "run", "--week", "2026-W48", "--no-email")
	w.s3.Start()
	if code != cli.ExitPublish {
		t.Fatalf("run with S3 stopped: exit %d, want %d\n%s\n%s", code, cli.ExitPublish, stdout, stderr)
	}
	if !strings.Contains(stdout, "upload of finops-2026-W48.") || !strings.Contains(stderr, "the next run retries") {
		t.Errorf("the run does not say what failed:\n%s\n%s", stdout, stderr)
	}
	for _, ext := range []string{"xlsx", "html", "json"} {
		if _, err := os.Stat(filepath.Join(e.out, "finops-2026-W48."+ext)); err != nil {
			t.Errorf("report not written locally: %v", err)
		}
	}
	if keys := e.keys(t); len(keys) != 0 {
		t.Errorf("bucket holds %v", keys)
	}
	json1 := mustRead(t, filepath.Join(e.out, "finops-2026-W48.json"))

	// The next run uploads what the first could not.
	if code, stdout, stderr = e.run(t, "run", "--week", "2026-W48", "--no-email"); code != 0 {
		t.Fatalf("next run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if keys := e.keys(t); !slices.Equal(keys, week48Keys(false)) {
		t.Errorf("bucket keys %v, want %v", keys, week48Keys(false))
	}
	if obj := w.s3.Get(t, e.bucket, "weekly/2026-W48/finops-2026-W48.json"); !bytes.Equal(obj.Body, json1) {
		t.Error("the uploaded summary differs from the one the failed run wrote")
	}
	runs, _ := e.store(t).Runs(context.Background(), "2026-W48")
	if len(runs) != 2 || runs[0].Status != store.RunPublishFailed || runs[0].Upload != store.StageFailed || runs[1].Status != store.RunOK {
		t.Errorf("runs = %+v", runs)
	}
}

// testSMTPRefuses: with the mail server refusing, the run exits 4; the next
// run sends; the one after sends nothing new.
func testSMTPRefuses(t *testing.T, w *pubWorld) {
	e := w.env(t, 0, "")
	w.mp.RefuseRecipients(t, 550)
	code, stdout, stderr := e.run(t, "run", "--week", "2026-W48", "--no-upload")
	w.mp.RefuseRecipients(t, 0)
	if code != cli.ExitPublish {
		t.Fatalf("run with SMTP refusing: exit %d, want %d\n%s\n%s", code, cli.ExitPublish, stdout, stderr)
	}
	if !strings.Contains(stdout, "email to team nlp 2026-W48 (nlp-lead@example.com) failed: smtp rcpt: 550") {
		t.Errorf("the run does not say what failed:\n%s", stdout)
	}
	if n := len(w.mp.Messages(t)); n != 0 {
		t.Errorf("%d emails got through", n)
	}
	if code, stdout, stderr = e.run(t, "run", "--week", "2026-W48", "--no-upload"); code != 0 {
		t.Fatalf("next run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	wantOneEach(t, w.mp)
	if code, stdout, stderr = e.run(t, "run", "--week", "2026-W48", "--no-upload"); code != 0 {
		t.Fatalf("third run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	wantOneEach(t, w.mp)
	st, _ := e.store(t).EmailStatuses(context.Background(), "2026-W48")
	for _, s := range st {
		if s.Status != store.EmailSent || s.Attempts != 2 {
			t.Errorf("ledger: %+v", s)
		}
	}
}

// stallProxy forwards TCP connections to target, except that from
// connection number pass+1 on it holds them (no byte either way) until
// release: a run stops at a known point in its email stage.
type stallProxy struct {
	*proxytest.Proxy
	held    chan struct{} // one value per held connection
	release chan struct{}
	once    sync.Once
}

func newStallProxy(t *testing.T, target string, pass int) *stallProxy {
	t.Helper()
	p := &stallProxy{held: make(chan struct{}, 16), release: make(chan struct{})}
	p.Proxy = proxytest.Start(t, target, func(n int, c net.Conn, dial func() (net.Conn, error)) {
		if n > pass {
			select {
			case p.held <- struct{}{}:
			default:
			}
			<-p.release
		}
		proxytest.Forward(n, c, dial)
	})
	t.Cleanup(p.Release)
	return p
}

func (p *stallProxy) Release() { p.once.Do(func() { close(p.release) }) }

func waitHeld(t *testing.T, p *stallProxy, what string) {
	t.Helper()
	select {
	case <-p.held:
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: the run never reached the mail server", what)
	}
}

// testKilledMidRun: a run killed with SIGKILL in the middle of sending (two
// emails out, the third on the wire) leaves a database the next run
// completes from, and nobody gets an email twice.
func testKilledMidRun(t *testing.T, w *pubWorld) {
	proxy := newStallProxy(t, fmt.Sprintf("127.0.0.1:%d", w.mp.SMTPPort), 2)
	e := w.env(t, proxy.Port(), "")
	var out, errb bytes.Buffer
	cmd := e.start(t, &out, &errb, "run", "--week", "2026-W48")
	waitHeld(t, proxy, "kill -9")
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if n := len(w.mp.Messages(t)); n != 2 {
		t.Fatalf("before the kill %d emails went out, want 2\n%s\n%s", n, out.String(), errb.String())
	}
	proxy.Release()

	code, stdout, stderr := e.run(t, "run", "--week", "2026-W48")
	if code != 0 {
		t.Fatalf("run after the kill: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "an earlier run was interrupted") {
		t.Errorf("the run does not mention the interrupted one:\n%s", stdout)
	}
	wantOneEach(t, w.mp)
	if keys := e.keys(t); !slices.Equal(keys, week48Keys(true)) {
		t.Errorf("bucket keys %v, want %v", keys, week48Keys(true))
	}
	st := e.store(t)
	runs, _ := st.Runs(context.Background(), "2026-W48")
	if len(runs) != 2 || runs[0].Status != store.RunInterrupted || runs[1].Status != store.RunOK {
		t.Errorf("runs = %+v", runs)
	}
	if err := store.CheckIntegrity(context.Background(), e.db); err != nil {
		t.Error(err)
	}
}

// testTwoRunsAtOnce: of two runs started together, one runs and the other
// refuses at once with exit 5 and a clear message; nothing is sent twice.
func testTwoRunsAtOnce(t *testing.T, w *pubWorld) {
	proxy := newStallProxy(t, fmt.Sprintf("127.0.0.1:%d", w.mp.SMTPPort), 0)
	e := w.env(t, proxy.Port(), "")
	var out [2]bytes.Buffer
	var errb [2]bytes.Buffer
	var cmds [2]*exec.Cmd
	for i := range cmds {
		cmds[i] = e.start(t, &out[i], &errb[i], "--log-format", "json", "run", "--week", "2026-W48")
	}
	// One run holds the lock and waits on the mail server; the other must
	// have given up on its own.
	waitHeld(t, proxy, "two runs")
	refused := make(chan int, 2)
	for i, c := range cmds {
		go func() { c.Wait(); refused <- i }()
	}
	var loser int
	select {
	case loser = <-refused:
	case <-time.After(30 * time.Second):
		t.Fatal("neither run refused while the other held the lock")
	}
	winner := 1 - loser
	if code := cmds[loser].ProcessState.ExitCode(); code != cli.ExitBusy {
		t.Errorf("refused run: exit %d, want %d\n%s\n%s", code, cli.ExitBusy, out[loser].String(), errb[loser].String())
	}
	if !strings.Contains(errb[loser].String(), "another finops run is in progress") {
		t.Errorf("refused run's message:\n%s", errb[loser].String())
	}
	var res runjob.Result
	if err := json.Unmarshal(out[loser].Bytes(), &res); err != nil || res.Status != "busy" || res.ExitCode != cli.ExitBusy {
		t.Errorf("refused run's result line %q: %v", out[loser].String(), err)
	}
	proxy.Release()
	<-refused
	if code := cmds[winner].ProcessState.ExitCode(); code != 0 {
		t.Errorf("the run that held the lock: exit %d\n%s\n%s", code, out[winner].String(), errb[winner].String())
	}
	wantOneEach(t, w.mp)
	runs, _ := e.store(t).Runs(context.Background(), "")
	if len(runs) != 1 || runs[0].Status != store.RunOK {
		t.Errorf("runs = %+v (the refused run must leave no trace)", runs)
	}
}

// testNoSecrets runs with known secrets in the environment — once
// delivering, once failing with wrong credentials so that errors are
// printed — and finds them in no output, log, report, database, uploaded
// object or email.
func testNoSecrets(t *testing.T, w *pubWorld) {
	e := w.env(t, 0, "")
	code, stdout, stderr := e.run(t, "-v", "--log-format", "json", "run", "--week", "2026-W48")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	outputs := stdout + stderr
	// Wrong credentials, also known: the servers refuse, the run prints errors.
	e.vars["T_S3_SECRET"] = "wrong-S3-" + testSecretKey
	e.vars["T_SMTP_PASS"] = "wrong-PW-" + testSMTPPass
	code, stdout, stderr = e.run(t, "-v", "run", "--week", "2026-W48", "--resend")
	if code != cli.ExitPublish {
		t.Fatalf("run with wrong credentials: exit %d, want %d\n%s\n%s", code, cli.ExitPublish, stdout, stderr)
	}
	if !strings.Contains(stdout, "smtp auth: 535") || !strings.Contains(stdout, "upload of") {
		t.Errorf("the failures are not reported:\n%s", stdout)
	}
	outputs += stdout + stderr
	secrets := []string{testSecretKey, testSMTPPass, e.vars["T_S3_SECRET"], e.vars["T_SMTP_PASS"]}

	var haystack []struct{ where, text string }
	add := func(where string, b []byte) {
		haystack = append(haystack, struct{ where, text string }{where, string(b)})
	}
	add("stdout/stderr", []byte(outputs))
	filepath.Walk(e.dir, func(path string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			add(path, mustRead(t, path)) // reports, team workbooks, the database and its WAL
		}
		return nil
	})
	for _, k := range e.keys(t) {
		body := w.s3.Get(t, e.bucket, k).Body
		if strings.HasSuffix(k, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			body, _ = io.ReadAll(zr)
		}
		add("s3://"+k, body)
	}
	for _, m := range w.mp.Messages(t) {
		add("email "+m.ID, w.mp.Raw(t, m.ID))
	}
	for _, h := range haystack {
		for _, s := range secrets {
			if strings.Contains(h.text, s) {
				t.Errorf("%s contains a secret (%.8s…)", h.where, s)
			}
		}
	}
	if len(haystack) < 10 {
		t.Errorf("only %d places searched", len(haystack))
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRunPublishConfigErrors: a missing secret is a configuration error
// (exit 2) that names the variable, not a value.
func TestRunPublishConfigErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "finops.yaml")
	os.WriteFile(cfg, []byte(`
billing: [{path: `+filepath.Join(dir, "none.csv")+`}]
database: `+filepath.Join(dir, "f.db")+`
publish:
  s3: {bucket: b, access_key_env: T_KEY, secret_key_env: T_SECRET}
`), 0o644)
	code, _, stderr := runFinops(t, "--config", cfg, "run", "--week", "2026-W48")
	if code != cli.ExitUsage || !strings.Contains(stderr, "environment variable T_KEY is not set") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	os.WriteFile(cfg, []byte(`
publish:
  smtp: {host: smtp.example.com, tls: none, from: f@example.com}
`), 0o644)
	if code, _, stderr := runFinops(t, "--config", cfg, "run"); code != cli.ExitUsage || !strings.Contains(stderr, "plaintext") {
		t.Errorf("plaintext SMTP to a remote host: exit %d: %s", code, stderr)
	}
}
