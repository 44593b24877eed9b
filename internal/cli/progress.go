package cli

import (
	"cmp"
	"time"

	"github.com/finops-oss/finops/internal/deliver"
	"github.com/finops-oss/finops/internal/progress"
)

// ProgressEnv forces the bars on, for a terminal behind a pipe (tee) and
// for the tests.
const ProgressEnv = "FINOPS_PROGRESS"

// bars are this command line's progress bars (progress.Bars).
type bars struct{ progress.Bars }

// bars draws the progress of long work on standard error: only when it is a
// terminal (or FINOPS_PROGRESS=1 says it is one the check cannot see), and
// never with --quiet, so that cron mail and scripts get no \r or bar
// characters.
func (m *Main) bars() bars {
	return bars{progress.Bars{W: m.Stderr, On: !m.quiet && (interactive(m.Stderr) || m.Getenv(ProgressEnv) == "1"),
		Every: cmp.Or(m.ProgressEvery, 100*time.Millisecond)}}
}

// deliveryBytes is a bar of bytes sent for package deliver.
func (b bars) deliveryBytes(label string, size int64) deliver.Progress {
	return b.Bytes(label, "", size)
}
