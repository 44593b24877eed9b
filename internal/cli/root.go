package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/telemetry"
	"github.com/finops-oss/finops/internal/watch"
	"github.com/finops-oss/finops/internal/watch/pass"
)

// Main holds what every command shares: streams, the clock and global flags.
type Main struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Now            func() time.Time
	Getenv         func(string) string
	// Version is what `finops version` says and the reports carry: cmd/finops
	// sets it from its build-time version (-ldflags "-X main.version=…").
	Version string

	configPath string
	dbPath     string
	logFormat  string
	verbose    bool
	quiet      bool
	logger     *slog.Logger

	// The fields below are seams for the end-to-end tests (e2e/), which
	// drive Main from another package: the zero value of each is what the
	// binary does.

	// ProgressEvery is the least time between two drawings of a progress
	// bar (zero: 100ms); the tests draw every change.
	ProgressEvery time.Duration

	// WatchChannels, when set, gives the sender of a watch channel (tests:
	// a recording one); nil, or a nil result, builds the real one.
	WatchChannels func(config.Channel) pass.Sender

	// SendBackoff is the wait before each retry of a refused email (nil:
	// deliver's); the tests that cut connections need not wait.
	SendBackoff []time.Duration

	// WatchLockWait is how long a run waits for a watch pass holding the
	// run lock (zero: defaultWatchLockWait).
	WatchLockWait time.Duration

	// WatchBeforeLedger, when set, runs after a pass stored its telemetry and
	// before it records its decisions and cursors; an error ends the pass
	// there (tests: a pass killed between the two).
	WatchBeforeLedger func() error

	// WatchTailReader, when set, wraps each log file a pass reads by its
	// tail (tests: count the bytes read of a long log new to the watch).
	WatchTailReader func(path string, r io.ReaderAt) io.ReaderAt

	cpuProfile, memProfile string
	stopProfiles           func() error
	holdLines              int // --hold-lines: reportjob.Options.HoldLines of the weekly report
}

// NewMain returns a Main wired to the process. Standard output goes through
// a sanitize.Writer: its lines quote file names, file contents and source
// addresses, and none of them may act on the terminal or show a password.
func NewMain(stdin io.Reader, stdout, stderr io.Writer) *Main {
	return &Main{Stdin: stdin, Stdout: sanitize.NewWriter(stdout), Stderr: stderr, Now: time.Now, Getenv: os.Getenv, Version: "dev"}
}

// Run executes one command line and returns the process exit code.
func (m *Main) Run(ctx context.Context, args []string) int {
	root := m.RootCommand()
	root.SetArgs(args)
	root.SetIn(m.Stdin)
	root.SetOut(m.Stdout)
	root.SetErr(m.Stderr)
	err := root.ExecuteContext(ctx)
	if m.stopProfiles != nil {
		err = errors.Join(err, m.stopProfiles())
	}
	if err != nil && strings.HasPrefix(err.Error(), "unknown command") {
		err = usageError{err}
	}
	if err != nil {
		// The message may quote a file's bytes or a source's address.
		msg := redact(err.Error())
		switch code := exitCode(err); {
		case m.logger != nil && (code == ExitPartial || code == ExitPublish):
			// The report was written: a warning the reader acts on, not a failure.
			m.logger.Warn("finops finished, but not everything is complete", "exit", code, "error", msg)
		case m.logger != nil && code != ExitUsage:
			m.logger.Error("finops failed", "error", msg) // the handler quotes control characters
		default:
			fmt.Fprintf(m.Stderr, "finops: %s\n", sanitize.Text(msg))
		}
	}
	return exitCode(err)
}

// RootCommand is the finops command tree over m's streams and flags (Run
// executes it; e2e's README test lists its commands).
func (m *Main) RootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "finops",
		Short: "Where rented-GPU money goes, and how to spend less",
		Long: "finops ingests GPU billing exports and GPU utilization into one SQLite file, computes cost per\n" +
			"team and task, idle waste and rent-mode recommendations, and writes xlsx, html and json reports.",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if m.holdLines < 0 {
				return usagef("--hold-lines %d: want 0 or more billing lines (0 streams them all)", m.holdLines)
			}
			if err := m.setupLogging(); err != nil {
				return err
			}
			stop, err := m.startProfiles()
			m.stopProfiles = stop
			return err
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	// --version prints what `finops version` prints (cobra's own template says
	// "finops version dev" and leaves out the schema).
	root.Version = m.Version
	root.SetVersionTemplate(m.versionLine())
	pf := root.PersistentFlags()
	pf.StringVar(&m.configPath, "config", "", "config file (default ./finops.yaml or $FINOPS_CONFIG)")
	pf.StringVar(&m.dbPath, "db", "", "SQLite database (default from config, else ./finops.db)")
	pf.StringVar(&m.logFormat, "log-format", "text", "log format: text or json (json: stdout carries one JSON object per result, for scripts)")
	pf.BoolVarP(&m.verbose, "verbose", "v", false, "verbose logging")
	pf.BoolVarP(&m.quiet, "quiet", "q", false, "no progress bars and no summaries: only errors (and, with --log-format json, the JSON results)")
	pf.StringVar(&m.cpuProfile, "cpuprofile", "", "write a CPU profile of the command to this file")
	pf.StringVar(&m.memProfile, "memprofile", "", "write a heap profile at the end of the command to this file")
	pf.IntVar(&m.holdLines, "hold-lines", reportjob.HoldLines, "the most billing lines a report holds in memory; more are read from the database as the analysis goes (0: always)")
	pf.MarkHidden("cpuprofile")
	pf.MarkHidden("memprofile")
	pf.MarkHidden("hold-lines")
	root.AddCommand(m.demoCommand(), m.ingestCommand(), m.reportCommand(), m.runCommand(), m.reviewCommand(), m.versionCommand())
	root.AddCommand(m.collectCommand())
	root.AddCommand(m.planCommand())
	root.AddCommand(m.restoreCommand())
	root.AddCommand(m.doctorCommand())
	root.AddCommand(m.watchCommand())
	root.AddCommand(m.adviceCommand())
	root.AddCommand(m.rollupCommand())
	return root
}

