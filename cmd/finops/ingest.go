package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/ingest"
	"github.com/finops-oss/finops/ingest/dcgm"
	"github.com/finops-oss/finops/store"
	"github.com/spf13/cobra"
)

func (m *Main) ingestCommand() *cobra.Command {
	var format, host, tz, currency, fieldList, at string
	var check, replace bool
	var maxBad int
	cmd := &cobra.Command{
		Use:   "ingest [flags] [PATH...]",
		Short: "Import billing exports, GPU telemetry or task files into the database",
		Long: "Import files, folders or globs (.gz too). The format is detected from each file's header.\n" +
			"Importing the same file twice changes nothing. A bad file changes nothing and names file:line.\n" +
			"A folder or manifest of a cloud export delivery (AWS CUR *-Manifest.json, Azure manifest.json) imports\n" +
			"only each billing period's latest delivery, replacing the period's earlier one.\n" +
			"s3://bucket/prefix (or a glob on keys, s3://bucket/cur/*/*.csv.gz) downloads the objects to a temporary\n" +
			"folder first, with the config's publish.s3 endpoint, region, path style and credentials.\n" +
			"az://container/prefix, https://<account>.blob.core.windows.net/<container>/<prefix> and gs://bucket/prefix\n" +
			"do the same with the config's sources.azure and sources.gcs.\n" +
			"- (or /dev/stdin) reads standard input, recorded as stdin.\n" +
			"With no PATH it imports the config's billing, utilization and tasks sources, as run does\n" +
			"(Prometheus servers: finops ingest prometheus).",
		Example: "  finops ingest\n  finops ingest exports/focus-2026-11.csv\n  finops ingest s3://finops-billing/cur/gpu-report\n  finops ingest gs://acme-billing/focus/*.parquet\n  finops ingest --host gpu-a --tz Asia/Shanghai logs/gpu-a/*.csv\n  finops ingest --check bill.csv\n  zcat bill.csv.gz | finops ingest -",
		Args:    usageArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format == "json" {
				// Not a file format: the results on stdout as JSON (--log-format json).
				format, m.logFormat = "", "json"
				if err := m.setupLogging(); err != nil {
					return err
				}
			}
			if format != "" && !slices.Contains(ingestFormats(), format) {
				return usagef("--format %q: want one of %s, or json for results as JSON", format, strings.Join(ingestFormats(), ", "))
			}
			var fields []string
			if cmd.Flags().Changed("fields") {
				if format != "" && format != ingest.FormatNvidiaSMI {
					return usagef("--fields names the columns of nvidia-smi logs without a header; it does not go with --format %s", format)
				}
				var err error
				if fields, err = ingest.ParseSMIFields(fieldList); err != nil {
					return usagef("--fields: %v", err)
				}
			}
			c, loc, err := m.loadConfig()
			if err != nil {
				return err
			}
			if tz != "" {
				if loc, err = time.LoadLocation(tz); err != nil {
					return usagef("--tz %q: %v", tz, err)
				}
			}
			mappings, err := c.ColumnMappings()
			if err != nil {
				return usageError{err}
			}
			if cmd.Flags().Changed("max-bad-rows") {
				c.MaxBadRows = maxBad
			}
			var specs []sourceSpec
			if len(args) == 0 {
				if specs, err = configuredIngest(c, cmd, replace); err != nil {
					return err
				}
			}
			stdin := 0
			for _, a := range args {
				if isStdin(a) {
					if stdin++; stdin > 1 {
						return usagef("standard input (- or /dev/stdin) is named twice; it can be read once")
					}
				}
				spec := sourceSpec{name: a, format: format, host: host, location: loc, mappings: mappings,
					currency: strings.ToUpper(strings.TrimSpace(currency)), smiFields: fields, replace: replace}
				if replace {
					// A file of a configured source is read again as the
					// source reads it: its mapping, format and currency.
					if cs, ok, err := configuredSourceOf(c, a); err != nil {
						return err
					} else if ok {
						cs.replace = true
						if format != "" {
							cs.format = format
						}
						if currency != "" {
							cs.currency = spec.currency
						}
						cs.name, spec = a, cs
					}
				}
				specs = append(specs, spec)
			}
			if replace && check {
				return usagef("--replace imports; --check writes nothing: use one of them")
			}
			if err := setScrapeTime(specs, at, m.Stderr); err != nil {
				return err
			}
			if check {
				return m.checkFiles(cmd.Context(), c, specs)
			}
			st, err := m.openStore(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer st.Close()
			_, err = m.ingestSources(cmd.Context(), st, c, specs, m.Stdout)
			if cmd.Context().Err() == nil {
				err = errors.Join(err, m.compactTelemetry(cmd.Context(), st, c))
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "", "force a format: focus, rental, nvidia-smi, tasks, aws-cur, aws-cur2, azure, gcp, runpod, vast, dcgm (a dcgm-exporter scrape);\n"+
		"or json: one JSON object per file on stdout, as --log-format json")
	f.StringVar(&fieldList, "fields", "", "the --query-gpu list of nvidia-smi logs written with noheader, in nvidia-smi's spelling (timestamp,name,uuid,utilization.gpu,…); without it the fields are told from the values")
	f.StringVar(&host, "host", "", "GPU host of telemetry files that do not name it (nvidia-smi logs)")
	f.StringVar(&at, "at", "", "when scrapes without sample timestamps were taken (RFC 3339, 2026-11-02T08:00:00Z); default: a time in the file name, else its modification time")
	f.StringVar(&tz, "tz", "", "time zone of local timestamps (default: the config's)")
	f.StringVar(&currency, "currency", "", "currency (USD, CNY, …) of billing lines whose file leaves it blank; without it such a line is a bad row")
	f.BoolVar(&check, "check", false, "parse and validate only; write nothing")
	f.BoolVar(&replace, "replace", false, "import the files again on purpose (after a mapping change, or to bring back a delivery or snapshot that a later one replaced):\n"+
		"each replaces its own earlier import, and its lines win where they overlap another file's; a path of a configured billing source is read with that source's mapping")
	f.IntVar(&maxBad, "max-bad-rows", 0, "bad rows a file may have before it is refused (they are counted and reported)")
	cmd.AddCommand(m.ingestPrometheusCommand())
	return cmd
}

// ingestFormats are the values of ingest --format: the parsers' formats and
// dcgm-exporter scrapes, which cmd reads itself (parseInput).
func ingestFormats() []string { return append(ingest.Formats(), dcgm.Format) }

// sourceResult is what ingesting one source did, for the data-quality box.
type sourceResult struct {
	spec    sourceSpec
	files   int
	failed  int
	err     error
	partial bool   // some of its data came (Prometheus: warnings, or some days failed)
	detail  string // what came, when "N files" does not say it (Prometheus days)
}

// ingestSources imports every file of every source, one transaction per
// file. A failing file does not stop the others; the first error is returned
// after all were tried, so one bad export never hides the rest of the week.
//
// perFile receives one line per file and every problem (one JSON object each
// in JSON mode); the scheduled job passes io.Discard and reports the
// sources' errors itself.
func (m *Main) ingestSources(ctx context.Context, st *store.Store, c *config.Config, specs []sourceSpec, perFile io.Writer) ([]sourceResult, error) {
	defer ingestGC(m.Getenv)()
	type job struct {
		spec *sourceResult
		file ingest.PlannedFile
		uri  string // the file's path, or the s3:// URL of an object downloaded to it
	}
	results := make([]sourceResult, len(specs))
	var jobs []job
	var errs []error
	asJSON := m.jsonResults()
	notes := perFile
	if asJSON && perFile != io.Discard {
		notes = m.Stderr // stdout carries only the JSON results
	}
	// done gets what went well: with --quiet only the problems (and JSON
	// results) are printed.
	done := perFile
	if m.quiet && !asJSON {
		done = io.Discard
	}
	for i, s := range specs {
		results[i].spec = s
		plan, err := m.planSource(ctx, c, s.name)
		if err != nil {
			results[i].err = err
			errs = append(errs, err)
			switch {
			case exitCode(err) == ExitUsage:
				// A source address or setting that can never work: the
				// returned error carries it to stderr whole, below.
			default:
				printFailed(perFile, asJSON, "", s.name, err)
			}
			continue
		}
		defer plan.close() // s3:// sources: the downloaded copies, once every file is imported
		if asJSON {
			printPlanNotes(notes, s.name, plan.DeliveryPlan)
		} else {
			printPlanNotes(done, s.name, plan.DeliveryPlan)
		}
		for _, err := range plan.Errs {
			// Problems are printed even with --quiet: the returned error
			// says each is named on standard output.
			printFailed(perFile, asJSON, "", s.name, err)
			results[i].files++
			results[i].failed++
			if results[i].err == nil {
				results[i].err = err
			}
			errs = append(errs, err)
		}
		for _, f := range plan.Files {
			jobs = append(jobs, job{&results[i], f, plan.uri(f.Path)})
		}
	}
	bars := m.bars()
	handle := func(j job, res *store.ImportResult) {
		if asJSON {
			emitJSON(perFile, importResult(j.uri, res))
			return
		}
		if res.Superseded {
			if res.Period != "" {
				fmt.Fprintf(done, "%s: an earlier delivery of %s, since replaced by %s: nothing changed\n", j.uri, res.Period, res.Delivery)
			} else {
				fmt.Fprintf(done, "%s: an older copy of charges that %s holds: nothing changed (finops ingest --replace %s brings it back)\n",
					j.uri, supersededBy(res), j.uri)
			}
		} else if res.Duplicate {
			switch {
			case len(res.Replaced) > 0:
				fmt.Fprintf(done, "%s: already imported (same bytes as %s), now part of delivery %s\n", j.uri, res.DuplicateOf, res.Delivery)
			case len(res.Overlaps) > 0:
				fmt.Fprintf(done, "%s: already imported (the same charges as %s, in other bytes): nothing changed\n", j.uri, res.DuplicateOf)
			default:
				fmt.Fprintf(done, "%s: already imported (same bytes as %s): nothing changed\n", j.uri, res.DuplicateOf)
			}
		} else {
			fmt.Fprintf(done, "%s: %s\n", j.uri, describe(res.Summary))
			printWarnings(done, res.Summary)
			printOverlaps(done, res)
		}
		printReplaced(done, j.uri, res)
	}
	fail := func(j job, name string, err error) {
		j.spec.failed++
		if j.spec.err == nil {
			j.spec.err = err
		}
		errs = append(errs, err)
		printFailed(perFile, asJSON, name+": ", name, err)
		// A delivery that did not import, or a file refused for sharing
		// charges with another, leaves a bill missing: later reports say so
		// too, until the file (or another delivery of its period) imports.
		// A malformed lone file is this command's failure only.
		var overlap *store.OverlapError
		if j.file.Delivery == "" && !errors.As(err, &overlap) {
			return
		}
		if rerr := st.RecordFailedImport(ctx, store.FailedImport{URI: name, Period: j.file.Period, Delivery: j.file.Delivery,
			Error: err.Error(), At: m.Now()}); rerr != nil {
			errs = append(errs, rerr)
		}
	}
	done0 := 0
	for _, u := range deliveryUnits(jobs, func(j job) string { return j.file.Manifest + "\x00" + j.file.Delivery }) {
		label := func(i int) string { return fmt.Sprintf("[%d/%d] %s", done0+i+1, len(jobs), u[i].uri) }
		if len(u) == 1 && u[0].file.Delivery == "" {
			j := u[0]
			res, err := m.ingestFile(ctx, st, c, j.spec.spec, j.file, j.uri, bars, label(0))
			done0++
			j.spec.files++
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return results, err
				}
				fail(j, j.uri, err)
				continue
			}
			handle(j, res)
			continue
		}
		// A delivery's files import together or not at all: one bad file
		// must not leave the period half restated.
		files := make([]store.FileImport, 0, len(u))
		var prepErr error
		for i, j := range u {
			fi, err := m.prepareFile(ctx, c, j.spec.spec, j.file, j.uri, bars, label(i))
			if err != nil {
				prepErr = err
				break
			}
			files = append(files, fi)
		}
		var res []*store.ImportResult
		err := prepErr
		if err == nil {
			res, err = st.ImportGroup(ctx, files)
		}
		done0 += len(u)
		u[0].spec.files += len(u)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return results, err
			}
			j := u[0]
			j.spec.failed += len(u) - 1
			fail(j, j.file.Manifest, fmt.Errorf("delivery %s of %s (%d files) not imported, the period's earlier delivery stays: %w",
				j.file.Delivery, j.file.Period, len(u), err))
			continue
		}
		for i, j := range u {
			handle(j, res[i])
		}
	}
	if len(errs) > 0 {
		for _, err := range errs {
			if exitCode(err) == ExitUsage {
				return results, err
			}
		}
		// Each problem is on perFile already: the error only counts them.
		return results, reportedError{fmt.Sprintf("ingest: %d problems in %d sources (%d files planned), each named on standard output",
			len(errs), len(specs), len(jobs)), errs[0]}
	}
	return results, nil
}

