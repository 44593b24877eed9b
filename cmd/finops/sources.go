package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/deliver"
	"github.com/finops-oss/finops/fetch"
	"github.com/finops-oss/finops/ingest"
	"github.com/finops-oss/finops/publish"
	"github.com/finops-oss/finops/store"
)

// sourceSpec is one configured (or command-line) source: a path, folder or
// glob plus what its files do not say themselves.
type sourceSpec struct {
	name     string // as the user wrote it
	kind     string // billing, utilization, tasks, or "" (detect)
	format   string
	host     string
	location *time.Location
	mappings []ingest.ColumnMapping
	currency string        // of billing lines whose file leaves it blank (--currency, or the source's currency:)
	interval time.Duration // telemetry files that do not say how often they are written (dcgm scrapes)
	// smiFields is the --query-gpu list of headerless nvidia-smi logs (--fields, fields:).
	smiFields []string
	// scrapeAt is when scrapes without sample timestamps were taken (ingest
	// --at); notes gets the line saying a scrape's time is its file's
	// modification time (scrapeTime).
	scrapeAt time.Time
	notes    io.Writer
	// inProgress globs the files still being written (an NVML spool's
	// .csv.part): only the watch reads them, by their tail.
	inProgress string
	// replace imports its files again on purpose (ingest --replace).
	replace bool
}

// configSources lists every source in the config.
func configSources(c *config.Config) ([]sourceSpec, error) {
	loc, err := c.Location()
	if err != nil {
		return nil, usageError{err}
	}
	mappings, err := c.ColumnMappings()
	if err != nil {
		return nil, usageError{err}
	}
	var out []sourceSpec
	for _, b := range c.Billing {
		s := sourceSpec{name: b.Path, kind: ingest.KindBilling, format: b.Format, location: loc, mappings: mappings,
			currency: strings.ToUpper(strings.TrimSpace(b.Currency))}
		if b.Mapping != "" {
			s.mappings = nil
			for _, m := range mappings {
				if m.Name == b.Mapping {
					s.mappings = append(s.mappings, m)
				}
			}
			if s.format == "" {
				s.format = ingest.FormatRental
			}
		}
		out = append(out, s)
	}
	for _, h := range c.Telemetry.NvidiaSMI {
		hl := loc
		if h.Timezone != "" {
			if hl, err = time.LoadLocation(h.Timezone); err != nil {
				return nil, usagef("utilization.nvidia_smi %s: %v", h.Path, err)
			}
		}
		fields, err := h.SMIFields()
		if err != nil {
			return nil, usagef("utilization.nvidia_smi %s: fields: %v", h.Path, err)
		}
		out = append(out, sourceSpec{name: h.Path, kind: ingest.KindUtilization, format: ingest.FormatNvidiaSMI,
			host: h.Host, location: hl, smiFields: fields})
	}
	out = append(out, telemetrySources(c)...)
	for _, t := range c.Tasks {
		out = append(out, sourceSpec{name: t.Path, kind: ingest.KindTasks, format: ingest.FormatTasks, location: loc})
	}
	return out, nil
}

// configuredSourceOf finds the configured billing source that reads path:
// the same path, or a glob of the config that matches it.
func configuredSourceOf(c *config.Config, path string) (sourceSpec, bool, error) {
	specs, err := configSources(c)
	if err != nil {
		return sourceSpec{}, false, err
	}
	clean := filepath.Clean(path)
	for _, s := range specs {
		if s.kind != ingest.KindBilling {
			continue
		}
		if s.name == path || filepath.Clean(s.name) == clean {
			return s, true, nil
		}
		if ok, _ := filepath.Match(s.name, path); ok {
			return s, true, nil
		}
		if ok, _ := filepath.Match(filepath.Clean(s.name), clean); ok {
			return s, true, nil
		}
	}
	return sourceSpec{}, false, nil
}

// sourceFiles expands a source and plans its deliveries: where the files
// include billing-export manifests (AWS CUR, AWS Data Exports, Azure), only
// the files of each billing period's latest delivery are imported, keyed so
// that the store replaces earlier deliveries (ingest.PlanDeliveries).
func sourceFiles(pattern string) (*ingest.DeliveryPlan, error) {
	x, err := expand(pattern)
	if err != nil {
		return nil, err
	}
	plan := ingest.PlanDeliveriesWithin(x.files, sourceRoot(pattern))
	plan.Errs = append(x.refused, plan.Errs...)
	plan.Notes = append(x.notes, plan.Notes...)
	return plan, nil
}