func (m *Main) setupLogging() error {
	level := slog.LevelInfo
	if m.verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	switch m.logFormat {
	case "text":
		m.logger = slog.New(slog.NewTextHandler(m.Stderr, opts))
	case "json":
		m.logger = slog.New(slog.NewJSONHandler(m.Stderr, opts))
	default:
		return usagef("--log-format %q: want text or json", m.logFormat)
	}
	return nil
}

// loadConfig reads --config, $FINOPS_CONFIG or ./finops.yaml (only an
// explicitly named file must exist) and returns it with its time zone.
func (m *Main) loadConfig() (*config.Config, *time.Location, error) {
	path, required := m.configPath, true
	if path == "" {
		path = m.Getenv("FINOPS_CONFIG")
	}
	if path == "" {
		path, required = "finops.yaml", false
	}
	c, err := config.Load(path, required, capped.ReadRegular, configChecks()...)
	if err != nil {
		return nil, nil, usageError{err}
	}
	loc, err := c.Location()
	if err != nil {
		return nil, nil, usageError{err}
	}
	return c, loc, nil
}

// configChecks are the checks of the config that take what other packages
// own (config.Check): run at load, so they read as config's own refusals.
func configChecks() []config.Check {
	return []config.Check{source.CheckConfig, telemetry.CheckConfig, config.GPUModelCheck(gpu.Model),
		config.CommandCheck(watch.CheckCommand)}
}

// openStore opens the database (databasePath), creating it when it does not
// exist: only the commands that put data in (ingest, run, demo) use it.
func (m *Main) openStore(ctx context.Context, c *config.Config) (*store.Store, error) {
	return store.Open(ctx, m.databasePath(c))
}

// openExistingStore opens the database for the commands that only read it
// (report, review). A missing file is a usage error, not an empty database:
// a --db typo must not produce a report of zeros with exit 0.
func (m *Main) openExistingStore(ctx context.Context, c *config.Config) (*store.Store, error) {
	path := m.databasePath(c)
	if missing, err := checkDatabase(path); missing {
		return nil, usagef("no database at %s: create it with `finops ingest` (or `finops run`), "+
			"or name the right one with --db or the config's database key", path)
	} else if err != nil {
		return nil, err
	}
	return store.Open(ctx, path)
}

// checkDatabase stats the database file before anything opens it (SQLite
// would create a missing one): missing says there is none; err that the path
// is not one finops can use.
func checkDatabase(path string) (missing bool, err error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("open database: %w", err)
	case !fi.Mode().IsRegular():
		return false, usagef("database %s is not a regular file: point --db or the config's database key at the SQLite file", path)
	}
	return false, nil
}

// databasePath is --db, else the config's database, else ./finops.db.
func (m *Main) databasePath(c *config.Config) string {
	return cmp.Or(m.dbPath, c.Database, "finops.db")
}

// interactive reports whether w is a terminal: progress and colour only then,
// so cron mail stays clean.
func interactive(w io.Writer) bool {
	f, ok := unfiltered(w).(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// unfiltered is w without the sanitize.Writer NewMain puts on standard
// output, for the one writer that sends escape sequences of its own: the
// coloured summary, which makes its labels safe itself.
func unfiltered(w io.Writer) io.Writer {
	if s, ok := w.(*sanitize.Writer); ok {
		return s.Unwrap()
	}
	return w
}

func (m *Main) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprint(m.Stdout, m.versionLine())
			return nil
		},
	}
}

// versionLine is the answer of `finops version` and `finops --version`.
func (m *Main) versionLine() string {
	return fmt.Sprintf("finops %s (schema %d)\n", m.Version, store.SchemaVersion())
}
