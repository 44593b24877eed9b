// Package doctor checks what a run needs — the database, every configured
// source, each Prometheus server, S3, SMTP and each chat channel — and
// returns one finding per check (OK, FAIL or SKIP, and what to do). It
// imports nothing into the store, posts nothing to a chat channel and
// changes nothing but a probe object it deletes again; `finops doctor`
// loads the config and prints the findings.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/deliver"
	"github.com/finops-oss/finops/internal/importer"
	"github.com/finops-oss/finops/internal/ingest/prom"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/telemetry"
)

// Timeout bounds each check: a server that does not answer is a finding,
// not a hang.
const Timeout = time.Minute

// Verdicts, the first word of each finding's line.
const (
	OK   = "OK"
	Fail = "FAIL"
	Skip = "SKIP"
)

// Finding is one check's verdict. Detail is one line that may quote
// addresses and errors, with the secrets of the check taken out.
type Finding struct {
	Verdict string
	Check   string // config, database, billing, utilization, tasks, prometheus, s3, smtp, smtp send, chat
	Detail  string
}

// NewFinding is a finding whose detail has secrets and every URL's
// password taken out (sanitize.Redact) and is joined into one line (a YAML
// error spans several).
func NewFinding(verdict, check, detail string, secrets ...string) Finding {
	return Finding{verdict, check, strings.Join(strings.Fields(sanitize.Redact(detail, secrets...)), " ")}
}

// Options is what the checks work with.
type Options struct {
	Config   *config.Config
	Specs    []source.Spec // the config's sources (source.FromConfig)
	Sources  source.Planner
	Database string // the database's path
	SendTo   string // --send-test: also send one test email here
	Now      func() time.Time
	Getenv   func(string) string
	// ChatClient is the chat channels' HTTP client, whose proxy and TLS
	// roots the reachability probe uses (nil: the default, as the watch's).
	ChatClient *http.Client
}

// Run runs every check but the config's, handing each finding to found as
// soon as it is made (a check may take up to Timeout), and returns them.
func Run(ctx context.Context, o Options, found func(Finding)) []Finding {
	d := &run{o: o, found: found}
	d.database(ctx)
	if len(o.Specs) == 0 {
		d.line(Skip, "sources", "none configured: add billing:, utilization: or tasks: entries to the config")
	}
	for _, s := range o.Specs {
		d.source(ctx, s)
	}
	for _, p := range o.Config.Telemetry.Prometheus {
		d.prometheus(ctx, p)
	}
	d.s3(ctx, o.Config.Publish.S3)
	d.smtp(ctx, o.Config.Publish.SMTP, o.SendTo)
	for i, ch := range o.Config.Watch.Channels {
		d.chat(ctx, i, ch)
	}
	return d.all
}

// Failed counts the failed findings.
func Failed(fs []Finding) int {
	n := 0
	for _, f := range fs {
		if f.Verdict == Fail {
			n++
		}
	}
	return n
}

type run struct {
	o     Options
	found func(Finding)
	all   []Finding
}

func (d *run) line(verdict, name, detail string, secrets ...string) {
	f := NewFinding(verdict, name, detail, secrets...)
	d.all = append(d.all, f)
	if d.found != nil {
		d.found(f)
	}
}

func (d *run) database(ctx context.Context) {
	path := d.o.Database
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.line(Skip, "database", fmt.Sprintf("no database at %s yet: the first `finops ingest` or `finops run` creates it", path))
		return
	case err != nil:
		d.line(Fail, "database", fmt.Sprintf("open database: %v", err))
		return
	case !fi.Mode().IsRegular():
		d.line(Fail, "database", fmt.Sprintf("database %s is not a regular file: point --db or the config's database key at the SQLite file", path))
		return
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	version, err := store.Diagnose(ctx, path)
	want := store.SchemaVersion()
	switch {
	case err != nil:
		d.line(Fail, "database", fmt.Sprintf("%v: bring back a snapshot with `finops restore --period <week>`", err))
	case version > want:
		d.line(Fail, "database", fmt.Sprintf("%s has schema version %d, newer than this finops (%d): upgrade finops", path, version, want))
	case version < want:
		d.line(OK, "database", fmt.Sprintf("%s: quick_check ok, schema %d (the next run migrates it to %d)", path, version, want))
	default:
		d.line(OK, "database", fmt.Sprintf("%s: quick_check ok, schema %d", path, version))
	}
}

// source finds a source's files and parses the first one as an import
// would, storing nothing.
func (d *run) source(ctx context.Context, s source.Spec) {
	name := "source"
	if s.Kind != "" {
		name = s.Kind
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	plan, err := d.o.Sources.Plan(ctx, s.Name)
	if err != nil {
		d.line(Fail, name, fmt.Sprintf("%s: %v: fix its path in the config", s.Name, err))
		return
	}
	defer plan.Close()
	if len(plan.Files) == 0 {
		why := "no files"
		if len(plan.Errs) > 0 {
			why = plan.Errs[0].Error()
		}
		d.line(Fail, name, fmt.Sprintf("%s: %s: fix its path in the config", s.Name, why))
		return
	}
	first := plan.Files[0].Path
	sum, err := importer.CheckFile(ctx, d.o.Config, s, first, plan.URI(first), &importer.CheckSink{})
	if err != nil {
		d.line(Fail, name, fmt.Sprintf("%v: see `finops ingest --check %s`", err, s.Name))
		return
	}
	d.line(OK, name, fmt.Sprintf("%s: %d files; the first, %s: %s", s.Name, len(plan.Files), plan.URI(first), importer.Describe(sum)))
}

func (d *run) prometheus(ctx context.Context, p config.Prometheus) {
	name := telemetry.ServerName(p)
	src, err := telemetry.PromSource(d.o.Config, p, d.o.Getenv)
	if err != nil {
		d.line(Fail, "prometheus", fmt.Sprintf("%s: %v", name, err))
		return
	}
	client, err := prom.New(src)
	if err != nil {
		d.line(Fail, "prometheus", err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	n, err := client.Check(ctx, d.o.Now())
	switch {
	case err != nil:
		d.line(Fail, "prometheus", fmt.Sprintf("%v: check utilization.prometheus url and credentials, and the query", err))
	case n == 0:
		d.line(Fail, "prometheus", fmt.Sprintf("%s answers, but its utilization query has no series in the last 5 minutes: "+
			"check that the exporter (dcgm-exporter) is scraped, or the config's query", name))
	default:
		d.line(OK, "prometheus", fmt.Sprintf("%s: %d GPU series in the last 5 minutes", name, n))
	}
}

func (d *run) s3(ctx context.Context, s config.S3) {
	if s.Bucket == "" {
		d.line(Skip, "s3", "publish.s3.bucket is not set: reports are not uploaded")
		return
	}
	sc, secrets, err := deliver.S3Settings(ctx, s, d.o.Getenv)
	if err != nil {
		d.line(Fail, "s3", err.Error())
		return
	}
	// A doctor answers in seconds: two tries, not a run's patient retries.
	sc.MaxAttempts, sc.MaxBackoff = 2, time.Second
	client, err := publish.NewS3(ctx, sc)
	if err != nil {
		d.line(Fail, "s3", err.Error(), secrets...)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	key, err := client.Probe(ctx)
	at := ""
	if s.Endpoint != "" {
		at = " at " + sanitize.URL(s.Endpoint)
	}
	if err != nil {
		d.line(Fail, "s3", err.Error(), secrets...)
		return
	}
	d.line(OK, "s3", fmt.Sprintf("put, read back and deleted %s%s", client.URL(key), at), secrets...)
}
