package importer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/store"
)

// emitJSON writes v on w as one line of JSON.
func emitJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("importer: json result: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", sanitize.JSON(b)) // no control or invisible character raw
	return err
}

// fileResult is what ingesting or checking one file did: the JSON object
// `ingest` and `ingest --check` write per file in JSON mode.
type fileResult struct {
	File   string `json:"file"`
	Status string `json:"status"` // ingest: imported, duplicate, superseded, failed; --check: ok, invalid
	// What the file holds, when it could be read.
	Format      string     `json:"format,omitempty"`
	Mapping     string     `json:"mapping,omitempty"`
	Kind        string     `json:"kind,omitempty"`
	Rows        int        `json:"rows"`
	Rejected    int        `json:"rejected"`
	Skipped     int        `json:"skipped,omitempty"`
	PeriodStart *time.Time `json:"period_start,omitempty"`
	PeriodEnd   *time.Time `json:"period_end,omitempty"`
	Currencies  []string   `json:"currencies,omitempty"`
	// TotalCost is the effective cost (metrics.md's basis, in every format),
	// BilledCost the billed cost beside it; decimal text, rounded to the
	// currency's minor unit. EffectiveFromBilled: lines without an effective
	// cost, counted at their billed cost in total_cost.
	TotalCost           string   `json:"total_cost,omitempty"`
	CostBasis           string   `json:"cost_basis,omitempty"` // "effective"
	BilledCost          string   `json:"billed_cost,omitempty"`
	EffectiveFromBilled int      `json:"lines_effective_from_billed,omitempty"`
	GPULines            *int     `json:"gpu_lines,omitempty"`
	UnknownGPUs         []string `json:"unknown_gpus,omitempty"` // --check: GPU names the catalog does not know (the first few)
	DuplicateOf         string   `json:"duplicate_of,omitempty"`
	Replaced            []string `json:"replaced,omitempty"` // earlier deliveries of the period this import replaced
	// Overlaps: where the file's charges met another file's, and whose won.
	Overlaps []overlapResult `json:"overlaps,omitempty"`
	// PeriodChange: what this file's delivery changed from the earlier
	// delivery of its billing period that it replaced.
	PeriodChange *periodChangeResult `json:"period_change,omitempty"`
	RejectedRows []string            `json:"rejected_rows,omitempty"`
	Warnings     []string            `json:"warnings,omitempty"`
	Error        string              `json:"error,omitempty"`
}

// overlapResult is one store.OverlapNote: action is replaced (this file's
// lines replace the other's in the scope), kept (the other's are newer or
// hold more: this file's were left out) or same (the same charges).
type overlapResult struct {
	Scope    string `json:"scope"`
	Other    string `json:"other"`
	Action   string `json:"action"`
	Lines    int    `json:"lines"`
	Restated int    `json:"restated,omitempty"` // of the other's lines replaced, those at another amount here
	// Forced: replaced by --replace; Lost charges of the other file, costing
	// LostCost, are in no file any more.
	Forced   bool   `json:"forced,omitempty"`
	Lost     int    `json:"lost,omitempty"`
	LostCost string `json:"lost_cost,omitempty"`
}

// periodChangeResult is one store.PeriodChange: drop is the share the
// period's total fell (0.87; negative when it grew), incomplete whether it
// fell beyond thresholds.max_restatement_drop.
type periodChangeResult struct {
	Period      string  `json:"period"`
	OldRun      string  `json:"old_run"`
	NewRun      string  `json:"new_run"`
	OldTotal    string  `json:"old_total"`
	NewTotal    string  `json:"new_total"`
	Drop        float64 `json:"drop"`
	OnlyOld     int     `json:"charges_only_in_old_run"`
	OnlyOldCost string  `json:"charges_only_in_old_run_cost"`
	Message     string  `json:"message"`
	Incomplete  bool    `json:"incomplete"`
}

