// Package importer runs planned sources (package source) through the
// parsers (package ingest, dcgm-exporter scrapes through telemetry) into
// the store: one transaction per file, one per delivery, a failing file
// never stopping the others. It prints what each file did, as lines for
// people or one JSON object per file, and the progress bars of its files.
package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/gctune"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/progress"
	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/telemetry"
)

// Options is what an import or a check works with.
type Options struct {
	Config  *config.Config
	Store   *store.Store // Run only
	Sources source.Planner
	Now     func() time.Time
	Getenv  func(string) string
	// Out gets one line per file and every problem (one JSON object each
	// with JSON); the scheduled job passes io.Discard and reports the
	// sources' errors itself. Stderr gets the planning notes in JSON mode,
	// where Out carries only the results.
	Out, Stderr io.Writer
	JSON        bool
	Quiet       bool // only the problems (and JSON results)
	Bars        progress.Bars
	// CompactBefore is the day before which telemetry goes straight into
	// compacted days (store.FileMeta.CompactBefore).
	CompactBefore time.Time
}

// Result is what importing one source did, for the data-quality box.
type Result struct {
	Spec   source.Spec
	Files  int
	Failed int
	Err    error
}

// Run imports every file of every source, one transaction per file. A
// failing file does not stop the others; the first error is returned after
// all were tried, so one bad export never hides the rest of the week.
func Run(ctx context.Context, o Options, specs []source.Spec) ([]Result, error) {
	defer gc(o.Getenv)()
	r := newRun(o, len(specs))
	plans := r.plan(ctx, specs)
	defer func() {
		// s3:// sources: the downloaded copies, once every file is
		// imported, the last planned first.
		for i := len(plans) - 1; i >= 0; i-- {
			plans[i].Close()
		}
	}()
	done := 0
	for _, u := range deliveryUnits(r.jobs, func(j importJob) string { return j.file.Manifest + "\x00" + j.file.Delivery }) {
		label := func(i int) string { return fmt.Sprintf("[%d/%d] %s", done+i+1, len(r.jobs), u[i].uri) }
		var err error
		if len(u) == 1 && u[0].file.Delivery == "" {
			err = r.importLone(ctx, u[0], label(0))
		} else {
			err = r.importDelivery(ctx, u, label)
		}
		done += len(u)
		if err != nil {
			return r.results, err
		}
	}
	// What the remote sources' pulls saw, so that the next one downloads
	// only what is new, changed or not imported.
	for _, p := range plans {
		if err := p.Record(ctx); err != nil {
			r.errs = append(r.errs, err)
		}
	}
	return r.results, r.err(len(specs))
}

// importJob is one planned file of a source.
type importJob struct {
	spec *Result
	file ingest.PlannedFile
	uri  string // the file's path, or the s3:// URL of an object downloaded to it
	plan *source.Plan
}

// importRun is one Run's state: the results by source, the files planned,
// the errors so far and where each kind of line goes.
type importRun struct {
	o       Options
	results []Result
	jobs    []importJob
	errs    []error
	perFile io.Writer // each file's line, and every problem
	notes   io.Writer // plan notes with JSON results (stderr: stdout carries only the JSON)
	done    io.Writer // what went well: nothing with --quiet
	maxDrop float64
}

func newRun(o Options, sources int) *importRun {
	r := &importRun{o: o, results: make([]Result, sources), perFile: o.Out, notes: o.Out, done: o.Out,
		maxDrop: config.DefaultMaxRestatementDrop}
	if o.JSON && o.Out != io.Discard {
		r.notes = o.Stderr // stdout carries only the JSON results
	}
	// done gets what went well: with --quiet only the problems (and JSON
	// results) are printed.
	if o.Quiet && !o.JSON {
		r.done = io.Discard
	}
	if o.Config != nil {
		r.maxDrop = o.Config.MaxRestatementDrop()
	}
	return r
}

// plan plans each source into jobs, recording the sources and files that
// cannot be planned; it returns the plans, to be closed after the imports.
func (r *importRun) plan(ctx context.Context, specs []source.Spec) []*source.Plan {
	var plans []*source.Plan
	for i, s := range specs {
		res := &r.results[i]
		res.Spec = s
		plan, err := planner(r.o, s).Plan(ctx, s.Name)
		if err != nil {
			res.Err = err
			r.errs = append(r.errs, err)
			if !isConfigError(err) {
				// A source address or setting that can never work is not
				// printed here: the returned error carries it to stderr whole.
				printFailed(r.perFile, r.o.JSON, "", s.Name, err)
			}
			continue
		}
		plans = append(plans, plan)
		if r.o.JSON {
			printPlanNotes(r.notes, s.Name, plan.DeliveryPlan)
		} else {
			printPlanNotes(r.done, s.Name, plan.DeliveryPlan)
		}
		for _, err := range plan.Errs {
			// Problems are printed even with --quiet: the returned error
			// says each is named on standard output.
			printFailed(r.perFile, r.o.JSON, "", s.Name, err)
			res.Files++
			res.Failed++
			if res.Err == nil {
				res.Err = err
			}
			r.errs = append(r.errs, err)
		}
		for _, f := range plan.Files {
			r.jobs = append(r.jobs, importJob{res, f, plan.URI(f.Path), plan})
		}
	}
	return plans
}

