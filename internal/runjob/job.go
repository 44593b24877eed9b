// Package runjob is a `finops run` after its ingest and its report: the
// run lock, the ledger's run, the delivery (package deliver decides and
// performs it) and the run's own result (a JSON line, a node-exporter
// textfile). A delivery that leaves something pending is an
// UndeliveredError (exit 4), and the next run retries it. cmd keeps the
// flags, the ingest, the report and the exit-code table.
package runjob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/deliver"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/store"
)

// UndeliveredError marks a report that was written but not delivered:
// exit 4.
type UndeliveredError struct{ Err error }

func (e UndeliveredError) Error() string { return e.Err.Error() }
func (e UndeliveredError) Unwrap() error { return e.Err }

// Options are what a run needs of cmd.
type Options struct {
	Store    *store.Store
	Config   *config.Config
	Window   analysis.Window
	Delivery deliver.Options
	Textfile string // --textfile; "": publish.metrics_textfile
	// Lock takes the database's run lock for what (cmd waits for a watch
	// pass that holds it).
	Lock func(ctx context.Context, db, what string) (*store.RunLock, error)
	// Outcome is the exit code of a run's error and the ledger's status
	// for it (store.RunOK…; "" for store.RunFailed): cmd's exit-code table.
	Outcome func(error) (code int, status string)
	// JSON: the run's standard output carries exactly one line, its
	// result; what the run says goes to Lines, io.Discard then.
	JSON    bool
	Stdout  io.Writer
	Quiet   bool
	Version string
	Getenv  func(string) string
	Now     func() time.Time
	Log     *slog.Logger
	Bytes   func(label string, size int64) deliver.Progress // a bar of bytes sent; nil: none
	Backoff []time.Duration
}

// Job is one `finops run` from taking the lock to printing its result.
type Job struct {
	o       Options
	lock    *store.RunLock
	run     *store.Run
	started time.Time // wall clock, for the duration
	d       *deliver.Run
	res     Result
	// Lines is where the run's lines go: Stdout, or io.Discard in JSON mode.
	Lines io.Writer
}

// Result is the one-line JSON result of `finops --log-format json run`.
type Result struct {
	Command         string    `json:"command"`
	Period          string    `json:"period"`
	Status          string    `json:"status"` // ok, partial, publish_failed, failed, busy, dry_run
	ExitCode        int       `json:"exit_code"`
	StartedAt       time.Time `json:"started_at"`
	FinishedAt      time.Time `json:"finished_at"`
	DurationSeconds float64   `json:"duration_seconds"`
	DryRun          bool      `json:"dry_run,omitempty"`
	deliver.Result
	Error string `json:"error,omitempty"`
}

// Start resolves the publishing settings (and their secrets), takes the
// database's run lock and records the run's start in the ledger. Settings
// it cannot use are a reportjob.ConfigError; a lock another run holds is
// store.ErrLocked, and in JSON mode the result line says busy.
func Start(ctx context.Context, o Options) (*Job, error) {
	j := &Job{o: o, started: time.Now(), Lines: o.Stdout,
		res: Result{Command: "run", Period: o.Window.Label, StartedAt: o.Now(), DryRun: o.Delivery.DryRun,
			Result: deliver.Result{Stages: map[string]string{}}}}
	tr, err := deliver.NewTransports(ctx, o.Config.Publish, o.Delivery, o.Getenv)
	if err != nil {
		return nil, reportjob.ConfigError{Err: err}
	}
	lock, err := o.Lock(ctx, o.Store.Path(), "run "+o.Window.Label)
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			j.res.Status, j.res.Error = "busy", err.Error()
			j.res.ExitCode, _ = o.Outcome(err)
			j.res.FinishedAt = o.Now()
			j.emitJSON(tr)
		}
		return nil, err
	}
	j.lock = lock
	if j.run, err = o.Store.BeginRun(ctx, o.Window.Label); err != nil {
		lock.Release()
		return nil, err
	}
	if o.JSON {
		j.Lines = io.Discard
	}
	j.d = &deliver.Run{Store: o.Store, RunID: j.run.ID, Config: o.Config, Window: o.Window, Options: o.Delivery, Transports: tr,
		Version: o.Version, Getenv: o.Getenv, Now: o.Now, Out: j.Lines, Quiet: o.Quiet, Log: o.Log, LogFailures: o.JSON,
		Bytes: o.Bytes, Backoff: o.Backoff, Result: &j.res.Result}
	if n := j.run.InterruptedBefore; n > 0 {
		fmt.Fprintf(j.Lines, "an earlier run was interrupted (%d); this run delivers what it did not\n", n)
		if o.JSON {
			o.Log.Warn("an earlier run was interrupted", "runs", n, "emails_requeued", j.run.ResetSendingBefore)
		}
	}
	return j, nil
}

// Secrets are the publishing secrets, which no message the run prints may
// carry.
func (j *Job) Secrets() []string { return j.d.Transports.Secrets }

// Ingested records how the sources fared: all of them whole, or not.
func (j *Job) Ingested(whole bool) {
	status := store.StageOK
	if !whole {
		status = store.StagePartial
	}
	j.d.Stage(store.StageIngest, status)
}

// Finish records the run's end (err, with the secrets already removed),
// releases the lock, prints the JSON result and writes the textfile. It
// returns err.
func (j *Job) Finish(err error) error {
	code, status := j.o.Outcome(err)
	if status == "" {
		status = store.RunFailed
	}
	if j.o.Delivery.DryRun && status == store.RunOK {
		status = store.RunDryRun
	}
	errText := ""
	if err != nil {
		errText = err.Error()
	}
	if ferr := j.o.Store.FinishRun(context.Background(), j.run.ID, status, errText); ferr != nil {
		j.o.Log.Warn("could not record the run's end in the ledger", "error", ferr.Error())
	}
	j.res.Status, j.res.ExitCode, j.res.Error = status, code, errText
	j.res.FinishedAt = j.o.Now()
	j.res.DurationSeconds = time.Since(j.started).Seconds()
	j.emitJSON(j.d.Transports)
	if path := j.textfile(); path != "" && !j.o.Delivery.DryRun {
		if terr := j.writeTextfile(path, code, status == store.RunOK); terr != nil {
			j.o.Log.Warn("could not write the metrics textfile", "path", path, "error", terr.Error())
		}
	}
	j.lock.Release()
	return err
}

// emitJSON prints the result line, in JSON mode, with tr's secrets removed.
func (j *Job) emitJSON(tr deliver.Transports) {
	if !j.o.JSON {
		return
	}
	b, err := json.Marshal(j.res)
	if err != nil {
		return
	}
	fmt.Fprintln(j.o.Stdout, tr.Redact(string(b)))
}

// Publish records the report stage and delivers (or, with --dry-run, says
// what the delivery would do). repErr is the report's outcome.
func (j *Job) Publish(ctx context.Context, res *analysis.Result, repErr error, dir string, formats []string) error {
	switch _, status := j.o.Outcome(repErr); {
	case repErr == nil:
		j.d.Stage(store.StageReport, store.StageOK)
	case status == store.RunPartial:
		j.d.Stage(store.StageReport, store.StagePartial)
	default:
		j.d.Stage(store.StageReport, store.StageFailed)
		return repErr
	}
	if res == nil {
		return repErr
	}
	reports := deliver.ReportFiles(res, dir, formats)
	if j.o.Delivery.DryRun {
		return errors.Join(j.d.DryRun(ctx, res, dir, reports), repErr)
	}
	if err := j.d.Deliver(ctx, res, dir, reports); err != nil {
		return errors.Join(UndeliveredError{err}, repErr)
	}
	return repErr
}
