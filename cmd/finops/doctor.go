package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/deliver"
	"github.com/finops-oss/finops/ingest/prom"
	"github.com/finops-oss/finops/publish"
	"github.com/finops-oss/finops/sanitize"
	"github.com/finops-oss/finops/store"
	"github.com/spf13/cobra"
)

// doctorTimeout bounds each check: a server that does not answer is a
// finding, not a hang.
const doctorTimeout = time.Minute

// Check verdicts, the first word of each line.
const (
	checkOK   = "OK"
	checkFail = "FAIL"
	checkSkip = "SKIP"
)

func (m *Main) doctorCommand() *cobra.Command {
	var sendTo string
	cmd := &cobra.Command{
		Use:   "doctor [--send-test ADDRESS]",
		Short: "Check the config, the database, every source, Prometheus, S3 and SMTP",
		Long: "doctor checks what a run needs, one line per check (OK, FAIL or SKIP, and what to do):\n" +
			"the config; the database (opens read-only, PRAGMA quick_check, schema version); each configured\n" +
			"source (its files are found and readable, the format of the first one is detected; nothing is\n" +
			"imported); each Prometheus server (one query over the last five minutes); S3 (a probe object\n" +
			"put, read back and deleted under the prefix); SMTP (connect, STARTTLS, AUTH; --send-test sends\n" +
			"one email). It exits 0 when nothing failed, 2 when the config cannot be loaded, else 1.",
		Example: "  finops doctor\n  finops doctor --send-test me@example.com",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return m.doctor(cmd.Context(), sendTo)
		},
	}
	cmd.Flags().StringVar(&sendTo, "send-test", "", "also send one test email to this address")
	return cmd
}

// doctorRun prints the checks' lines and counts the failures.
type doctorRun struct {
	m             *Main
	failed, total int
}

// line prints one check's verdict; detail may quote addresses and errors,
// so secrets are taken out of it.
func (d *doctorRun) line(verdict, name, detail string, secrets ...string) {
	d.total++
	if verdict == checkFail {
		d.failed++
	}
	if d.m.quiet && verdict != checkFail {
		return // --quiet: the failures, and the error counting them
	}
	// One line per check: a multi-line error (YAML's) is joined.
	detail = strings.Join(strings.Fields(redact(detail, secrets...)), " ")
	fmt.Fprintf(d.m.Stdout, "%-4s  %-12s  %s\n", verdict, name, sanitize.Text(detail))
}

func (m *Main) doctor(ctx context.Context, sendTo string) error {
	d := &doctorRun{m: m}
	name := cmp.Or(m.configPath, m.Getenv("FINOPS_CONFIG"), "finops.yaml")
	c, _, err := m.loadConfig()
	if err != nil {
		d.line(checkFail, "config", err.Error())
		return err // a usage error: exit 2
	}
	specs, err := configSources(c)
	if err != nil {
		d.line(checkFail, "config", err.Error())
		return err
	}
	d.line(checkOK, "config", fmt.Sprintf("%s: %d sources, %d Prometheus servers", name, len(specs), len(c.Telemetry.Prometheus)))

	d.database(ctx, c)
	if len(specs) == 0 {
		d.line(checkSkip, "sources", "none configured: add billing:, utilization: or tasks: entries to the config")
	}
	for _, s := range specs {
		d.source(ctx, c, s)
	}
	for _, p := range c.Telemetry.Prometheus {
		d.prometheus(ctx, c, p)
	}
	d.s3(ctx, c.Publish.S3)
	d.smtp(ctx, c.Publish.SMTP, sendTo)
	if d.failed > 0 {
		return fmt.Errorf("doctor: %d of %d checks failed", d.failed, d.total)
	}
	return nil
}

