package importer

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/store"
)

// PrintImport says what importing the file called uri did: imported (with
// Describe, its warnings and overlaps), a duplicate or superseded, and
// which earlier deliveries it replaced and what that changed (a drop
// beyond maxDrop, thresholds.max_restatement_drop, with a warning).
func PrintImport(w io.Writer, uri string, res *store.ImportResult, maxDrop float64) {
	if res.Superseded {
		if res.Period != "" {
			fmt.Fprintf(w, "%s: an earlier delivery of %s, since replaced by %s: nothing changed\n", uri, res.Period, res.Delivery)
		} else {
			fmt.Fprintf(w, "%s: an older copy of charges that %s holds: nothing changed (finops ingest --replace %s brings it back)\n",
				uri, supersededBy(res), uri)
		}
	} else if res.Duplicate {
		switch {
		case len(res.Replaced) > 0:
			fmt.Fprintf(w, "%s: already imported (same bytes as %s), now part of delivery %s\n", uri, res.DuplicateOf, res.Delivery)
		case len(res.Overlaps) > 0:
			fmt.Fprintf(w, "%s: already imported (the same charges as %s, in other bytes): nothing changed\n", uri, res.DuplicateOf)
		default:
			fmt.Fprintf(w, "%s: already imported (same bytes as %s): nothing changed\n", uri, res.DuplicateOf)
		}
	} else {
		fmt.Fprintf(w, "%s: %s\n", uri, Describe(res.Summary))
		PrintWarnings(w, res.Summary)
		printOverlaps(w, res)
	}
	printReplaced(w, uri, res)
	printPeriodChange(w, res.PeriodChange, maxDrop)
}

// printPeriodChange says what a delivery that replaced its period's earlier
// one changed; a drop beyond maxDrop is a warning: the period's reports
// will say it too, and be incomplete.
func printPeriodChange(w io.Writer, c *store.PeriodChange, maxDrop float64) {
	if c == nil {
		return
	}
	fmt.Fprintf(w, "  %s\n", c)
	if c.Beyond(maxDrop) {
		fmt.Fprintf(w, "  warning: run %s of %s is %.0f %% below the run it replaced (thresholds.max_restatement_drop: %.0f %%): "+
			"the period's reports are incomplete until a later run restores it. If the run was cut short, copy the whole "+
			"delivery again; `finops ingest --replace <the old run's manifest>` brings the old run back\n",
			c.New, c.Period, 100*c.Drop, 100*maxDrop)
	}
}

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
		switch {
		case o.Action == store.OverlapReplaced && o.Forced && o.Lost == 0:
			fmt.Fprintf(w, "  replaces %d lines of %s (%s) on purpose (--replace); this file holds every one of their charges\n",
				o.Lines, o.Other, o.Scope)
		case o.Action == store.OverlapReplaced && o.Forced:
			fmt.Fprintf(w, "  replaces %d lines of %s (%s) on purpose (--replace): %d of its charges (%s) are in no other file and are gone\n",
				o.Lines, o.Other, o.Scope, o.Lost, o.LostCost)
		case o.Action == store.OverlapReplaced:
			fmt.Fprintf(w, "  replaces %d lines of %s (%s): this file holds every one of its charges (%d restated)\n", o.Lines, o.Other, o.Scope,
				o.Restated)
		case o.Action == store.OverlapKept && o.Restated > 0:
			fmt.Fprintf(w, "  left out its %d lines of %s: %s holds every one of their charges, %d of them at other amounts, "+
				"which stay (`finops ingest --replace` makes this file's win)\n", o.Lines, o.Scope, o.Other, o.Restated)
		case o.Action == store.OverlapKept:
			fmt.Fprintf(w, "  left out its %d lines of %s: %s holds every one of their charges\n", o.Lines, o.Scope, o.Other)
		case o.Action == store.OverlapSame:
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

// Describe is the one-line account of a parsed file.
func Describe(s *ingest.Summary) string {
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
		fmt.Fprintf(&b, ", total %s, %d GPU lines", totalBasis(s), s.GPULines)
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

// totalBasis is a billing file's total on its one basis, effective cost,
// with the billed cost beside it: "120.00 USD effective (billed 130.00)",
// and how many lines, lacking an effective cost, count at billed.
func totalBasis(s *ingest.Summary) string {
	t := strings.TrimSpace(roundedTotal(s) + " " + strings.Join(s.Currencies, "+"))
	b := roundedBilled(s)
	if n := fromBilled(s); n != "" {
		b += "; " + n
	}
	return fmt.Sprintf("%s effective (billed %s)", t, b)
}

// PrintWarnings lists a file's warnings: lines kept but suspect.
func PrintWarnings(w io.Writer, s *ingest.Summary) {
	for _, x := range s.Warnings {
		fmt.Fprintf(w, "  warning: %v\n", x)
	}
	if more := s.WarningCount - len(s.Warnings); more > 0 {
		fmt.Fprintf(w, "  warning: … and %d more like these\n", more)
	}
}
