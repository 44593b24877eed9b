package ingest

import (
	"fmt"
	"time"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// Formats finops can read, each an entry of the registry (formats_builtin.go).
// DetectFormat picks one from a file's header.
const (
	FormatFOCUS     = "focus"
	FormatRental    = "rental"     // any CSV read through a configured column mapping
	FormatNvidiaSMI = "nvidia-smi" // nvidia-smi --query-gpu --format=csv[,noheader,nounits]
	FormatTasks     = "tasks"      // finops tasks CSV

	FormatCUR   = "aws-cur"  // AWS Cost and Usage Report, legacy (lineItem/… or Athena snake_case columns)
	FormatCUR2  = "aws-cur2" // AWS CUR 2.0 (Data Exports): snake_case with map columns as JSON text
	FormatAzure = "azure"    // Azure Cost Management cost details (EA, MCA, camelCase, pay-as-you-go, localized)
	FormatGCP   = "gcp"      // GCP Cloud Billing export to BigQuery, as CSV or newline-delimited JSON
)

// Kinds of data a format carries.
const (
	KindBilling     = "billing"
	KindUtilization = "utilization"
	KindTasks       = "tasks"
)

// Sink receives parsed records one at a time, so a parser never holds a whole
// file in memory. Returning an error aborts the parse.
type Sink interface {
	Billing(*finops.BillingLine) error
	Sample(*finops.GPUSample) error
	TaskRun(*finops.TaskRun) error
}

// Summary describes what a parse read. It is printed by `finops ingest` and
// stored with the source file.
type Summary struct {
	Format      string
	Kind        string
	Rows        int // records delivered to the sink
	Rejected    []*ParseError
	PeriodStart time.Time // earliest charge start / sample time
	PeriodEnd   time.Time // latest charge end / sample time
	Currencies  []string
	// TotalCost is the file's total on one basis in every format: the
	// effective cost, metrics.md's cost basis and the report's (Σ Cost():
	// EffectiveCost, else BilledCost, nulls skipped). BilledCost sums the
	// billed costs beside it (nulls skipped), and EffectiveFromBilled counts
	// the lines that have a billed cost and no effective cost, so counted at
	// billed (an Azure actual-cost export's purchases and covered usage).
	TotalCost           decimal.Decimal
	BilledCost          decimal.Decimal
	EffectiveFromBilled int
	GPULines            int
	// SampleInterval is the median spacing between consecutive samples of one
	// GPU (utilization files only); the minute grid lets a sample cover that long.
	SampleInterval time.Duration
	// Period and Delivery are the restatement key a parser derives from the
	// data when the file itself says which delivery of which billing period it
	// is (Azure: billing scope and month; delivery actual or amortized). The
	// store replaces earlier sources of the same Period with another Delivery.
	// Empty when the file does not say; a manifest's key (store.FileMeta) wins.
	Period   string
	Delivery string
	// Supersede is the de-duplication rule of the file's format, as its
	// registry entry says (Format.Supersede); the store applies it
	// (SupersedeOf). Zero for a summary no registered format made.
	Supersede Supersede
	// Mapping is the column mapping a rental CSV was read through; Encoding
	// the text encoding the file was decoded from ("" for UTF-8).
	Mapping  string
	Encoding string
	// FormatVersion is the version of an older format the file was read
	// as its current one: "0.5" or "1.0-preview" for FOCUS ("" for 1.x).
	FormatVersion string
	// Skipped counts records read and deliberately left out because they are
	// not charges (Vast.ai balance deposits and payouts).
	Skipped int
	// Warnings are lines kept but suspect (a charge period longer than a
	// billing period), the first maxWarnings of WarningCount.
	Warnings     []*ParseError
	WarningCount int
	// HeaderRepeats counts the lines of an nvidia-smi log that are its header
	// again (a logger that runs nvidia-smi once per sample): skipped, warned.
	HeaderRepeats int
	// SamplesDropped counts telemetry readings that are no sample: a
	// utilization outside 0–100 % or not a number (finops.ValidUtil).
	SamplesDropped int
	// SMIFields is the field list a headerless nvidia-smi log was read with
	// (Options.SMIFields, or told from its values), so that a later part of
	// the same log can be read with the same fields (the watch's tails).
	SMIFields []string
}

// Warn records a warning, keeping the first few.
func (s *Summary) Warn(w *ParseError) {
	s.WarningCount++
	if len(s.Warnings) < maxWarnings {
		s.Warnings = append(s.Warnings, w)
	}
}

// ParseError names the file, line and field of bad input, what was expected
// and what was found.
type ParseError struct {
	File  string
	Line  int
	Field string
	Msg   string
	// Row says that Line counts data rows (a Parquet file), not lines of text.
	Row bool
}

// location is file:line, or "file: row N" for a Parquet row.
func (e *ParseError) location() string {
	switch {
	case e.Line <= 0:
		return e.File
	case e.Row:
		return fmt.Sprintf("%s: row %d", e.File, e.Line)
	}
	return fmt.Sprintf("%s:%d", e.File, e.Line)
}

func (e *ParseError) Error() string {
	loc := e.location()
	if e.Field != "" {
		return fmt.Sprintf("%s: field %q: %s", loc, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}
