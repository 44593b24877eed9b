package pass

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/store"
	"github.com/finops-oss/finops/internal/watch"
)

// outputTail is how much of a command's output (stdout and stderr, in the
// order written) the ledger keeps: the end, where the error usually is.
const outputTail = 4096

// runActions runs the pass's pending commands, each recorded as pending
// before (RecordWatch). Just before, telemetry is read again: a resource
// that got busy since the decision, or that cannot be confirmed idle, is left
// alone (outcome busy, with the reason).
func runActions(ctx context.Context, o Options, ids []int64) error {
	st, c := o.Store, o.Config
	var errs []error
	obs, recheckErr := observe(ctx, o, o.Now().UTC())
	if recheckErr != nil {
		// Nothing runs unconfirmed; each is closed here, not left pending
		// for the next pass to take for a crash.
		errs = append(errs, recheckErr)
	}
	// The outcomes are written even when finops is being stopped: a
	// command that ran, or was ended, is recorded as what happened to it,
	// not left pending for the next pass to call interrupted (issue #26).
	rec := context.WithoutCancel(ctx)
	for _, id := range ids {
		now := o.Now().UTC()
		if ctx.Err() != nil {
			why := "not run: finops watch was told to stop before it"
			fmt.Fprintf(o.Out, "watch: action %d: %s\n", id, why)
			errs = append(errs, st.FinishAction(rec, id, store.ActionFailed, why, nil, "", now))
			continue
		}
		a, err := st.Action(ctx, id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		why := "the re-check could not read the telemetry"
		var r *analysis.ResourceNow
		if recheckErr == nil {
			r, why = stillIdle(obs, a.Resource, now)
		}
		if why != "" {
			fmt.Fprintf(o.Out, "watch: %s %s: not run: %s\n", a.Action, a.Resource, why)
			errs = append(errs, st.FinishAction(rec, id, store.ActionBusy, why, nil, "", now))
			continue
		}
		outcome, reason, code, out := execAction(ctx, c, a, r, now)
		fmt.Fprintf(o.Out, "watch: %s %s: %s%s\n", a.Action, a.Resource, outcome, suffix(reason))
		if err := st.FinishAction(rec, id, outcome, reason, code, out, o.Now().UTC()); err != nil {
			errs = append(errs, err)
		}
		if outcome != store.ActionDone {
			errs = append(errs, fmt.Errorf("watch: %s %s: %s%s (finops watch --history -v shows its output)", a.Action, a.Resource, outcome, suffix(reason)))
		}
	}
	return errors.Join(errs...)
}

func suffix(reason string) string {
	if reason == "" {
		return ""
	}
	return " (" + reason + ")"
}

// stillIdle is the resource as the re-check sees it and "" when it is idle
// now, else why not.
func stillIdle(obs *observation, id string, now time.Time) (*analysis.ResourceNow, string) {
	for i := range obs.resources {
		r := &obs.resources[i]
		if r.ID != id {
			continue
		}
		switch {
		case r.LastSeen.IsZero() || now.Sub(r.LastSeen) > staleAfter:
			return nil, "no fresh telemetry to confirm it is idle"
		case r.IdleSince.IsZero():
			return nil, "its GPUs are busy again"
		}
		return r, ""
	}
	return nil, "no longer billed or seen"
}

// How a command and what it started are ended. The group gets SIGTERM and
// killGrace to exit before SIGKILL; stopping (finops was sent a signal and
// main exits signalGrace after it), the command gets stopWait to finish on
// its own and the group a shorter grace, so that its outcome is recorded
// before main gives up. outputWait bounds reading the output once the
// group is gone: a child that left the group (setsid) and kept the pipe
// open must not hold the pass.
const (
	killGrace     = 3 * time.Second
	stopWait      = 500 * time.Millisecond
	stopKillGrace = 500 * time.Millisecond
	outputWait    = time.Second
)

// execAction runs the argv directly (no shell) under watch.command_timeout,
// in its own process group. Its outcome is its own exit status when it
// exits: a child it left running (a "sleep 300 &", a daemon) does not make
// the pass wait for it or call the command timed out (issue #26); the
// group is ended after the command (SIGTERM, then SIGKILL), so nothing it
// started outlives the pass. When ctx is cancelled (finops was told to
// stop), the command gets stopWait to finish, then its group is ended, and
// what happened is the outcome, not "interrupted" by the next pass. Its
// environment is finops's without the secrets the config names (webhook
// URLs, signing secrets, the SMTP password), plus the resource's fields
// (watch.Env), and its stdin the decision as JSON (watch.Input): the
// only ways a value from the bill reaches it (docs/WATCH.md "Commands").
func execAction(ctx context.Context, c *config.Config, a *store.WatchAction, seen *analysis.ResourceNow, now time.Time) (outcome, reason string, code *int, output string) {
	timeout := c.Watch.Settings().CommandTimeout
	// The decision's id and team, the re-check's other fields.
	res := *seen
	res.ID = a.Resource
	if a.Team != "" {
		res.Team = a.Team
	}
	doc, err := watch.NewInput(a.Action, &res, a.IdleSince, a.DecidedAt, now, a.Rate, a.RateKnown, a.Currency, a.Argv).JSON()
	if err != nil {
		return store.ActionFailed, fmt.Sprintf("not run: its stdin: %v", err), nil, ""
	}
	cmd := exec.Command(a.Argv[0], a.Argv[1:]...)
	// Appended after finops's own: exec keeps the last of a repeated name,
	// so an inherited FINOPS_RESOURCE_ID cannot stand for the resource's.
	cmd.Env = append(append(commandEnv(c, os.Environ()), watch.Env(&res)...),
		"FINOPS_ACTION="+a.Action, "FINOPS_IDLE_SINCE="+a.IdleSince.UTC().Format(time.RFC3339))
	// stdin is a pipe of ours for the same reason as the output below; a
	// command that does not read it gets EPIPE on our side, not a hang.
	stdin, feed, err := os.Pipe()
	if err != nil {
		return store.ActionFailed, fmt.Sprintf("not run: %v", err), nil, ""
	}
	cmd.Stdin = stdin
	fed := make(chan struct{})
	defer func() {
		// A child that left the group holding stdin must not keep the
		// writer: closing ends a blocked Write.
		select {
		case <-fed:
		case <-time.After(outputWait):
		}
		feed.Close()
		<-fed
	}()
	// An *os.File, not a Writer: exec would copy a Writer's pipe until
	// EOF inside Wait, and a left-over child holding the pipe kept Wait
	// (and the pass) until the timeout. Here the copy is ours, bounded.
	r, w, err := os.Pipe()
	if err != nil {
		stdin.Close()
		close(fed)
		return store.ActionFailed, fmt.Sprintf("not run: %v", err), nil, ""
	}
	cmd.Stdout, cmd.Stderr = w, w
	setProcessGroup(cmd)
	err = cmd.Start()
	w.Close() // the child has its copy; ours would keep the pipe open forever
	stdin.Close()
	if err != nil {
		r.Close()
		close(fed)
		return store.ActionFailed, err.Error(), nil, ""
	}
	go func() {
		defer close(fed)
		feed.Write(doc) // EPIPE when the command does not read it: fine
		feed.Close()
	}()
	var tail tailBuffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		io.Copy(&tail, r) // ends at EOF, or when r is closed below
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var waitErr error
	var ended string // why finops ended the command; "" when it exited by itself
	select {
	case waitErr = <-exited:
	case <-timer.C:
		ended = store.ActionTimeout
		killGroup(cmd.Process, killGrace)
		waitErr = <-exited
	case <-ctx.Done():
		select {
		case waitErr = <-exited:
		case <-time.After(stopWait):
			ended = "stopped"
			killGroup(cmd.Process, stopKillGrace)
			waitErr = <-exited
		}
	}
	// The command is done: what it left in its group goes too (unless
	// the group was just ended above).
	if ended == "" {
		grace := killGrace
		if ctx.Err() != nil {
			grace = stopKillGrace
		}
		killGroup(cmd.Process, grace)
	}
	select {
	case <-copied:
	case <-time.After(outputWait):
	}
	r.Close()
	<-copied
	output = sanitize.Text(strings.ToValidUTF8(string(tail.bytes()), "\uFFFD"))
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		c := cmd.ProcessState.ExitCode()
		code = &c
	}
	switch {
	case ended == store.ActionTimeout:
		return store.ActionTimeout, fmt.Sprintf("killed after watch.command_timeout (%s)", timeout), code, output
	case ended != "":
		return store.ActionFailed, "killed: finops watch was told to stop while it ran, and ended its process group", code, output
	case waitErr != nil && code == nil:
		return store.ActionFailed, waitErr.Error(), nil, output
	case *code != 0:
		return store.ActionFailed, fmt.Sprintf("exit code %d", *code), code, output
	}
	return store.ActionDone, "", code, output
}

// commandEnv is env without the variables the config reads secrets from.
func commandEnv(c *config.Config, env []string) []string {
	secret := map[string]bool{c.Publish.SMTP.PasswordEnv: true, c.Publish.S3.SecretKeyEnv: true,
		c.Publish.S3.SessionTokenEnv: true}
	for _, ch := range c.Watch.Channels {
		secret[ch.URLEnv], secret[ch.SecretEnv] = true, true
	}
	for _, p := range c.Telemetry.Prometheus {
		secret[p.BearerTokenEnv], secret[p.BasicAuthPasswordEnv] = true, true
	}
	delete(secret, "")
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !secret[k] {
			out = append(out, kv)
		}
	}
	return out
}

// tailBuffer keeps the last outputTail bytes written to it.
type tailBuffer struct {
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= outputTail {
		t.buf = append(t.buf[:0], p[len(p)-outputTail:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - outputTail; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tailBuffer) bytes() []byte { return t.buf }