// sourceRoot is the folder a source may read from: the folder itself, the
// static part of a glob, and for a single file no limit (a manifest named
// by hand may list files in a sibling folder, as Data Exports' do).
func sourceRoot(pattern string) string {
	if i := strings.IndexAny(pattern, "*?["); i >= 0 {
		return filepath.Dir(pattern[:i] + "x")
	}
	if fi, err := os.Stat(pattern); err == nil && fi.IsDir() {
		return pattern
	}
	return ""
}

// expansion is what a path, folder or glob names.
type expansion struct {
	files   []string // regular files (or links to them), sorted
	refused []error  // entries that are not regular files
	notes   []string // links to folders inside a folder, not followed
}

// expand turns a path, folder or glob into the files it names. A pattern
// that matches nothing is an error: a source that silently yields no files
// would make missing data look like zero spend. A path that exists is taken
// as it is, even when its name holds glob characters (a '[' of an escape
// sequence, "bill [copy].csv"). Entries that are not
// regular files (a FIFO, socket or device; a folder a glob matched) are
// refused one by one, from their stat, and never opened: the source's other
// files are still read. Links are followed to files, as a glob and a named
// file are, but not to folders inside a walked folder (no loops, no file
// read twice); those are named in a note.
func expand(pattern string) (*expansion, error) {
	x := &expansion{}
	keep := func(p string) {
		if err := ingest.CheckRegular(p); err != nil {
			x.refused = append(x.refused, err)
			return
		}
		x.files = append(x.files, p)
	}
	if _, err := os.Lstat(pattern); err != nil && strings.ContainsAny(pattern, "*?[") {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("%s: bad pattern: %w", pattern, err)
		}
		for _, p := range m {
			keep(p)
		}
	} else {
		fi, err := os.Stat(pattern)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pattern, err)
		}
		if !fi.IsDir() {
			if err := ingest.CheckRegular(pattern); err != nil {
				return nil, err
			}
			return &expansion{files: []string{pattern}}, nil
		}
		err = filepath.WalkDir(pattern, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.HasPrefix(d.Name(), ".") && p != pattern {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				if fi, err := os.Stat(p); err == nil && fi.IsDir() {
					x.notes = append(x.notes, fmt.Sprintf("%s: a link to a folder, not followed; name it as a source of its own to read it", p))
					return nil
				}
			}
			keep(p)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pattern, err)
		}
	}
	if len(x.files) == 0 && len(x.refused) == 0 {
		if len(x.notes) > 0 {
			return nil, fmt.Errorf("%s: no files match (%s)", pattern, x.notes[0])
		}
		return nil, fmt.Errorf("%s: no files match", pattern)
	}
	sort.Strings(x.files)
	return x, nil
}

// sourcePlan is a source's planned files. For a remote source (s3://,
// az://, gs://) they are local copies in a temporary folder: uri gives each
// one's URL (what the database records and messages name) and close
// removes the folder.
type sourcePlan struct {
	*ingest.DeliveryPlan
	tmp  string            // "" for local sources
	base string            // s3://bucket/, what tmp stands for in messages
	urls map[string]string // local copy → s3:// URL
}

// uri is what a planned file is called: its path, or its s3:// URL.
func (p *sourcePlan) uri(path string) string {
	if u, ok := p.urls[path]; ok {
		return u
	}
	return p.rename(path)
}

// rename replaces the temporary folder in a message with s3://bucket/.
func (p *sourcePlan) rename(s string) string {
	if p.tmp == "" {
		return s
	}
	return strings.ReplaceAll(s, p.tmp+string(filepath.Separator), p.base)
}

func (p *sourcePlan) close() {
	if p != nil && p.tmp != "" {
		os.RemoveAll(p.tmp)
	}
}

