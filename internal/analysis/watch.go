package analysis

import (
	"slices"
	"strings"
	"time"
)

// WatchInput is what `finops watch` did in the window, from its ledger: the
// alerts delivered and the actions decided (docs/WATCH.md).
type WatchInput struct {
	Alerts  []WatchAlert
	Actions []WatchDecision
}

// WatchAlert is one message the watch delivered to one channel. Resource,
// team and title come from the bill: untrusted wherever they are shown.
type WatchAlert struct {
	At       time.Time `json:"at"`
	Resource string    `json:"resource"`
	Team     string    `json:"team"`
	Event    string    `json:"event"`   // idle, reminder, busy, released, grace, action, lifetime
	Channel  string    `json:"channel"` // "type#index" of watch.channels
	Title    string    `json:"title"`
}

// WatchDecision is one action of the watch's ledger as recorded.
type WatchDecision struct {
	DecidedAt, Finished time.Time // Finished is zero for a command that never ran
	Resource, Team      string
	Action, Outcome     string // stop, release; done, failed, timeout, interrupted, busy, dry-run, refused
	ExitCode            *int
	Rate                float64 // per hour when decided, in Currency
	RateKnown           bool
	Currency            string
}

// Watch action outcomes the saving counts (docs/WATCH.md §History).
const (
	watchDone   = "done"
	watchDryRun = "dry-run"
)

// WatchAction is an action in the report with what it saved (metrics.md
// §What the watch saved).
type WatchAction struct {
	At       time.Time `json:"at"` // when the command finished; when it was decided if it never ran
	Resource string    `json:"resource"`
	Team     string    `json:"team"`
	Action   string    `json:"action"`
	Outcome  string    `json:"outcome"`
	ExitCode *int      `json:"exit_code"`
	DryRun   bool      `json:"dry_run"`
	// Rate is the idle resource's cost per hour the watch recorded, in the
	// report's currency; nil when unknown.
	Rate *float64 `json:"rate"`
	// Until is the resource's next busy minute after At (NextBusy), else
	// the earliest of now, the last minute with data and the window's end
	// (UntilBy says which); zero (no key) for an action that saves nothing.
	Until    time.Time `json:"until,omitzero"`
	NextBusy bool      `json:"next_busy"`
	// UntilBy is what ended the saving: "busy" (the next busy minute),
	// "now" (the report was made before the window ended), "data" (the
	// last minute with telemetry or billing) or "end" (the window's end);
	// "" for an action that saves nothing.
	UntilBy string  `json:"until_by,omitempty"`
	Hours   float64 `json:"hours"`
	// Saved is Rate × Hours: spend avoided by a command that ran (done), or
	// that a dry run would have avoided; nil for the other outcomes or
	// without a rate.
	Saved *float64 `json:"saved"`
}

// WatchSummary is the report's Watch section; Result.Watch is nil when the
// watch did nothing in the window.
type WatchSummary struct {
	Alerts  []WatchAlert  `json:"alerts"`
	Actions []WatchAction `json:"actions"`
	// Saved sums the done actions' savings; WouldHaveSaved the dry runs'.
	Saved          float64 `json:"saved"`
	WouldHaveSaved float64 `json:"would_have_saved"`
}

// watchAcc follows the window's actions while the resources are walked:
// each action's search for its resource's next busy minute.
type watchAcc struct {
	sum        *WatchSummary
	byResource map[string][]int // lower-case resource → indexes into sum.Actions
	busy       []int            // grid index of the next busy minute; -1 = none seen
}

// newWatchAcc converts the ledger's actions into the report's currency;
// nil when the watch did nothing in the window.
func (a *analyzer) newWatchAcc() *watchAcc {
	w := a.in.Watch
	if w == nil || len(w.Alerts) == 0 && len(w.Actions) == 0 {
		return nil
	}
	acc := &watchAcc{sum: &WatchSummary{Alerts: slices.Clone(w.Alerts)}, byResource: map[string][]int{}}
	for i := range acc.sum.Alerts {
		acc.sum.Alerts[i].Team = a.team(acc.sum.Alerts[i].Team)
	}
	for _, d := range w.Actions {
		wa := WatchAction{At: d.DecidedAt, Resource: d.Resource, Team: a.team(d.Team), Action: d.Action,
			Outcome: d.Outcome, ExitCode: d.ExitCode, DryRun: d.Outcome == watchDryRun}
		if !d.Finished.IsZero() {
			wa.At = d.Finished
		}
		if d.RateKnown {
			if v, ok := a.conv.price(d.Rate, d.Currency); ok {
				wa.Rate = &v
			} else {
				a.warn("watch action on %s at %s: its rate is in %s and no fx rate converts it to %s: its saving is not counted "+
					"(add fx.%s to the config)", d.Resource, wa.At.Format(time.RFC3339), d.Currency, a.conv.currency, strings.ToUpper(d.Currency))
			}
		}
		k := strings.ToLower(d.Resource)
		acc.byResource[k] = append(acc.byResource[k], len(acc.sum.Actions))
		acc.sum.Actions = append(acc.sum.Actions, wa)
		acc.busy = append(acc.busy, -1)
	}
	return acc
}

