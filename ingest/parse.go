package ingest

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Formats finops can read. Detect picks one from a file's header.
const (
	FormatFOCUS     = "focus"
	FormatRental    = "rental"     // any CSV read through a configured column mapping
	FormatNvidiaSMI = "nvidia-smi" // nvidia-smi --query-gpu --format=csv[,noheader,nounits]
	FormatTasks     = "tasks"      // finops tasks CSV
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
	Billing(*BillingLine) error
	Sample(*GPUSample) error
	TaskRun(*TaskRun) error
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
	TotalCost   decimal.Decimal // Σ Cost() over billing lines (nulls skipped)
	GPULines    int
	// SampleInterval is the median spacing between consecutive samples of one
	// GPU (utilization files only); the minute grid lets a sample cover that long.
	SampleInterval time.Duration
}

// ParseError names the file, line and field of bad input, what was expected
// and what was found.
type ParseError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *ParseError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: field %q: %s", loc, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}
