package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/sanitize"
	"github.com/finops-oss/finops/store"
)

// outputTail is how much of a command's output (stdout and stderr, in the
// order written) the ledger keeps: the end, where the error usually is.
const outputTail = 4096

// runActions runs the pass's pending commands, each recorded as pending
// before (RecordWatch). Just before, telemetry is read again: a resource
// that got busy since the decision, or that cannot be confirmed idle, is left
// alone (outcome busy, with the reason).
func (m *Main) runActions(ctx context.Context, st *store.Store, c *config.Config, ids []int64) error {
	var errs []error
	obs, recheckErr := m.observe(ctx, st, c, m.Now().UTC())
	if recheckErr != nil {
		// Nothing runs unconfirmed; each is closed here, not left pending
		// for the next pass to take for a crash.
		errs = append(errs, recheckErr)
	}
	for _, id := range ids {
		a, err := st.Action(ctx, id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		now := m.Now().UTC()
		why := "the re-check could not read the telemetry"
		if recheckErr == nil {
			why = stillIdle(obs, a.Resource, now)
		}
		if why != "" {
			fmt.Fprintf(m.Stdout, "watch: %s %s: not run: %s\n", a.Action, a.Resource, why)
			errs = append(errs, st.FinishAction(ctx, id, store.ActionBusy, why, nil, "", now))
			continue
		}
		outcome, reason, code, out := m.execAction(ctx, c, a)
		fmt.Fprintf(m.Stdout, "watch: %s %s: %s%s\n", a.Action, a.Resource, outcome, suffix(reason))
		if err := st.FinishAction(ctx, id, outcome, reason, code, out, m.Now().UTC()); err != nil {
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

// stillIdle is "" when the re-check finds the resource idle now, else why not.
func stillIdle(obs *observation, id string, now time.Time) string {
	for _, r := range obs.resources {
		if r.ID != id {
			continue
		}
		switch {
		case r.LastSeen.IsZero() || now.Sub(r.LastSeen) > staleAfter:
			return "no fresh telemetry to confirm it is idle"
		case r.IdleSince.IsZero():
			return "its GPUs are busy again"
		}
		return ""
	}
	return "no longer billed or seen"
}

// execAction runs the argv directly (no shell) under watch.command_timeout,
// in its own process group so a timeout also ends what it started. Its
// environment is finops's without the secrets the config names (webhook
// URLs, signing secrets, the SMTP password), plus the resource's fields.
func (m *Main) execAction(ctx context.Context, c *config.Config, a *store.WatchAction) (outcome, reason string, code *int, output string) {
	ctx, cancel := context.WithTimeout(ctx, c.Watch.Settings().CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.Argv[0], a.Argv[1:]...)
	cmd.Env = append(commandEnv(c, os.Environ()),
		"FINOPS_RESOURCE_ID="+a.Resource, "FINOPS_TEAM="+a.Team, "FINOPS_ACTION="+a.Action,
		"FINOPS_IDLE_SINCE="+a.IdleSince.UTC().Format(time.RFC3339))
	var tail tailBuffer
	cmd.Stdout, cmd.Stderr = &tail, &tail
	setProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	output = sanitize.Text(strings.ToValidUTF8(string(tail.bytes()), "\uFFFD"))
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		c := cmd.ProcessState.ExitCode()
		code = &c
	}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return store.ActionTimeout, fmt.Sprintf("killed after watch.command_timeout (%s)", c.Watch.Settings().CommandTimeout), code, output
	case err != nil && code == nil:
		return store.ActionFailed, err.Error(), nil, output
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
