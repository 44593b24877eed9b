package telemetry

import (
	"errors"
	"fmt"
)

// PartialError marks a fetch in which every server that failed still gave
// some of its days: the CLI's exit 3, where a server that gave nothing is
// exit 1.
type PartialError struct{ Err error }

func (e PartialError) Error() string { return e.Err.Error() }
func (e PartialError) Unwrap() error { return e.Err }

// Failure is the outcome of a Fetch: nil when every server answered, else
// the servers' errors joined, as a PartialError when each of the failed
// servers still gave some days.
func Failure(rs []Result) error {
	var errs []error
	partial := true
	for _, r := range rs {
		if r.Err != nil {
			errs = append(errs, r.Err)
			partial = partial && r.Partial
		}
	}
	if len(errs) == 0 {
		return nil
	}
	err := fmt.Errorf("ingest prometheus: %w", errors.Join(errs...))
	if partial {
		return PartialError{err}
	}
	return err
}
