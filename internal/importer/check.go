package importer

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/source"
)

// Check parses without writing and prints on o.Out what a real import
// would do: each file once, its problems once. The error returned only
// counts them, so that they are not printed again on stderr; a source that
// can never work (source.ConfigError) is returned whole instead.
func Check(ctx context.Context, o Options, specs []source.Spec) error {
	notes := o.Out
	if o.JSON {
		notes = o.Stderr // stdout carries only the JSON results
	} else if o.Quiet {
		notes = io.Discard
	}
	var errs []error
	files := 0
	for _, s := range specs {
		plan, err := o.Sources.Plan(ctx, s.Name)
		if isConfigError(err) {
			return err // on stderr whole, as every usage error
		}
		if err != nil {
			errs = append(errs, err)
			files++
			printInvalid(o, s.Name, err)
			continue
		}
		defer plan.Close()
		printPlanNotes(notes, s.Name, plan.DeliveryPlan)
		for _, err := range plan.Errs {
			errs = append(errs, err)
			files++
			printInvalid(o, s.Name, err)
		}
		for _, pf := range plan.Files {
			files++
			if err := checkOne(ctx, o, s, pf.Path, plan.URI(pf.Path)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return ReportedError{fmt.Sprintf("ingest --check: %d of %d files would not import (each is named on standard output)", len(errs), files), errs[0]}
	}
	return nil
}

// printInvalid reports a source or file that could not be read at all.
func printInvalid(o Options, name string, err error) {
	if o.JSON {
		emitJSON(o.Out, newFileResult(name, "invalid", nil, err))
		return
	}
	fmt.Fprintf(o.Out, "INVALID: %v\n", err)
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
func checkOne(ctx context.Context, o Options, s source.Spec, path, f string) error {
	out, c := o.Out, o.Config
	// The same guard as an import's: a sample no clock could have written
	// is said by the check too, not only refused later by the import.
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	sink := &CheckSink{}
	guard := ingest.NewClockGuard(sink, f, now())
	sum, err := CheckFile(ctx, c, s, path, f, guard)
	if err == nil {
		err = guard.Finish(sum)
	}
	tooMany := sum != nil && len(sum.Rejected) > c.MaxBadRows
	if err != nil && !tooMany {
		if o.JSON {
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
	if o.JSON {
		r := newFileResult(f, "ok", sum, refused)
		if refused != nil {
			r.Status = "invalid"
		}
		r.UnknownGPUs = sink.unknown
		emitJSON(out, r)
		return refused
	}
	if o.Quiet && refused == nil && len(sum.Rejected) == 0 {
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
		fmt.Fprintf(out, "  total cost: %s (effective)\n", totalCost(sum))
		fmt.Fprintf(out, "  billed:     %s\n", billedBeside(sum))
		fmt.Fprintf(out, "  GPU lines:  %d of %d\n", sum.GPULines, sum.Rows)
		if len(sink.unknown) > 0 {
			fmt.Fprintf(out, "  unknown GPUs: %d lines name a GPU the catalog does not know (the report's data quality lists them): %s\n",
				sink.unknownLines, strings.Join(sink.unknown, "; "))
		}
	}
	for _, r := range sum.Rejected {
		fmt.Fprintf(out, "  rejected: %v\n", r)
	}
	PrintWarnings(out, sum)
	return refused
}

// CheckFile parses the file path of s (called name) into sink, storing
// nothing, reading checkMoreBadRows bad rows past the config's limit.
func CheckFile(ctx context.Context, c *config.Config, s source.Spec, path, name string, sink ingest.Sink) (*ingest.Summary, error) {
	rc, err := ingest.Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	cc := *c
	cc.MaxBadRows = max(c.MaxBadRows, 0) + checkMoreBadRows
	return ParseInput(ctx, rc, &cc, s, name, sink)
}

// CheckSink is the sink of a check: it keeps nothing but the GPUs the
// catalog did not recognise.
type CheckSink struct {
	unknown      []string // distinct, at most maxUnknownShown
	unknownLines int
}

const maxUnknownShown = 5

func (k *CheckSink) Billing(l *finops.BillingLine) error {
	if v := l.Tags[ingest.UnknownGPUTag]; v != "" {
		k.unknownLines++
		if len(k.unknown) < maxUnknownShown && !slices.Contains(k.unknown, v) {
			k.unknown = append(k.unknown, v)
		}
	}
	return nil
}
func (*CheckSink) Sample(*finops.GPUSample) error { return nil }
func (*CheckSink) TaskRun(*finops.TaskRun) error  { return nil }
