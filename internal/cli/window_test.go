package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/importer"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/runjob"
	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/telemetry"
	"github.com/finops-oss/finops/internal/watch/pass"
)

// now is the fixed clock of these tests (the end-to-end tests' too): Monday
// 2026-11-30 11:00 in Shanghai.
var now = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

// TestWindowFlagsUsage: a period the flags cannot name is a usage error
// (exit 2); config.Period's tests pin the windows themselves.
func TestWindowFlagsUsage(t *testing.T) {
	for _, bad := range []config.Period{{Week: "2026-47"}, {Week: "2026-W54"}, {Since: "soon"}, {Since: "36h"}, {From: "2026-11-01"},
		{Since: "7d", Week: "2026-W47"}, {From: "2026-11-30", To: "2026-11-01"}} {
		if _, err := ReportWindow(bad, now, time.UTC); exitCode(err) != ExitUsage {
			t.Errorf("%+v: err %v, want a usage error", bad, err)
		}
	}
	if _, err := fetchWindow(config.Period{Since: "soon"}, now, time.UTC); exitCode(err) != ExitUsage {
		t.Errorf("fetch --since soon: err %v, want a usage error", err)
	}
}

func TestExitCodes(t *testing.T) {
	base := errors.New("x")
	for _, tc := range []struct {
		err  error
		code int
	}{
		{nil, ExitOK},
		{base, ExitFailed},
		{usageError{base}, ExitUsage},
		{fmt.Errorf("wrapped: %w", usageError{base}), ExitUsage},
		// A report's and a run's errors, and a held run lock.
		{reportjob.ConfigError{Err: base}, ExitUsage},
		{reportjob.PartialError{Err: base}, ExitPartial},
		{runjob.UndeliveredError{Err: base}, ExitPublish},
		{errors.Join(runjob.UndeliveredError{Err: base}, reportjob.PartialError{Err: base}), ExitPublish},
		{fmt.Errorf("advice done: %w", &store.LockedError{Path: "finops.db.lock"}), ExitBusy},
		// A watch pass's errors, and several of them joined: the table's order.
		{pass.BusyError{Err: base}, ExitBusy},
		{pass.ConfigError{Err: base}, ExitUsage},
		{pass.UndeliveredError{Err: base}, ExitPublish},
		{pass.PartialError{Err: base}, ExitPartial},
		{errors.Join(pass.PartialError{Err: base}, pass.UndeliveredError{Err: base}), ExitPublish},
		// A source that can never work, a fetch that got some days, and an
		// ingest's count of problems, which takes its first's code.
		{source.ConfigError{Err: base}, ExitUsage},
		{telemetry.PartialError{Err: base}, ExitPartial},
		{importer.ReportedError{Msg: "2 problems", First: source.ConfigError{Err: base}}, ExitUsage},
		{source.RenamedError{Msg: "redacted", Err: usageError{base}}, ExitUsage},
	} {
		if got := exitCode(tc.err); got != tc.code {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.code)
		}
	}
}

// TestRedactKeepsExitCode: a secret removed from an error's message does not
// change what the error is (restore used to return a plain error: exit 1).
func TestRedactKeepsExitCode(t *testing.T) {
	const key = "AKIASECRETKEY123"
	for _, err := range []error{usageError{errors.New("bad key " + key)}, fmt.Errorf("held %s: %w", key, store.ErrLocked),
		runjob.UndeliveredError{Err: errors.New("upload with " + key)}} {
		got := redactErr(err, key, "", "abc")
		if strings.Contains(got.Error(), key) || !strings.Contains(got.Error(), "[redacted]") {
			t.Errorf("redactErr(%q) = %q", err, got)
		}
		if exitCode(got) != exitCode(err) {
			t.Errorf("redactErr(%q): exit %d, want %d", err, exitCode(got), exitCode(err))
		}
	}
	if redactErr(nil, key) != nil {
		t.Error("redactErr(nil) != nil")
	}
}