func (d *doctorRun) database(ctx context.Context, c *config.Config) {
	path := d.m.databasePath(c)
	if missing, err := checkDatabase(path); missing {
		d.line(checkSkip, "database", fmt.Sprintf("no database at %s yet: the first `finops ingest` or `finops run` creates it", path))
		return
	} else if err != nil {
		d.line(checkFail, "database", err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	version, err := store.Diagnose(ctx, path)
	want := store.SchemaVersion()
	switch {
	case err != nil:
		d.line(checkFail, "database", fmt.Sprintf("%v: bring back a snapshot with `finops restore --period <week>`", err))
	case version > want:
		d.line(checkFail, "database", fmt.Sprintf("%s has schema version %d, newer than this finops (%d): upgrade finops", path, version, want))
	case version < want:
		d.line(checkOK, "database", fmt.Sprintf("%s: quick_check ok, schema %d (the next run migrates it to %d)", path, version, want))
	default:
		d.line(checkOK, "database", fmt.Sprintf("%s: quick_check ok, schema %d", path, version))
	}
}

// source finds a source's files and parses the first one as an import
// would, storing nothing.
func (d *doctorRun) source(ctx context.Context, c *config.Config, s sourceSpec) {
	name := "source"
	if s.kind != "" {
		name = s.kind
	}
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	plan, err := d.m.planSource(ctx, c, s.name)
	if err != nil {
		d.line(checkFail, name, fmt.Sprintf("%s: %v: fix its path in the config", s.name, err))
		return
	}
	defer plan.close()
	if len(plan.Files) == 0 {
		why := "no files"
		if len(plan.Errs) > 0 {
			why = plan.Errs[0].Error()
		}
		d.line(checkFail, name, fmt.Sprintf("%s: %s: fix its path in the config", s.name, why))
		return
	}
	first := plan.Files[0].Path
	sum, err := checkFile(ctx, c, s, first, plan.uri(first), &checkSink{})
	if err != nil {
		d.line(checkFail, name, fmt.Sprintf("%v: see `finops ingest --check %s`", err, s.name))
		return
	}
	d.line(checkOK, name, fmt.Sprintf("%s: %d files; the first, %s: %s", s.name, len(plan.Files), plan.uri(first), describe(sum)))
}

func (d *doctorRun) prometheus(ctx context.Context, c *config.Config, p config.Prometheus) {
	src, err := c.PromSource(p, d.m.Getenv)
	if err != nil {
		d.line(checkFail, "prometheus", fmt.Sprintf("%s: %v", promName(p), err))
		return
	}
	client, err := prom.New(src)
	if err != nil {
		d.line(checkFail, "prometheus", err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	n, err := client.Check(ctx, d.m.Now())
	switch {
	case err != nil:
		d.line(checkFail, "prometheus", fmt.Sprintf("%v: check utilization.prometheus url and credentials, and the query", err))
	case n == 0:
		d.line(checkFail, "prometheus", fmt.Sprintf("%s answers, but its utilization query has no series in the last 5 minutes: "+
			"check that the exporter (dcgm-exporter) is scraped, or the config's query", promName(p)))
	default:
		d.line(checkOK, "prometheus", fmt.Sprintf("%s: %d GPU series in the last 5 minutes", promName(p), n))
	}
}

func (d *doctorRun) s3(ctx context.Context, s config.S3) {
	if s.Bucket == "" {
		d.line(checkSkip, "s3", "publish.s3.bucket is not set: reports are not uploaded")
		return
	}
	sc, secrets, err := deliver.S3Settings(ctx, s, d.m.Getenv)
	if err != nil {
		d.line(checkFail, "s3", err.Error())
		return
	}
	// A doctor answers in seconds: two tries, not a run's patient retries.
	sc.MaxAttempts, sc.MaxBackoff = 2, time.Second
	client, err := publish.NewS3(ctx, sc)
	if err != nil {
		d.line(checkFail, "s3", err.Error(), secrets...)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	key, err := client.Probe(ctx)
	at := ""
	if s.Endpoint != "" {
		at = " at " + sanitize.URL(s.Endpoint)
	}
	if err != nil {
		d.line(checkFail, "s3", err.Error(), secrets...)
		return
	}
	d.line(checkOK, "s3", fmt.Sprintf("put, read back and deleted %s%s", client.URL(key), at), secrets...)
}

func (d *doctorRun) smtp(ctx context.Context, s config.SMTP, sendTo string) {
	if s.Host == "" {
		if sendTo != "" {
			d.line(checkFail, "smtp", "--send-test: publish.smtp.host is not set")
			return
		}
		d.line(checkSkip, "smtp", "publish.smtp.host is not set: no email is sent")
		return
	}
	pass, err := s.Password(ctx, d.m.Getenv)
	if err != nil {
		d.line(checkFail, "smtp", err.Error())
		return
	}
	sc, err := deliver.SMTPSettings(ctx, s, pass)
	if err != nil {
		d.line(checkFail, "smtp", err.Error(), pass)
		return
	}
	tr, err := publish.NewTransport(*sc)
	if err != nil {
		d.line(checkFail, "smtp", err.Error(), pass)
		return
	}
	// The address and TLS mode as the transport resolves their defaults.
	addr := sc.Addr()
	steps := "connected"
	switch sc.TLSMode() {
	case publish.TLSStartTLS:
		steps += ", STARTTLS"
	case publish.TLSImplicit:
		steps += ", TLS"
	}
	if s.User != "" {
		steps += ", AUTH as " + s.User
	}
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	if err := tr.Check(ctx); err != nil {
		d.line(checkFail, "smtp", fmt.Sprintf("%s: %v%s", addr, err, smtpHint(err)), pass)
		return
	}
	d.line(checkOK, "smtp", addr+": "+steps, pass)
	if sendTo == "" {
		return
	}
	now := d.m.Now()
	msg, err := publish.BuildMessage(publish.Mail{From: s.From, To: []string{sendTo}, Date: now,
		Subject:   "finops doctor: test email",
		Text:      "This is a test email from `finops doctor --send-test`: the weekly reports will come this way.\n",
		MessageID: publish.MessageID("doctor-"+now.UTC().Format("20060102T150405"), sendTo, 1, s.From)})
	if err != nil {
		d.line(checkFail, "smtp send", fmt.Sprintf("--send-test %s: %v", sendTo, err))
		return
	}
	res, err := tr.Send(ctx, s.From, []string{sendTo}, msg)
	if err == nil && len(res.Accepted) == 0 {
		err = errors.New("the server accepted no recipient")
	}
	if err != nil {
		d.line(checkFail, "smtp send", fmt.Sprintf("to %s: %v%s", sendTo, err, smtpHint(err)), pass)
		return
	}
	d.line(checkOK, "smtp send", fmt.Sprintf("a test email to %s, from %s", sendTo, s.From))
}

// smtpHint says which setting an SMTP failure points at.
func smtpHint(err error) string {
	var se *publish.SMTPError
	if !errors.As(err, &se) {
		return ""
	}
	switch se.Op {
	case "connect":
		return ": check publish.smtp.host and port, and that this host may reach it"
	case "tls", "starttls":
		return ": check publish.smtp.tls (starttls on 587, implicit on 465) and ca_file"
	case "auth":
		return ": check publish.smtp.user and the password in its password_env or password_file"
	case "mail", "rcpt":
		return ": check publish.smtp.from and the recipient"
	}
	return ""
}
