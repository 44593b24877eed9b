package finops

import (
	"time"

	"github.com/shopspring/decimal"
)

// TaskRun is one row of a tasks file: a task held some GPUs of a resource
// for [Start, End) and produced Units of Unit.
type TaskRun struct {
	Line     int
	Task     string
	Team     string
	Kind     string   // training, fine-tune, inference, ...
	Resource string   // billed resource id (or name)
	GPUs     []string // GPU keys; empty = every GPU of the resource
	Start    time.Time
	End      time.Time
	Units    *decimal.Decimal
	Unit     string // e.g. "run", "1k requests", "1M tokens"
}
