package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/deliver"
	"github.com/finops-oss/finops/report"
	"github.com/finops-oss/finops/store"
)

// A `finops run` after ingest and report: the run lock, the ledger's run,
// the delivery (package deliver decides and performs it), and the run's own
// result (a JSON line, a node-exporter textfile). A delivery that leaves
// something pending exits 4, and the next run retries it.

// publishFlags are the run command's publishing flags.
type publishFlags struct {
	deliver.Options
	textfile string
}

// job is one `finops run` from taking the lock to printing its result.
type job struct {
	m       *Main
	st      *store.Store
	c       *config.Config
	flags   publishFlags
	lock    *store.RunLock
	run     *store.Run
	stdout  io.Writer // the process's stdout: m.Stdout is io.Discard in JSON mode
	started time.Time // wall clock, for the duration
	d       *deliver.Run
	res     runResult
}

// runResult is the one-line JSON result of `finops --log-format json run`.
type runResult struct {
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

// startJob resolves the publishing settings (and their secrets), takes the
// database's run lock and records the run's start in the ledger.
func (m *Main) startJob(ctx context.Context, st *store.Store, c *config.Config, win analysis.Window, flags publishFlags) (*job, error) {
	j := &job{m: m, st: st, c: c, flags: flags, stdout: m.Stdout, started: time.Now(),
		res: runResult{Command: "run", Period: win.Label, StartedAt: m.Now(), DryRun: flags.DryRun,
			Result: deliver.Result{Stages: map[string]string{}}}}
	tr, err := deliver.NewTransports(ctx, c.Publish, flags.Options, m.Getenv)
	if err != nil {
		return nil, usageError{err}
	}
	lock, err := m.acquireRunLock(ctx, st.Path(), "run "+win.Label)
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			err = busyError{err}
			j.res.Status, j.res.ExitCode, j.res.Error = "busy", ExitBusy, err.Error()
			j.res.FinishedAt = m.Now()
			j.emitJSON(tr)
		}
		return nil, err
	}
	j.lock = lock
	if j.run, err = st.BeginRun(ctx, win.Label); err != nil {
		lock.Release()
		return nil, err
	}
	if m.logFormat == "json" {
		// stdout carries exactly one line, the result; logs go to stderr.
		m.Stdout = io.Discard
	}
	j.d = &deliver.Run{Store: st, RunID: j.run.ID, Config: c, Window: win, Options: flags.Options, Transports: tr,
		Version: version, Now: m.Now, Out: m.Stdout, Quiet: m.quiet, Log: m.logger, LogFailures: m.logFormat == "json",
		Bytes: m.bars().deliveryBytes, Backoff: m.sendBackoff, Result: &j.res.Result}
	if n := j.run.InterruptedBefore; n > 0 {
		fmt.Fprintf(m.Stdout, "an earlier run was interrupted (%d); this run delivers what it did not\n", n)
		if m.logFormat == "json" {
			m.logger.Warn("an earlier run was interrupted", "runs", n, "emails_requeued", j.run.ResetSendingBefore)
		}
	}
	return j, nil
}

// ingested records how the sources fared.
func (j *job) ingested(results []sourceResult) {
	status := store.StageOK
	for _, r := range results {
		if r.err != nil {
			status = store.StagePartial
		}
	}
	j.d.Stage(store.StageIngest, status)
}

// finish records the run's end, releases the lock, prints the JSON result
// and writes the textfile. It returns err, redacted.
func (j *job) finish(err error) error {
	err = redactErr(err, j.d.Transports.Secrets...)
	code := exitCode(err)
	status := map[int]string{ExitOK: store.RunOK, ExitPartial: store.RunPartial, ExitPublish: store.RunPublishFailed}[code]
	if status == "" {
		status = store.RunFailed
	}
	if j.flags.DryRun && code == ExitOK {
		status = store.RunDryRun
	}
	errText := ""
	if err != nil {
		errText = err.Error()
	}
	if ferr := j.st.FinishRun(context.Background(), j.run.ID, status, errText); ferr != nil {
		j.m.logger.Warn("could not record the run's end in the ledger", "error", ferr.Error())
	}
	j.m.Stdout = j.stdout
	j.res.Status, j.res.ExitCode, j.res.Error = status, code, errText
	j.res.FinishedAt = j.m.Now()
	j.res.DurationSeconds = time.Since(j.started).Seconds()
	j.emitJSON(j.d.Transports)
	if path := j.textfile(); path != "" && !j.flags.DryRun {
		if terr := j.writeTextfile(path, code); terr != nil {
			j.m.logger.Warn("could not write the metrics textfile", "path", path, "error", terr.Error())
		}
	}
	j.lock.Release()
	return err
}

// emitJSON prints the result line, in JSON mode, with tr's secrets removed.
func (j *job) emitJSON(tr deliver.Transports) {
	if j.m.logFormat != "json" {
		return
	}
	b, err := json.Marshal(j.res)
	if err != nil {
		return
	}
	fmt.Fprintln(j.stdout, tr.Redact(string(b)))
}

func (j *job) textfile() string {
	if j.flags.textfile != "" {
		return j.flags.textfile
	}
	return j.c.Publish.MetricsTextfile
}

// writeTextfile writes the node-exporter textfile atomically (a temporary
// file renamed over it), so the collector never reads half a file.
func (j *job) writeTextfile(path string, code int) error {
	success := 0
	if code == ExitOK {
		success = 1
	}
	num := func(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }
	var b strings.Builder
	metric := func(name, help, value string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s %s\n", name, help, name, name, value)
	}
	metric("finops_last_run_timestamp_seconds", "When the last finops run finished (Unix time).", num(j.res.FinishedAt))
	metric("finops_last_run_success", "1 if the last finops run delivered everything (exit 0), else 0.", strconv.Itoa(success))
	metric("finops_last_run_exit_code", "Exit code of the last finops run: 0 ok, 1 failed, 2 config, 3 source missing, 4 upload or email failed.", strconv.Itoa(code))
	metric("finops_last_run_duration_seconds", "How long the last finops run took.", strconv.FormatFloat(j.res.DurationSeconds, 'f', 3, 64))
	if last, err := j.st.LastSuccess(context.Background()); err == nil && !last.IsZero() {
		metric("finops_last_success_timestamp_seconds", "When the last fully successful finops run finished (Unix time).", num(last))
	}
	return report.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// publish records the report stage and delivers (or, with --dry-run, says
// what the delivery would do). repErr is the report's outcome.
func (j *job) publish(ctx context.Context, res *analysis.Result, repErr error, dir string, formats []string) error {
	switch {
	case repErr == nil:
		j.d.Stage(store.StageReport, store.StageOK)
	case exitCode(repErr) == ExitPartial:
		j.d.Stage(store.StageReport, store.StagePartial)
	default:
		j.d.Stage(store.StageReport, store.StageFailed)
		return repErr
	}
	if res == nil {
		return repErr
	}
	reports := deliver.ReportFiles(res, dir, formats)
	if j.flags.DryRun {
		return errors.Join(j.d.DryRun(ctx, res, dir, reports), repErr)
	}
	if err := j.d.Deliver(ctx, res, dir, reports); err != nil {
		return errors.Join(publishError{err}, repErr)
	}
	return repErr
}
