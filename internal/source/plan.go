package source

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/fetch"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/objstore"
	"github.com/finops-oss/finops/internal/sanitize"
)

// Plan is a source's planned files. For a remote source (s3://) or
// standard input they are local copies in a temporary folder: URI gives
// each one's URL (what the database records and messages name) and Close
// removes the folder.
type Plan struct {
	*ingest.DeliveryPlan
	tmp  string            // "" for local sources
	base string            // s3://bucket/, what tmp stands for in messages
	urls map[string]string // local copy → s3:// URL

	// An incremental pull's records (pull.go): the downloaded files'
	// until their import succeeds (Imported), then done; what the planning
	// left out; the URLs no longer listed. Record writes them.
	seen    SeenStore
	pending map[string]SeenObject
	done    []SeenObject
	leftOut []SeenObject
	forget  []string
}

// URI is what a planned file is called: its path, or its s3:// URL.
func (p *Plan) URI(path string) string {
	if u, ok := p.urls[path]; ok {
		return u
	}
	return p.Rename(path)
}

// Rename replaces the temporary folder in a message with s3://bucket/.
func (p *Plan) Rename(s string) string {
	if p.tmp == "" {
		return s
	}
	return strings.ReplaceAll(s, p.tmp+string(filepath.Separator), p.base)
}

// Close removes the downloaded copies, if any.
func (p *Plan) Close() {
	if p != nil && p.tmp != "" {
		os.RemoveAll(p.tmp)
	}
}

// Planner plans sources: the config's publish.s3 settings (for s3://
// sources), the environment its credentials are read from, and standard
// input.
type Planner struct {
	Config *config.Config
	Getenv func(string) string
	Stdin  io.Reader
	// Seen, when set, makes remote sources incremental (pull.go): what
	// the database records of a prefix decides what is downloaded.
	Seen SeenStore
	// Verbose adds a line per object of a remote source to its plan's notes.
	Verbose bool
}

// Plan plans the source called name. The dispatch on its address is here,
// and only here: standard input, an s3:// URL, or a local path, folder or
// glob. A remote source of another kind (az://, gs://) is one more case:
// its objects downloaded into a temporary folder, then planFetched.
func (pl Planner) Plan(ctx context.Context, name string) (*Plan, error) {
	switch {
	case IsStdin(name):
		return pl.planStdin(ctx)
	case objstore.IsS3URL(name):
		return pl.planS3(ctx, name)
	case fetch.IsRemote(name):
		return pl.planRemote(ctx, name)
	default:
		plan, err := Files(name)
		if err != nil {
			return nil, err
		}
		return &Plan{DeliveryPlan: plan}, nil
	}
}

// planS3 plans s3://bucket/prefix (or a glob in the key part) by
// downloading the objects first, with the client settings of publish.s3.
func (pl Planner) planS3(ctx context.Context, name string) (*Plan, error) {
	bucket, key, err := objstore.ParseS3URL(name)
	if err != nil {
		return nil, ConfigError{err}
	}
	prefix, match, err := objstore.SourceKeys(key)
	if err != nil {
		return nil, ConfigError{fmt.Errorf("%s: %w", name, err)}
	}
	// The publish.s3 settings, on the source's bucket and from its root.
	s := pl.Config.Publish.S3
	ak, sk, tok, err := s.Credentials(ctx, pl.Getenv, capped.ReadRegular)
	if err != nil {
		return nil, ConfigError{fmt.Errorf("%s: %w (the s3:// sources use the publish.s3 settings)", name, err)}
	}
	secrets := []string{ak, sk, tok}
	// Its errors name publish, as they did when the client lived there.
	client, err := objstore.NewS3(ctx, objstore.S3Config{Bucket: bucket, Region: s.Region, Endpoint: s.Endpoint,
		PathStyle: s.PathStyle, AccessKeyID: ak, SecretAccessKey: sk, SessionToken: tok,
		IdleTimeout: pl.Config.Sources.IdleTimeout.Duration, IdleSetting: fetch.IdleSetting, Pkg: "publish"})
	if err != nil {
		return nil, RedactErr(err, secrets...)
	}
	return pl.fetchPlan(ctx, name, "s3", client, prefix, match, secrets)
}

