// Package reportjob loads what a report's analysis needs from the store and
// the configuration (analysis.Input: lines, GPU series, tasks, the advice
// decisions, the data-quality box's sources and warnings, the watch's
// activity), runs the analysis and says whether the result is whole. cmd
// keeps the flags, the printing and the writing of the files.
package reportjob

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
)

// ConfigError marks a refusal the configuration or the flags cause (a
// missing exchange rate, an empty window, an unknown team): exit 2.
type ConfigError struct{ Err error }

func (e ConfigError) Error() string { return e.Err.Error() }
func (e ConfigError) Unwrap() error { return e.Err }

// PartialError marks a report written without some of its sources, or
// whose data the analysis found incomplete: exit 3.
type PartialError struct{ Err error }

func (e PartialError) Error() string { return e.Err.Error() }
func (e PartialError) Unwrap() error { return e.Err }

// Analyze runs the analysis until ctx is done. Its refusals (a missing FX
// rate, an empty window) are configuration errors; a signal is not, nor the
// store failing under what it reads as it goes (StoreReadError).
func Analyze(ctx context.Context, in *analysis.Input) (*analysis.Result, error) {
	res, err := analysis.AnalyzeContext(ctx, in)
	if err != nil && ctx.Err() == nil && !errors.As(err, new(StoreReadError)) {
		err = ConfigError{err}
	}
	return res, err
}

// Incomplete is the partial result (exit 3) of a report written without
// some of its sources (missing names them), or whose data the analysis found
// incomplete (a telemetry source that stopped, coverage below
// thresholds.min_coverage); nil when it is whole.
func Incomplete(missing []string, res *analysis.Result) error {
	if len(missing) > 0 {
		return PartialError{fmt.Errorf("report written, but %d sources were missing or failed: %s",
			len(missing), strings.Join(missing, ", "))}
	}
	if inc := res.DataQuality.Incomplete; len(inc) > 0 {
		return PartialError{fmt.Errorf("report written, but its data is incomplete: %s", strings.Join(inc, "; "))}
	}
	return nil
}