// importLone imports a file that belongs to no delivery; only a cancelled
// context is returned, any other failure recorded.
func (r *importRun) importLone(ctx context.Context, j importJob, label string) error {
	res, err := importFile(ctx, r.o, j.spec.Spec, j.file, j.uri, label)
	j.spec.Files++
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		r.fail(ctx, j, j.uri, err)
		return nil
	}
	r.handle(j, res)
	return nil
}

// importDelivery imports a delivery's files together or not at all: one
// bad file must not leave the period half restated. Only a cancelled
// context is returned, any other failure recorded.
func (r *importRun) importDelivery(ctx context.Context, u []importJob, label func(int) string) error {
	files := make([]store.FileImport, 0, len(u))
	for i, j := range u {
		files = append(files, prepareFile(r.o, j.spec.Spec, j.file, j.uri, label(i)))
	}
	res, err := r.o.Store.ImportGroup(ctx, files)
	u[0].spec.Files += len(u)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		j := u[0]
		j.spec.Failed += len(u) - 1
		r.fail(ctx, j, j.file.Manifest, fmt.Errorf("delivery %s of %s (%d files) not imported, the period's earlier delivery stays: %w",
			j.file.Delivery, j.file.Period, len(u), err))
		return nil
	}
	for i, j := range u {
		r.handle(j, res[i])
	}
	return nil
}

// handle prints what importing a file did, and tells its plan the import
// succeeded (what an incremental pull records).
func (r *importRun) handle(j importJob, res *store.ImportResult) {
	j.plan.Imported(j.file.Path, storedBytes(res))
	if r.o.JSON {
		emitJSON(r.perFile, importResult(j.uri, res, r.maxDrop))
		return
	}
	PrintImport(r.done, j.uri, res, r.maxDrop)
}

// fail records and prints a file's (or a delivery's) failure.
func (r *importRun) fail(ctx context.Context, j importJob, name string, err error) {
	j.spec.Failed++
	if j.spec.Err == nil {
		j.spec.Err = err
	}
	r.errs = append(r.errs, err)
	printFailed(r.perFile, r.o.JSON, name+": ", name, err)
	// A delivery that did not import, or a file refused for sharing
	// charges with another, leaves a bill missing: later reports say so
	// too, until the file (or another delivery of its period) imports.
	// A malformed lone file is this command's failure only.
	var overlap *store.OverlapError
	if j.file.Delivery == "" && !errors.As(err, &overlap) {
		return
	}
	if rerr := r.o.Store.RecordFailedImport(ctx, store.FailedImport{URI: name, Period: j.file.Period, Delivery: j.file.Delivery,
		Error: err.Error(), At: r.o.Now()}); rerr != nil {
		r.errs = append(r.errs, rerr)
	}
}

// err is Run's error: the first configuration error whole (exit 2), or
// one counting the problems, each already printed.
func (r *importRun) err(sources int) error {
	if len(r.errs) == 0 {
		return nil
	}
	for _, err := range r.errs {
		if isConfigError(err) {
			return err
		}
	}
	// Each problem is on perFile already: the error only counts them.
	return ReportedError{fmt.Sprintf("ingest: %s in %s (%s planned), each named on standard output",
		count(len(r.errs), "problem"), count(sources, "source"), count(len(r.jobs), "file")), r.errs[0]}
}

// count is "1 file", "2 files": the error line is the one a cron mail shows.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// isConfigError reports a source that can never work as configured (exit 2).
func isConfigError(err error) bool { return errors.As(err, new(source.ConfigError)) }

// ReportedError is a failure whose every problem is already on standard
// output: its message only counts them, so that none is printed twice,
// and its exit code is that of the first.
type ReportedError struct {
	Msg   string
	First error
}

func (e ReportedError) Error() string { return e.Msg }
func (e ReportedError) Unwrap() error { return e.First }

// importFile imports one planned file; uri is what the database records
// and messages call it (its path, or the s3:// URL it was downloaded from).
// Its bar, labelled label, shows the file's bytes read and rows stored.
func importFile(ctx context.Context, o Options, s source.Spec, file ingest.PlannedFile, uri string, label string) (*store.ImportResult, error) {
	fi := prepareFile(o, s, file, uri, label)
	return o.Store.Import(ctx, fi.Meta, fi.Parse)
}

