package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/runjob"
	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/telemetry"
	"github.com/finops-oss/finops/internal/watch/pass"
)

// Exit codes: the one table scripts rely on (product.md).
const (
	ExitOK      = 0 // everything done
	ExitFailed  = 1 // nothing useful written
	ExitUsage   = 2 // bad flags or configuration
	ExitPartial = 3 // report written, but a source was missing or stale (the report says which)
	ExitPublish = 4 // report written, but upload or email failed (retried next run)
	ExitBusy    = 5 // another run holds the database's run lock; nothing done
)

// usageError marks bad flags or configuration.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// asUsage marks err, if any, as a usage error.
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// exitCode maps an error to the exit-code table: the packages' error types,
// and store.ErrLocked (a run lock another process holds).
func exitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, store.ErrLocked), errors.As(err, new(pass.BusyError)):
		return ExitBusy
	case errors.As(err, new(usageError)), errors.As(err, new(pass.ConfigError)), errors.As(err, new(source.ConfigError)),
		errors.As(err, new(reportjob.ConfigError)):
		return ExitUsage
	case errors.As(err, new(pass.UndeliveredError)), errors.As(err, new(runjob.UndeliveredError)):
		return ExitPublish
	case errors.As(err, new(pass.PartialError)), errors.As(err, new(telemetry.PartialError)),
		errors.As(err, new(reportjob.PartialError)):
		return ExitPartial
	default:
		return ExitFailed
	}
}

// usageArgs makes cobra's argument checks usage errors (exit 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}
