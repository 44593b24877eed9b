// Package watch decides, between two weekly reports, which idle GPU
// resources to alert about and which to act on: alerts when a resource has
// been idle for a while, reminders, "back to work" and "released" messages,
// alerts on resources that have lived too long, and the safeguarded
// auto-recycle (grace alert, allowlist, protect, dry run, a cap per pass).
//
// It is pure and clock-free like analysis: Decide takes the resources' state
// at now (analysis.Now), the spells open in the ledger and the policy, and
// returns decisions; the caller (cmd/finops) records them in the store,
// sends the messages and runs the commands.
package watch

import (
	"sort"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// Spell kinds: an idle spell, or a resource past its maximum lifetime.
const (
	KindIdle     = "idle"
	KindLifetime = "lifetime"
)

// Decision kinds.
const (
	Open   = "open"   // a spell starts: alert
	Remind = "remind" // still idle (or still alive) after remind_every
	Close  = "close"  // busy again, or released
	Grace  = "grace"  // the last warning before an action
	Act    = "act"    // run the command (or record why not)
)

// Actions a policy may take.
const (
	ActionStop    = "stop"
	ActionRelease = "release"
)

// Params are the watch's settings, defaults applied by the caller.
type Params struct {
	AlertAfter  time.Duration // idle this long before the first alert
	RemindEvery time.Duration // between two reminders of one spell
	Grace       time.Duration // between the grace alert and the action
	// Stale: telemetry older than this says nothing about now. A resource
	// whose GPUs stopped reporting that long ago, while the pass did get
	// telemetry, has been released (or stopped).
	Stale time.Duration
	// From is where the telemetry read this pass begins: an idle run that
	// starts there may have started before, so it continues an open spell.
	From time.Time
	// TelemetryOK is false when a telemetry source failed this pass: then
	// nothing is closed as released (silence could be the source's).
	TelemetryOK bool
	Act         bool // false: dry run, commands are recorded, never run
	MaxActions  int  // commands run (or dry-run) per pass, at most
	// Zone is the report's time zone (the config's timezone): the times in
	// the messages are written in it, as docs/WATCH.md promises, since the
	// people reading them live there (nil: UTC).
	Zone *time.Location
}

// Policy is what applies to one resource, resolved by the caller from the
// resource's entry, its team's, then the watch defaults.
type Policy struct {
	After   time.Duration // idle this long: act (0 = never)
	Action  string        // ActionStop or ActionRelease
	Command []string      // argv template ({resource_id}, {team}, …)
	Protect bool          // never act, whatever else says
	Allowed bool          // named by watch.allow (resources or teams)
	// ArgvAllow is what a whole-argument placeholder may become (Expand):
	// watch.allow's lists as the operator typed them.
	ArgvAllow   ArgvAllow
	MaxLifetime time.Duration // alert when billed longer (0 = no limit)
	// ActOnLifetime: past MaxLifetime, run Command too (a grace period
	// after the alert, with every safeguard; the re-check before it runs
	// still wants the resource idle).
	ActOnLifetime bool
}

// Target is one resource and its policy.
type Target struct {
	analysis.ResourceNow
	Policy Policy
}

// Spell is an open spell from the ledger.
type Spell struct {
	ID        int64
	Resource  string
	Team      string
	Kind      string
	Since     time.Time // start of the idle run, or when the lifetime was exceeded
	Opened    time.Time // when the first alert was decided
	Reminded  time.Time // the last reminder (Opened before any)
	Graced    time.Time // when the grace alert was decided; zero before
	Acted     bool      // an action was decided: run, dry run or refused
	Rate      float64   // hourly rate when opened (for resources gone from the bill)
	RateKnown bool      // Rate was known (a resource billed at 0 has a known rate of 0)
	Currency  string
	// SinceAtLeast: Since is where the telemetry read by the pass that
	// opened the spell began (its idle run had no busy minute before it),
	// so the resource may have idled from earlier. Not in the ledger: the
	// first alert says "at least", later ones the recorded time.
	SinceAtLeast bool
}

// Decision is one thing the caller records and carries out.
type Decision struct {
	Kind      string
	Spell     Spell // the spell it belongs to (ID 0 for Open)
	Resource  *analysis.ResourceNow
	Event     string // the message's event: idle, reminder, busy, released, grace, action, lifetime
	Reason    string // Close: busy or released; Act: why it does not run ("" when it does)
	Action    string
	Command   []string // Act: the argv, its placeholders replaced by allowlisted values (Expand)
	DryRun    bool
	Burnt     float64 // money burnt so far at the rate; RateKnown false: unknown
	RateKnown bool
	Message   Message
}

// Decide returns what to do at now, in a stable order: by resource, then
// closes before opens. A resource appears in at most one Open, Remind or
// Close per spell kind, plus at most one Grace or Act.
func Decide(now time.Time, p Params, targets []Target, open []Spell) []Decision {
	if p.Zone != nil {
		// The same instant; the messages write times in now's location
		// (stamp), so this is all that carries the zone to them.
		now = now.In(p.Zone)
	}
	spells := map[[2]string]Spell{}
	for _, s := range open {
		spells[[2]string{s.Resource, s.Kind}] = s
	}
	var out []Decision
	seen := map[string]bool{}
	actions := 0
	for i := range targets {
		t := &targets[i]
		seen[t.ID] = true
		out = append(out, idleDecisions(now, p, t, spells, &actions)...)
		out = append(out, lifetimeDecisions(now, p, t, spells, &actions)...)
	}
	var gone []Spell
	for _, s := range open {
		if !seen[s.Resource] && p.TelemetryOK {
			gone = append(gone, s)
		}
	}
	sort.Slice(gone, func(i, j int) bool {
		if gone[i].Resource != gone[j].Resource {
			return gone[i].Resource < gone[j].Resource
		}
		return gone[i].Kind < gone[j].Kind
	})
	for _, s := range gone {
		// Not billed in the window any more and silent: released.
		r := &analysis.ResourceNow{ID: s.Resource, Team: s.Team, HourlyRate: s.Rate, RateKnown: s.RateKnown, Currency: s.Currency}
		out = append(out, closeSpell(now, s, r, "released"))
	}
	return out
}

func idleDecisions(now time.Time, p Params, t *Target, spells map[[2]string]Spell, actions *int) []Decision {
	r := &t.ResourceNow
	s, isOpen := spells[[2]string{r.ID, KindIdle}]
	stale := r.LastSeen.IsZero() || now.Sub(r.LastSeen) > p.Stale
	if stale {
		if isOpen && p.TelemetryOK {
			return []Decision{closeSpell(now, s, r, "released")}
		}
		return nil // no telemetry: nothing new can be said
	}
	var out []Decision
	if isOpen && (r.IdleSince.IsZero() || r.IdleSince.After(s.Since) && r.IdleSince.After(p.From)) {
		// Busy since the spell opened (a new idle run, if any, started later).
		out = append(out, closeSpell(now, s, r, "busy"))
		isOpen = false
	}
	if r.IdleSince.IsZero() {
		return out
	}
	if !isOpen {
		if now.Sub(r.IdleSince) < p.AlertAfter {
			return out
		}
		s = Spell{Resource: r.ID, Team: r.Team, Kind: KindIdle, Since: r.IdleSince, Opened: now, Reminded: now,
			Rate: r.HourlyRate, RateKnown: r.RateKnown, Currency: r.Currency, SinceAtLeast: r.IdleSinceAtLeast}
		return append(out, decision(Open, "idle", now, s, r))
	}
	if now.Sub(s.Reminded) >= p.RemindEvery {
		out = append(out, decision(Remind, "reminder", now, s, r))
	}
	if d, ok := act(now, p, t, s, t.Policy.After, actions); ok {
		out = append(out, d)
	}
	return out
}

// act is the auto-recycle of an open spell: a grace alert at after − Grace
// into the spell (only when it would really act), then, Grace later and
// after reached, the command — or, when it may not run, one record of why.
// after is on_idle's for an idle spell, 0 for a lifetime spell (it acts a
// grace period after its alert).
func act(now time.Time, p Params, t *Target, s Spell, after time.Duration, actions *int) (Decision, bool) {
	pol := t.Policy
	if len(pol.Command) == 0 || s.Acted || s.Kind == KindIdle && after <= 0 {
		return Decision{}, false
	}
	idleFor := now.Sub(s.Since)
	reason := ""
	switch {
	case pol.Protect:
		reason = "protected (protect: true)"
	case !pol.Allowed:
		reason = "not in watch.allow"
	}
	// An argv that cannot be built from the config's own text (a value
	// on no allowlist, a listed one unsafe for a shell) is never run: the
	// action is refused (and so gets no grace alert), with the template
	// recorded instead of the expanded argv.
	argv, err := Expand(pol.Command, &t.ResourceNow, pol.ArgvAllow)
	if reason == "" && err != nil {
		reason, argv = UnsafeReason+err.Error(), pol.Command
	}
	real := reason == "" && p.Act
	if real && s.Graced.IsZero() {
		if idleFor < after-p.Grace {
			return Decision{}, false
		}
		d := decision(Grace, "grace", now, s, &t.ResourceNow)
		d.Action = pol.Action
		d.Message = graceMessage(now, p, t, s, d)
		return d, true
	}
	if idleFor < after || real && now.Sub(s.Graced) < p.Grace {
		return Decision{}, false
	}
	if reason == "" && *actions >= p.MaxActions {
		return Decision{}, false // over watch.max_actions: the next pass takes it
	}
	if reason == "" {
		*actions++
	}
	d := decision(Act, "action", now, s, &t.ResourceNow)
	d.Reason, d.Action, d.DryRun = reason, pol.Action, !p.Act && reason == ""
	d.Command = argv
	d.Message = actMessage(now, t, d)
	return d, true
}

func lifetimeDecisions(now time.Time, p Params, t *Target, spells map[[2]string]Spell, actions *int) []Decision {
	r := &t.ResourceNow
	s, isOpen := spells[[2]string{r.ID, KindLifetime}]
	limit := t.Policy.MaxLifetime
	stale := r.LastSeen.IsZero() || now.Sub(r.LastSeen) > p.Stale
	billedRecently := now.Sub(r.LastBilled) <= p.Stale
	if isOpen && stale && !billedRecently && p.TelemetryOK {
		return []Decision{closeSpell(now, s, r, "released")}
	}
	if limit <= 0 || r.FirstBilled.IsZero() {
		return nil
	}
	over := r.FirstBilled.Add(limit)
	if !isOpen && now.After(over) && (!stale || billedRecently) {
		s = Spell{Resource: r.ID, Team: r.Team, Kind: KindLifetime, Since: over, Opened: now, Reminded: now,
			Rate: r.HourlyRate, RateKnown: r.RateKnown, Currency: r.Currency}
		return []Decision{decision(Open, "lifetime", now, s, r)}
	}
	var out []Decision
	if isOpen && now.Sub(s.Reminded) >= p.RemindEvery {
		out = append(out, decision(Remind, "reminder", now, s, r))
	}
	if isOpen && t.Policy.ActOnLifetime && !r.IdleSince.IsZero() { // never stop work in progress
		if d, ok := act(now, p, t, s, 0, actions); ok {
			out = append(out, d)
		}
	}
	return out
}

func closeSpell(now time.Time, s Spell, r *analysis.ResourceNow, why string) Decision {
	if why == "released" && !r.LastSeen.IsZero() && r.LastSeen.Before(now) && r.LastSeen.After(s.Since) {
		now = r.LastSeen // it burnt money until it went silent, not until this pass noticed
	}
	d := decision(Close, why, now, s, r)
	d.Reason = why
	return d
}

func decision(kind, event string, now time.Time, s Spell, r *analysis.ResourceNow) Decision {
	d := Decision{Kind: kind, Spell: s, Resource: r, Event: event}
	rate, known := r.HourlyRate, r.RateKnown
	if !known && s.RateKnown {
		rate, known = s.Rate, true
	}
	if known {
		d.Burnt, d.RateKnown = rate*now.Sub(s.Since).Hours(), true
	}
	d.Message = message(now, d)
	return d
}