// prepareFile returns what imports one planned file. Its sha256 is taken
// by the store, beside the parse (store.FileMeta.Hash).
func prepareFile(o Options, s source.Spec, file ingest.PlannedFile, uri string, label string) store.FileImport {
	path := file.Path
	var size int64 = -1 // no bar when it cannot be known
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	hash := func(ctx context.Context) (string, error) {
		sum, _, err := ingest.HashFile(ctx, path)
		if err != nil && uri != path {
			err = fmt.Errorf("%s: %w", uri, err)
		}
		return sum, err
	}
	meta := store.FileMeta{URI: uri, Hash: hash, Host: s.Host, Period: file.Period, Delivery: file.Delivery,
		CompactBefore: o.CompactBefore, Replace: s.Replace}
	return store.FileImport{Meta: meta, Parse: func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		var bar *progress.Bar
		if size >= 0 {
			bar = o.Bars.File(label, size)
		}
		defer bar.Done()
		var read func(int)
		if bar != nil {
			read, sink = bar.Add, rowSink{sink, bar}
		}
		rc, err := ingest.OpenCounted(path, read)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		// Samples no clock could have written (a year ahead, before 2000)
		// are refused with a warning, never trusted.
		// Bill lines starting a day or more ahead are kept, with a warning:
		// the wrong clock may be this host's.
		guard := ingest.NewClockGuard(sink, uri, o.Now())
		bills := ingest.NewBillingClock(guard, uri, o.Now())
		sm, err := ParseInput(ctx, rc, o.Config, s, uri, bills)
		if err == nil {
			bills.Finish(sm)
			err = guard.Finish(sm)
		}
		if err == nil && s.Kind != "" && sm.Kind != s.Kind {
			return nil, fmt.Errorf("%s: configured as %s but the file is %s (%s)", uri, s.Kind, sm.Kind, sm.Format)
		}
		return sm, err
	}}
}

// ParseInput parses one opened file of a source (telemetry.ParseFile): a
// scrape with the scrape parser, anything else with ingest.Parse.
func ParseInput(ctx context.Context, r io.Reader, c *config.Config, s source.Spec, path string, sink ingest.Sink) (*ingest.Summary, error) {
	return telemetry.ParseFile(ctx, r, s.ParseOptions(c, path), telemetry.Scrape{Interval: s.Interval, At: s.ScrapeAt, Notes: s.Notes}, sink)
}

// rowSink counts the rows a parse hands on, for a bar.
type rowSink struct {
	ingest.Sink
	bar *progress.Bar
}

func (s rowSink) Billing(l *finops.BillingLine) error { s.bar.Row(); return s.Sink.Billing(l) }
func (s rowSink) Sample(g *finops.GPUSample) error    { s.bar.Row(); return s.Sink.Sample(g) }
func (s rowSink) TaskRun(r *finops.TaskRun) error     { s.bar.Row(); return s.Sink.TaskRun(r) }

// deliveryUnits groups jobs into what imports in one transaction: a lone
// file, or every file of one delivery (key names it; jobs of a delivery
// are planned together, so a group is a run of neighbours).
func deliveryUnits[J any](jobs []J, key func(J) string) [][]J {
	var out [][]J
	for i, j := range jobs {
		k := key(j)
		if i > 0 && k != "\x00" && len(out) > 0 && key(out[len(out)-1][0]) == k {
			out[len(out)-1] = append(out[len(out)-1], j)
			continue
		}
		out = append(out, []J{j})
	}
	return out
}

// heapCeiling is the Go memory an ingest runs under (gctune.Ceiling: GOGC
// off, a soft memory limit). An ingest streams: its live heap is a few MB
// of batches whatever the file's size, but it allocates for every field of
// every line. At a proportional goal (GOGC 200, before) the peak was the
// collector's goal, three times what the last collection marked, and what
// it marks includes what the goroutines allocated while it marked: 4–8 MB
// from one collection to the next for the same 4 MB live, so a long file,
// meeting more collections, peaked higher (200,000 FOCUS rows 1.03–1.18×
// the peak of 20,000: issue #35 asks ≤ 1.15×). Under a ceiling every
// collection has the same goal, and a file of 20,000 rows or more peaks
// as any other. 48 MiB since the lines share their repeated decimals and
// tag sets (a third less allocated): 75–78 MB RSS, SQLite's page cache
// and the binary included, 200,000 rows 1.02× the peak of 20,000, and 3 %
// less CPU than 32 MiB (58–62 MB); 64 MiB saved 2 % more for 84–92 MB and
// 1.09× (docs/BENCHMARKS.md §Lines share what they repeat; §A heap
// ceiling for the ingest has the first measurements).
const heapCeiling = 48 << 20

// gcPercent is the collector's GOGC while files are ingested when the
// ceiling does not hold: an ingest that keeps most of it live (two
// collections in a row marking over three quarters: a Parquet row group,
// a long Prometheus range) runs proportionally for the rest of it rather
// than be collected back to back, and so does one under the user's
// GOMEMLIMIT. 200: three times the marked heap, 15 % faster
// than Go's default 100 on a FOCUS import.
const gcPercent = 200

// gc holds an ingest's heap under heapCeiling, unless the user set GOGC or
// GOMEMLIMIT, and returns what restores the collector's settings: a run
// goes on to its report, whose live heap is larger.
func gc(getenv func(string) string) (restore func()) {
	return gctune.Ceiling(getenv, heapCeiling, gcPercent)
}