// planSource plans a source: local paths, folders and globs through
// sourceFiles; s3://bucket/prefix (or a glob in the key part) by
// downloading the objects first, with the client settings of publish.s3;
// az:// and gs:// the same way, with the config's sources block
// (planRemote).
func (m *Main) planSource(ctx context.Context, c *config.Config, name string) (*sourcePlan, error) {
	if isStdin(name) {
		return m.planStdin(ctx)
	}
	if fetch.IsRemote(name) {
		return m.planRemote(ctx, c, name)
	}
	if !publish.IsS3URL(name) {
		plan, err := sourceFiles(name)
		if err != nil {
			return nil, err
		}
		return &sourcePlan{DeliveryPlan: plan}, nil
	}
	bucket, key, err := publish.ParseSourceURL(name)
	if err != nil {
		return nil, usageError{err}
	}
	prefix, match, err := publish.SourceKeys(key)
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", name, err)}
	}
	// The publish.s3 settings, on the source's bucket and from its root.
	sc, secrets, err := deliver.S3Settings(ctx, c.Publish.S3, m.Getenv)
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: %w (the s3:// sources use the publish.s3 settings)", name, err)}
	}
	sc.Bucket, sc.Prefix = bucket, ""
	client, err := publish.NewS3(ctx, sc)
	if err != nil {
		return nil, redactErr(err, secrets...)
	}
	tmp, err := os.MkdirTemp("", "finops-s3-")
	if err != nil {
		return nil, fmt.Errorf("%s: a temporary folder for the download: %w", name, err)
	}
	p := &sourcePlan{tmp: filepath.Clean(tmp), base: "s3://" + bucket + "/", urls: map[string]string{}}
	files, refused, err := client.Fetch(ctx, prefix, match, p.tmp)
	if err != nil {
		p.close()
		return nil, redactErr(err, secrets...)
	}
	return p.planFetched(name, files, refused)
}

// planFetched plans a remote source's downloaded copies (s3://, az://,
// gs://) as a folder's files, each named by its URL.
func (p *sourcePlan) planFetched(name string, files []publish.Fetched, refused []error) (*sourcePlan, error) {
	if len(files) == 0 && len(refused) == 0 {
		p.close()
		return nil, fmt.Errorf("%s: no objects match (hidden names and folder markers are left out)", name)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
		p.urls[f.Path] = f.URL
	}
	sort.Strings(paths)
	p.DeliveryPlan = &ingest.DeliveryPlan{Errs: refused}
	// The downloaded copy is bucket data: a manifest in it may only name
	// files among the downloaded objects, never local files around them.
	plan := ingest.PlanDeliveriesWithin(paths, p.tmp)
	p.Files = plan.Files
	for _, s := range plan.Skipped {
		p.Skipped = append(p.Skipped, p.rename(s))
	}
	for _, n := range plan.Notes {
		p.Notes = append(p.Notes, p.rename(n))
	}
	for _, e := range plan.Errs {
		p.Errs = append(p.Errs, renamedError{p.rename(e.Error()), e})
	}
	return p, nil
}

// stdinName is what standard input is called in messages and the database.
const stdinName = store.StdinURI

// isStdin reports the names of standard input: "-" and /dev/stdin, which
// can be read only once, so it is never opened as a file (hashed, then
// parsed).
func isStdin(name string) bool { return name == "-" || name == "/dev/stdin" }

// planStdin copies standard input to a temporary file, which is then hashed
// and parsed as any file, under the name stdin.
func (m *Main) planStdin(ctx context.Context) (*sourcePlan, error) {
	tmp, err := os.MkdirTemp("", "finops-stdin-")
	if err != nil {
		return nil, fmt.Errorf("%s: a temporary file for standard input: %w", stdinName, err)
	}
	p := &sourcePlan{tmp: filepath.Clean(tmp), urls: map[string]string{}}
	path := filepath.Join(p.tmp, stdinName)
	if err := copyStdin(ctx, path, m.Stdin); err != nil {
		p.close()
		return nil, fmt.Errorf("%s: %w", stdinName, err)
	}
	p.urls[path] = stdinName
	p.DeliveryPlan = &ingest.DeliveryPlan{Files: []ingest.PlannedFile{{Path: path}}}
	return p, nil
}

func copyStdin(ctx context.Context, path string, in io.Reader) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if in != nil {
		_, err = io.Copy(f, in)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err() // interrupted while it waited for the input
	}
	return err
}

// renamedError is an error with a rewritten message (temporary paths named
// by their s3:// URLs, secrets removed) that still unwraps to the original.
type renamedError struct {
	msg string
	err error
}

func (e renamedError) Error() string { return e.msg }
func (e renamedError) Unwrap() error { return e.err }

// redact removes secrets (4 characters or more) from s, and the passwords
// and credential parameters of every URL in it (sanitize.URLs): whatever a
// library or a config puts in a message, it reaches no output, report or
// ledger row.
func redact(s string, secrets ...string) string { return deliver.Redact(s, secrets...) }

// redactErr removes secrets from an error's message; the result still
// unwraps to err, so its exit code is err's.
func redactErr(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := redact(err.Error(), secrets...)
	if msg == err.Error() {
		return err
	}
	return renamedError{msg, err}
}