func parseOptions(c *config.Config, s sourceSpec, path string) ingest.Options {
	return ingest.Options{Name: path, Format: s.format, Host: s.host, Location: s.location,
		Mappings: s.mappings, Catalog: c.Catalog(), MaxBadRows: c.MaxBadRows, Currency: s.currency, SMIFields: s.smiFields}
}

// ingestFile imports one planned file; uri is what the database records
// and messages call it (its path, or the s3:// URL it was downloaded from).
// Its bar, labelled label, shows the file's bytes read and rows stored.
func (m *Main) ingestFile(ctx context.Context, st *store.Store, c *config.Config, s sourceSpec, file ingest.PlannedFile, uri string,
	bars bars, label string) (*store.ImportResult, error) {
	fi, err := m.prepareFile(ctx, c, s, file, uri, bars, label)
	if err != nil {
		return nil, err
	}
	return st.Import(ctx, fi.Meta, fi.Parse)
}

// prepareFile hashes one planned file and returns what imports it.
func (m *Main) prepareFile(ctx context.Context, c *config.Config, s sourceSpec, file ingest.PlannedFile, uri string,
	bars bars, label string) (store.FileImport, error) {
	path := file.Path
	var size int64 = -1 // no bar when it cannot be known
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	// A file of gigabytes takes a while to hash before the first row: a bar
	// of its own says so.
	var hashing *bar
	if size >= 0 {
		hashing = bars.bytes(label, "sha256", size)
	}
	var hashed func(int)
	if hashing != nil {
		hashed = hashing.add
	}
	sum, _, err := ingest.HashFileCounted(ctx, path, hashed)
	hashing.done()
	if err != nil {
		if uri != path {
			err = fmt.Errorf("%s: %w", uri, err)
		}
		return store.FileImport{}, err
	}
	meta := store.FileMeta{URI: uri, SHA256: sum, Host: s.host, Period: file.Period, Delivery: file.Delivery,
		CompactBefore: m.compactBefore(c), Replace: s.replace}
	return store.FileImport{Meta: meta, Parse: func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		var progress *bar
		if size >= 0 {
			progress = bars.file(label, size)
		}
		defer progress.done()
		var read func(int)
		if progress != nil {
			read, sink = progress.add, rowSink{sink, progress}
		}
		rc, err := ingest.OpenCounted(path, read)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		// Samples no clock could have written (a year ahead, before 2000)
		// are refused with a warning, never trusted.
		guard := ingest.NewClockGuard(sink, uri, m.Now())
		sm, err := parseInput(ctx, rc, c, s, uri, guard)
		if err == nil {
			err = guard.Finish(sm)
		}
		if err == nil && s.kind != "" && sm.Kind != s.kind {
			return nil, fmt.Errorf("%s: configured as %s but the file is %s (%s)", uri, s.kind, sm.Kind, sm.Format)
		}
		return sm, err
	}}, nil
}