// fetchPlan downloads the objects under prefix that match takes into a
// temporary folder (finops-<kind>-…) and plans them (planFetched), each
// named by its URL (f.URL, whose root f.URL("") stands for the folder in
// messages); name is the source, already redacted. Every
// error, each refused object's too, loses secrets. With pl.Seen only the
// objects not imported before are downloaded (pullPlan).
func (pl Planner) fetchPlan(ctx context.Context, name, kind string, f objstore.Store, prefix string, match func(string) bool,
	secrets []string) (*Plan, error) {
	// The records an incremental pull looks up (base+key) and those it
	// writes (Fetched.URL) are named alike by construction.
	base := f.URL("")
	if pl.Seen != nil {
		return pl.pullPlan(ctx, name, kind, base, storeLister{f}, prefix, match, secrets)
	}
	p := &Plan{base: base, urls: map[string]string{}}
	if err := p.mkTemp(name, kind); err != nil {
		return nil, err
	}
	files, refused, err := objstore.Fetch(ctx, f, prefix, match, p.tmp)
	if err != nil {
		p.Close()
		return nil, RedactErr(err, secrets...)
	}
	for i, e := range refused {
		refused[i] = RedactErr(e, secrets...)
	}
	return p.planFetched(name, files, refused)
}

// mkTemp makes the plan's temporary folder, finops-<kind>-….
func (p *Plan) mkTemp(name, kind string) error {
	tmp, err := os.MkdirTemp("", "finops-"+kind+"-")
	if err != nil {
		return fmt.Errorf("%s: a temporary folder for the download: %w", name, err)
	}
	p.tmp = filepath.Clean(tmp)
	return nil
}

// planFetched plans a remote source's downloaded copies (files, and the
// objects refused) as a folder's files, each named by its URL.
func (p *Plan) planFetched(name string, files []objstore.Fetched, refused []error) (*Plan, error) {
	if len(files) == 0 && len(refused) == 0 {
		p.Close()
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
	p.addRenamed(plan, nil)
	return p, nil
}

// addRenamed adds plan's skipped files, notes (those keep takes; nil:
// all) and errors to p's, each naming the objects by URL (Rename).
func (p *Plan) addRenamed(plan *ingest.DeliveryPlan, keep func(note string) bool) {
	for _, s := range plan.Skipped {
		p.Skipped = append(p.Skipped, p.Rename(s))
	}
	for _, n := range plan.Notes {
		if keep == nil || keep(n) {
			p.Notes = append(p.Notes, p.Rename(n))
		}
	}
	for _, e := range plan.Errs {
		p.Errs = append(p.Errs, RenamedError{p.Rename(e.Error()), e})
	}
}

// StdinName is what standard input is called in messages and the database
// (store.StdinURI, which the store compares imports by).
const StdinName = "stdin"

// IsStdin reports the names of standard input: "-" and /dev/stdin, which
// can be read only once, so it is never opened as a file (hashed, then
// parsed).
func IsStdin(name string) bool { return name == "-" || name == "/dev/stdin" }

// planStdin copies standard input to a temporary file, which is then hashed
// and parsed as any file, under the name stdin.
func (pl Planner) planStdin(ctx context.Context) (*Plan, error) {
	tmp, err := os.MkdirTemp("", "finops-stdin-")
	if err != nil {
		return nil, fmt.Errorf("%s: a temporary file for standard input: %w", StdinName, err)
	}
	p := &Plan{tmp: filepath.Clean(tmp), urls: map[string]string{}}
	path := filepath.Join(p.tmp, StdinName)
	if err := copyStdin(ctx, path, pl.Stdin); err != nil {
		p.Close()
		return nil, fmt.Errorf("%s: %w", StdinName, err)
	}
	p.urls[path] = StdinName
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

// RenamedError is an error with a rewritten message (temporary paths named
// by their s3:// URLs, secrets removed) that still unwraps to the original,
// so its exit code is the original's.
type RenamedError struct {
	Msg string
	Err error
}

func (e RenamedError) Error() string { return e.Msg }
func (e RenamedError) Unwrap() error { return e.Err }

// RedactErr removes secrets and URL passwords from an error's message
// (sanitize.Redact); the result still unwraps to err.
func RedactErr(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := sanitize.Redact(err.Error(), secrets...)
	if msg == err.Error() {
		return err
	}
	return RenamedError{msg, err}
}