// newFileResult describes file from its parse summary (nil: not read).
func newFileResult(file, status string, s *ingest.Summary, err error) fileResult {
	r := fileResult{File: file, Status: status}
	if err != nil {
		r.Error = sanitize.Redact(err.Error())
	}
	if s == nil {
		return r
	}
	r.Format, r.Mapping, r.Kind, r.Rows, r.Rejected, r.Skipped = s.Format, s.Mapping, s.Kind, s.Rows, len(s.Rejected), s.Skipped
	if !s.PeriodStart.IsZero() {
		start, end := s.PeriodStart, s.PeriodEnd
		r.PeriodStart, r.PeriodEnd = &start, &end
	}
	if s.Kind == ingest.KindBilling {
		n := s.GPULines
		r.Currencies, r.TotalCost, r.GPULines = s.Currencies, roundedTotal(s), &n
		r.CostBasis, r.BilledCost, r.EffectiveFromBilled = "effective", roundedBilled(s), s.EffectiveFromBilled
	}
	for _, x := range s.Rejected {
		r.RejectedRows = append(r.RejectedRows, sanitize.Redact(x.Error()))
	}
	for _, x := range s.Warnings {
		r.Warnings = append(r.Warnings, sanitize.Redact(x.Error()))
	}
	return r
}

// roundedTotal is a file's total cost rounded to its currency's minor unit
// (amount.MinorDigits): 14.98, not 14.97651418586. A file of several
// currencies takes the most decimals among them.
func roundedTotal(s *ingest.Summary) string { return s.TotalCost.StringFixed(minorDigits(s)) }

// roundedBilled is a file's billed cost rounded as roundedTotal rounds.
func roundedBilled(s *ingest.Summary) string { return s.BilledCost.StringFixed(minorDigits(s)) }

// minorDigits is how many decimals a file's amounts are rounded to.
func minorDigits(s *ingest.Summary) int32 {
	d := 0
	for _, c := range s.Currencies {
		d = max(d, amount.MinorDigits(c))
	}
	if len(s.Currencies) == 0 {
		d = amount.MinorDigits("")
	}
	return int32(d)
}

// billedBeside is a file's billed cost, said beside its effective total,
// with the lines that count at billed in that total for want of an
// effective cost.
func billedBeside(s *ingest.Summary) string {
	if n := fromBilled(s); n != "" {
		return roundedBilled(s) + " (" + n + " in the total)"
	}
	return roundedBilled(s)
}

// fromBilled says how many lines count at billed in the effective total, or "".
func fromBilled(s *ingest.Summary) string {
	switch s.EffectiveFromBilled {
	case 0:
		return ""
	case 1:
		return "1 line has no effective cost and counts at billed"
	}
	return fmt.Sprintf("%d lines have no effective cost and count at billed", s.EffectiveFromBilled)
}

// totalCost is a file's rounded total with its currency, for people.
func totalCost(s *ingest.Summary) string {
	t := roundedTotal(s)
	switch len(s.Currencies) {
	case 0:
		return t
	case 1:
		return t + " " + s.Currencies[0]
	}
	return t + " in mixed currencies (" + strings.Join(s.Currencies, ", ") + "); the report converts them with fx"
}

// importResult is the JSON result of importing one file; maxDrop is
// thresholds.max_restatement_drop.
func importResult(file string, res *store.ImportResult, maxDrop float64) fileResult {
	status := "imported"
	switch {
	case res.Superseded:
		status = "superseded"
	case res.Duplicate:
		status = "duplicate"
	}
	r := newFileResult(file, status, res.Summary, nil)
	r.DuplicateOf = res.DuplicateOf
	for _, o := range res.Overlaps {
		r.Overlaps = append(r.Overlaps, overlapResult{Scope: o.Scope, Other: o.Other, Action: o.Action, Lines: o.Lines,
			Restated: o.Restated, Forced: o.Forced, Lost: o.Lost, LostCost: o.LostCost})
	}
	for _, x := range res.Replaced {
		r.Replaced = append(r.Replaced, x.URI)
	}
	if c := res.PeriodChange; c != nil {
		r.PeriodChange = &periodChangeResult{Period: c.Period, OldRun: c.Old, NewRun: c.New, OldTotal: c.OldTotal,
			NewTotal: c.NewTotal, Drop: c.Drop, OnlyOld: c.OnlyOld, OnlyOldCost: c.OnlyOldCost, Message: c.String(),
			Incomplete: c.Beyond(maxDrop)}
	}
	return r
}