// checkFiles parses without writing and prints what a real import would
// do: each file once, its problems once. The error returned only counts
// them, so that they are not printed again on stderr.
func (m *Main) checkFiles(ctx context.Context, c *config.Config, specs []sourceSpec) error {
	notes := m.Stdout
	if m.jsonResults() {
		notes = m.Stderr // stdout carries only the JSON results
	} else if m.quiet {
		notes = io.Discard
	}
	var errs []error
	files := 0
	for _, s := range specs {
		plan, err := m.planSource(ctx, c, s.name)
		if exitCode(err) == ExitUsage {
			return err // on stderr whole, as every usage error
		}
		if err != nil {
			errs = append(errs, err)
			files++
			m.printInvalid(s.name, err)
			continue
		}
		defer plan.close()
		printPlanNotes(notes, s.name, plan.DeliveryPlan)
		for _, err := range plan.Errs {
			errs = append(errs, err)
			files++
			m.printInvalid(s.name, err)
		}
		for _, pf := range plan.Files {
			files++
			if err := m.checkOne(ctx, c, s, pf.Path, plan.uri(pf.Path)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return reportedError{fmt.Sprintf("ingest --check: %d of %d files would not import (each is named on standard output)", len(errs), files), errs[0]}
	}
	return nil
}

// printInvalid reports a source or file that could not be read at all.
func (m *Main) printInvalid(name string, err error) {
	if m.jsonResults() {
		emitJSON(m.Stdout, newFileResult(name, "invalid", nil, err))
		return
	}
	fmt.Fprintf(m.Stdout, "INVALID: %v\n", err)
}

// checkMoreBadRows is how many bad rows beyond --max-bad-rows a check
// reads past, so that it lists their reasons instead of stopping at the
// first.
const checkMoreBadRows = 20

// checkOne validates one file and prints what an import would store, once:
// a heading with the verdict, then the detected format, rows, period,
// currencies, total, GPU lines, GPUs the catalog does not know, and every
// rejected row with its reason. f is what the file is called: its path, or
// the s3:// URL it was downloaded from.
func (m *Main) checkOne(ctx context.Context, c *config.Config, s sourceSpec, path, f string) error {
	out := m.Stdout
	sink := &checkSink{}
	sum, err := checkFile(ctx, c, s, path, f, sink)
	tooMany := sum != nil && len(sum.Rejected) > c.MaxBadRows
	if err != nil && !tooMany {
		if m.jsonResults() {
			emitJSON(out, newFileResult(f, "invalid", nil, err))
		} else {
			fmt.Fprintf(out, "%s: INVALID: %v\n", f, err)
		}
		return err
	}
	var refused error
	verdict := "OK"
	if tooMany {
		why := fmt.Sprintf("%d bad rows, more than --max-bad-rows %d: an import would refuse the file", len(sum.Rejected), c.MaxBadRows)
		if err != nil {
			why += " (the check stopped reading there)"
		}
		refused, verdict = fmt.Errorf("%s: %s", f, why), "INVALID: "+why
	}
	if m.jsonResults() {
		r := newFileResult(f, "ok", sum, refused)
		if refused != nil {
			r.Status = "invalid"
		}
		r.UnknownGPUs = sink.unknown
		emitJSON(out, r)
		return refused
	}
	if m.quiet && refused == nil && len(sum.Rejected) == 0 {
		return nil // --quiet: a file that imports whole is not a problem
	}
	fmt.Fprintf(out, "%s: %s\n", f, verdict)
	format := sum.Format
	if sum.FormatVersion != "" {
		format += " " + sum.FormatVersion
	}
	if sum.Mapping != "" {
		format += fmt.Sprintf(" (mapping %q)", sum.Mapping)
	}
	if sum.Encoding != "" {
		format += ", decoded from " + strings.ToUpper(sum.Encoding)
	}
	fmt.Fprintf(out, "  format:     %s\n", format)
	rows := fmt.Sprintf("%d good, %d rejected", sum.Rows, len(sum.Rejected))
	if sum.Skipped > 0 {
		rows += fmt.Sprintf(", %d skipped (not charges: deposits, payouts)", sum.Skipped)
	}
	fmt.Fprintf(out, "  rows:       %s\n", rows)
	if !sum.PeriodStart.IsZero() {
		fmt.Fprintf(out, "  period:     %s .. %s\n", sum.PeriodStart.Format(time.RFC3339), sum.PeriodEnd.Format(time.RFC3339))
	}
	if sum.SampleInterval > 0 {
		fmt.Fprintf(out, "  interval:   every %s\n", sum.SampleInterval.Round(time.Second))
	}
	if sum.SamplesDropped > 0 {
		fmt.Fprintf(out, "  dropped:    %d samples (utilization outside 0–100 %%)\n", sum.SamplesDropped)
	}
	if sum.Kind == ingest.KindBilling {
		cur := strings.Join(sum.Currencies, ", ")
		if cur == "" {
			cur = "none given"
		}
		fmt.Fprintf(out, "  currency:   %s\n", cur)
		fmt.Fprintf(out, "  total cost: %s\n", totalCost(sum))
		fmt.Fprintf(out, "  GPU lines:  %d of %d\n", sum.GPULines, sum.Rows)
		if len(sink.unknown) > 0 {
			fmt.Fprintf(out, "  unknown GPUs: %d lines name a GPU the catalog does not know (the report's data quality lists them): %s\n",
				sink.unknownLines, strings.Join(sink.unknown, "; "))
		}
	}
	for _, r := range sum.Rejected {
		fmt.Fprintf(out, "  rejected: %v\n", r)
	}
	printWarnings(out, sum)
	return refused
}

func checkFile(ctx context.Context, c *config.Config, s sourceSpec, path, name string, sink ingest.Sink) (*ingest.Summary, error) {
	rc, err := ingest.Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	cc := *c
	cc.MaxBadRows = max(c.MaxBadRows, 0) + checkMoreBadRows
	return parseInput(ctx, rc, &cc, s, name, sink)
}

// checkSink is the sink of --check: it keeps nothing but the GPUs the
// catalog did not recognise.
type checkSink struct {
	unknown      []string // distinct, at most maxUnknownShown
	unknownLines int
}

const maxUnknownShown = 5

func (k *checkSink) Billing(l *finops.BillingLine) error {
	if v := l.Tags[ingest.UnknownGPUTag]; v != "" {
		k.unknownLines++
		if len(k.unknown) < maxUnknownShown && !slices.Contains(k.unknown, v) {
			k.unknown = append(k.unknown, v)
		}
	}
	return nil
}
func (*checkSink) Sample(*finops.GPUSample) error { return nil }
func (*checkSink) TaskRun(*finops.TaskRun) error  { return nil }

// printPlan says which delivery of each billing period a source's manifests
// chose, and what was left out.
// printFailed names one problem on w: a JSON result in JSON mode, else a
// FAILED line (prefix says whose, when the error itself does not).
func printFailed(w io.Writer, asJSON bool, prefix, name string, err error) {
	if asJSON {
		emitJSON(w, newFileResult(name, "failed", nil, err))
		return
	}
	fmt.Fprintf(w, "%sFAILED: %v\n", prefix, err)
}

// printPlanNotes prints what planning a source decided (delivery choices,
// files left out); its errors are printed by the caller, printFailed.
func printPlanNotes(w io.Writer, source string, plan *ingest.DeliveryPlan) {
	for _, n := range plan.Notes {
		fmt.Fprintln(w, n)
	}
	if len(plan.Skipped) > 0 {
		fmt.Fprintf(w, "%s: %d file(s) of older deliveries (or listed in no manifest) left out, e.g. %s\n",
			source, len(plan.Skipped), plan.Skipped[0])
	}
}

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

// supersededBy names the file whose charges made an import change nothing.
func supersededBy(res *store.ImportResult) string {
	if n := len(res.Overlaps); n > 0 {
		return res.Overlaps[n-1].Other
	}
	if res.Delivery != "" {
		return res.Delivery // the file that replaced it
	}
	return res.DuplicateOf
}

// printOverlaps says where an imported file's charges met another file's,
// and whose lines were kept: never a silent sum, never a silent loss.
func printOverlaps(w io.Writer, res *store.ImportResult) {
	for _, o := range res.Overlaps {
		switch o.Action {
		case store.OverlapReplaced:
			fmt.Fprintf(w, "  replaces %d lines of %s (%s): this file reaches further or restates them\n", o.Lines, o.Other, o.Scope)
		case store.OverlapKept:
			fmt.Fprintf(w, "  left out its %d lines of %s: %s holds them, newer or more\n", o.Lines, o.Scope, o.Other)
		case store.OverlapSame:
			fmt.Fprintf(w, "  left out its %d lines of %s: %s holds the same charges\n", o.Lines, o.Scope, o.Other)
		}
	}
}

// printReplaced reports the earlier deliveries an import replaced; an Azure
// actual-cost export replacing an amortized one (or the other way round) is
// a warning: both describe the same month and are never summed.
func printReplaced(w io.Writer, path string, res *store.ImportResult) {
	for _, r := range res.Replaced {
		fmt.Fprintf(w, "  replaces %s (delivery %s, %d rows) of %s\n", r.URI, r.Delivery, r.Rows, res.Period)
		if a, b := costBasis(r.Delivery), costBasis(res.Delivery); a != "" && b != "" && a != b {
			fmt.Fprintf(w, "  warning: %s is the %s export of %s and replaces the %s export %s: actual and amortized "+
				"costs of a month are never summed; keep importing one of them\n", path, b, res.Period, a, r.URI)
		}
	}
}

// costBasis reads "actual" or "amortized" from an Azure delivery id.
func costBasis(delivery string) string {
	d := strings.ToLower(delivery)
	switch {
	case strings.HasPrefix(d, "actual"):
		return "actual"
	case strings.HasPrefix(d, "amortized"):
		return "amortized"
	}
	return ""
}

// describe is the one-line account of a parsed file.
func describe(s *ingest.Summary) string {
	var b strings.Builder
	b.WriteString(s.Format)
	if s.FormatVersion != "" {
		b.WriteString(" " + s.FormatVersion)
	}
	if s.Mapping != "" {
		fmt.Fprintf(&b, " (mapping %s)", s.Mapping)
	}
	fmt.Fprintf(&b, ", %d rows", s.Rows)
	if !s.PeriodStart.IsZero() {
		fmt.Fprintf(&b, ", %s .. %s", s.PeriodStart.Format(time.RFC3339), s.PeriodEnd.Format(time.RFC3339))
	}
	if s.Kind == ingest.KindBilling {
		fmt.Fprintf(&b, ", total %s %s, %d GPU lines", roundedTotal(s), strings.Join(s.Currencies, "+"), s.GPULines)
	}
	if s.Skipped > 0 {
		fmt.Fprintf(&b, ", %d records skipped (not charges)", s.Skipped)
	}
	if s.SampleInterval > 0 {
		fmt.Fprintf(&b, ", every %s", s.SampleInterval.Round(time.Second))
	}
	if len(s.Rejected) > 0 {
		fmt.Fprintf(&b, ", %d rows rejected", len(s.Rejected))
	}
	if s.SamplesDropped > 0 {
		fmt.Fprintf(&b, ", %d samples dropped (utilization outside 0–100 %%)", s.SamplesDropped)
	}
	if s.WarningCount > 0 {
		fmt.Fprintf(&b, ", %d warnings", s.WarningCount)
	}
	return b.String()
}

// printWarnings lists a file's warnings: lines kept but suspect.
func printWarnings(w io.Writer, s *ingest.Summary) {
	for _, x := range s.Warnings {
		fmt.Fprintf(w, "  warning: %v\n", x)
	}
	if more := s.WarningCount - len(s.Warnings); more > 0 {
		fmt.Fprintf(w, "  warning: … and %d more like these\n", more)
	}
}

// ingestGCPercent is the collector's GOGC while files are ingested. An
// ingest streams: its live heap is a few MB of batches whatever the file's
// size, but it allocates for every field of every line, so at Go's default
// (100) the collector ran every few MB and took a fifth of the CPU of a
// 200,000-line FOCUS import. At 300 the import is 15 % faster on two cores
// and its peak RSS 60 → 75 MB, still flat in the file's size
// (docs/BENCHMARKS.md §Billing ingest).
const ingestGCPercent = 300

// ingestGC sets GOGC to ingestGCPercent for an ingest, unless the user set
// GOGC, and returns what restores it: a run goes on to its report, whose live
// heap is larger and whose memory the default keeps lower.
func ingestGC(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(ingestGCPercent)
	return func() { debug.SetGCPercent(prev) }
}