// counts says whether an action's saving is computed: a command that ran
// and succeeded, or a dry run's "would have".
func (w *WatchAction) counts() bool {
	return w.Outcome == watchDone && (w.ExitCode == nil || *w.ExitCode == 0) || w.DryRun
}

// watchResource finds, for each counted action on r, the first busy minute
// after it: a minute the report's idle rule (buildGrid) classes active on
// any of r's GPUs. It runs while r's grids exist.
func (a *analyzer) watchResource(r *gpuResource) {
	w := a.watch
	if w == nil {
		return
	}
	idx := w.byResource[strings.ToLower(r.key)]
	if r.name != "" && !strings.EqualFold(r.name, r.key) {
		idx = append(idx, w.byResource[strings.ToLower(r.name)]...)
	}
	for _, i := range idx {
		act := &w.sum.Actions[i]
		if !act.counts() || w.busy[i] >= 0 {
			continue
		}
		from := a.tl.indexCeil(act.At)
		for _, s := range r.slots {
			for t := from; t < a.win[1]; t++ {
				if w.busy[i] >= 0 && t >= w.busy[i] {
					break
				}
				if s.grid.class[t] == active {
					w.busy[i] = t
					break
				}
			}
		}
	}
}

// finishWatch sets each counted action's hours and saving, up to its next
// busy minute or its bound (watchBound), and the section's totals.
func (a *analyzer) finishWatch() {
	w := a.watch
	if w == nil {
		return
	}
	bound, by := watchBound(a.in)
	for i := range w.sum.Actions {
		act := &w.sum.Actions[i]
		if !act.counts() {
			continue
		}
		act.Until, act.UntilBy = bound, by
		if b := w.busy[i]; b >= 0 {
			if t := a.tl.time(b); t.Before(bound) {
				act.Until, act.UntilBy, act.NextBusy = t, watchUntilBusy, true
			}
		}
		act.Hours = max(act.Until.Sub(act.At).Hours(), 0)
		if act.Rate == nil {
			continue
		}
		v := *act.Rate * act.Hours
		act.Saved = &v
		w.sum.count(act)
	}
	a.res.Watch = w.sum
}

// What ended an action's saving (WatchAction.UntilBy).
const (
	watchUntilBusy = "busy"
	watchUntilNow  = "now"
	watchUntilData = "data"
	watchUntilEnd  = "end"
)

// watchBound is how far any watch action's saving may run: the earliest of
// the window's end, the last minute with data (dataUntil) and in.Now (when
// set), with which of them it is. Past the last minute with data nobody
// knows whether the resource would have been busy, and past now nothing
// has happened yet: a stop made minutes ago has saved minutes, not the
// days left in the week (metrics.md §What the watch saved).
func watchBound(in *Input) (time.Time, string) {
	bound, by := in.Window.End, watchUntilEnd
	if t, ok := dataUntil(in); ok && t.Before(bound) {
		bound, by = t, watchUntilData
	}
	if !in.Now.IsZero() && in.Now.Before(bound) {
		bound, by = in.Now.UTC(), watchUntilNow
	}
	return bound, by
}

// dataUntil is the end of the last minute with data, telemetry or billing,
// in in: the latest charge end (or start, where later) of its lines, and
// the end of the last minute a GPU's last sample covers (its own minute and
// its sampling interval after it, as buildGrid lays it). ok is false when
// in holds neither. Task runs are not data about the resources' use.
func dataUntil(in *Input) (until time.Time, ok bool) {
	add := func(t time.Time) {
		if !ok || t.After(until) {
			until, ok = t, true
		}
	}
	if ls := in.LineStream; ls != nil {
		if ls.HasLines {
			add(maxTime(ls.First, ls.Last))
		}
	} else {
		for i := range in.Lines {
			add(maxTime(in.Lines[i].ChargeStart, in.Lines[i].ChargeEnd))
		}
	}
	for i := range in.GPUs {
		s := &in.GPUs[i]
		if _, last, has := s.Span(); has {
			add(time.Unix((last+int64(coverMinutes(s.Interval))+1)*60, 0))
		}
	}
	return until.UTC(), ok
}

// forTeam is the team's share of the section: its alerts and actions and
// what they saved; nil when the team had none.
func (w *WatchSummary) forTeam(team string) *WatchSummary {
	if w == nil {
		return nil
	}
	out := &WatchSummary{}
	for _, al := range w.Alerts {
		if al.Team == team {
			out.Alerts = append(out.Alerts, al)
		}
	}
	for _, act := range w.Actions {
		if act.Team != team {
			continue
		}
		out.Actions = append(out.Actions, act)
		out.count(&act)
	}
	if len(out.Alerts) == 0 && len(out.Actions) == 0 {
		return nil
	}
	return out
}

// count adds an action's saving to the section's totals: a dry run's to
// what would have been saved.
func (w *WatchSummary) count(act *WatchAction) {
	switch {
	case act.Saved == nil:
	case act.DryRun:
		w.WouldHaveSaved += *act.Saved
	default:
		w.Saved += *act.Saved
	}
}
