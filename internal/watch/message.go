package watch

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/sanitize"
)

// Message is what a channel shows: one title line and a few lines of text.
// Resource ids and team names come from bills: they are made one line of
// printable text here, and each channel escapes them for its own format.
type Message struct {
	Title string
	Text  string
}

// maxLabel caps a resource id or team in a title: a hostile bill could
// name a resource with a kilobyte.
const maxLabel = 120

func label(s string) string { return sanitize.Truncate(sanitize.Control(s), maxLabel) }

func message(now time.Time, d Decision) Message {
	r, s := d.Resource, d.Spell
	id := label(r.ID)
	if id == "" {
		id = label(s.Resource)
	}
	team := label(cmp.Or(r.Team, s.Team))
	var b strings.Builder
	since := sinceStamp(s, now.Location())
	burnt := burntText(d, r.Currency)
	var title string
	switch d.Event {
	case "idle":
		title = fmt.Sprintf("GPU resource %s idle for %s", id, atLeast(s)+span(now.Sub(s.Since)))
		fmt.Fprintf(&b, "Resource %s (team %s, %d GPUs %s) has been idle since %s: %s burnt so far.\n", id, team,
			r.GPUs, label(r.Model), since, burnt)
		b.WriteString("If nobody needs it, stop or release it; if a job holds it, check why its GPUs wait (data loading, a stuck step).\n")
	case "reminder":
		what := "idle"
		if s.Kind == KindLifetime {
			what = "running past its maximum lifetime"
		}
		title = fmt.Sprintf("Reminder: GPU resource %s still %s (%s)", id, what, span(now.Sub(s.Since)))
		fmt.Fprintf(&b, "Resource %s (team %s) has been %s since %s: %s burnt so far.\n", id, team, what, since, burnt)
		b.WriteString("Stop or release it if nobody needs it.\n")
	case "busy":
		title = fmt.Sprintf("GPU resource %s is back to work", id)
		fmt.Fprintf(&b, "Resource %s (team %s) is busy again after idling since %s; the idle spell cost %s.\n", id, team, since, burnt)
	case "released":
		title = fmt.Sprintf("GPU resource %s released", id)
		fmt.Fprintf(&b, "Resource %s (team %s) stopped reporting: released or stopped. The spell since %s cost %s.\n", id, team, since, burnt)
	case "lifetime":
		title = fmt.Sprintf("GPU resource %s running longer than its maximum lifetime", id)
		fmt.Fprintf(&b, "Resource %s (team %s, %s) has been billed since %s, past its max_lifetime at %s.\n", id, team,
			label(r.Mode), stamp(r.FirstBilled, now.Location()), since)
		fmt.Fprintf(&b, "%s burnt since. Release it, or raise max_lifetime for it in the config if it is meant to run.\n", burnt)
	}
	return Message{Title: title, Text: b.String()}
}

func graceMessage(now time.Time, p Params, t *Target, s Spell, d Decision) Message {
	id := label(t.ID)
	return Message{
		Title: fmt.Sprintf("GPU resource %s: %s in %s unless it gets busy", id, t.Policy.Action, span(p.Grace)),
		Text: fmt.Sprintf("Resource %s (team %s) has been %s since %s (%s burnt). finops watch will %s it in %s "+
			"unless its GPUs get busy; to keep it, start work on it or set protect: true for it in the config.\n",
			id, label(t.Team), state(s), sinceStamp(s, now.Location()), burntText(d, t.Currency), t.Policy.Action, span(p.Grace)),
	}
}

func actMessage(now time.Time, t *Target, d Decision) Message {
	id := label(t.ID)
	switch {
	case d.Reason != "":
		return Message{Title: fmt.Sprintf("GPU resource %s: not acted on (%s)", id, d.Reason),
			Text: fmt.Sprintf("Resource %s would be %s now (%s since %s, %s burnt), but it is %s.\n", id,
				past(d.Action), state(d.Spell), sinceStamp(d.Spell, now.Location()), burntText(d, t.Currency), d.Reason)}
	case d.DryRun:
		return Message{Title: fmt.Sprintf("GPU resource %s: would %s (dry run)", id, d.Action),
			Text: fmt.Sprintf("Resource %s has been %s since %s (%s burnt). With watch.act: true, finops watch would now run: %s\n",
				id, state(d.Spell), sinceStamp(d.Spell, now.Location()), burntText(d, t.Currency), label(strings.Join(d.Command, " ")))}
	}
	return Message{Title: fmt.Sprintf("GPU resource %s: %s", id, d.Action),
		Text: fmt.Sprintf("Resource %s has been %s since %s (%s burnt); finops watch runs its %s command now.\n",
			id, state(d.Spell), sinceStamp(d.Spell, now.Location()), burntText(d, t.Currency), d.Action)}
}

// sinceStamp is a spell's start as the messages write it: "at least"
// before it when the idle run reached back to the start of the telemetry
// the pass read, so it may have begun earlier (Spell.SinceAtLeast).
func sinceStamp(s Spell, loc *time.Location) string {
	return atLeast(s) + stamp(s.Since, loc)
}

func atLeast(s Spell) string {
	if s.SinceAtLeast {
		return "at least "
	}
	return ""
}

// stamp writes a time for the messages in the report's zone (Decide gives
// now in it), naming the zone: "2026-11-30 09:00 Asia/Shanghai (UTC+08:00)",
// or "2026-11-30 01:00 UTC". The zone's name, not its abbreviation: "CST"
// is China's and America's.
func stamp(t time.Time, loc *time.Location) string {
	if loc == nil || loc == time.UTC || loc.String() == "UTC" {
		return t.UTC().Format("2006-01-02 15:04 UTC")
	}
	return t.In(loc).Format("2006-01-02 15:04 ") + loc.String() + t.In(loc).Format(" (UTC-07:00)")
}

// state is what a spell is about, for a sentence.
func state(s Spell) string {
	if s.Kind == KindLifetime {
		return "past its maximum lifetime"
	}
	return "idle"
}

func past(action string) string {
	if action == ActionStop {
		return "stopped"
	}
	return "released"
}

func burntText(d Decision, currency string) string {
	if !d.RateKnown {
		return "an unknown amount (no billing line or catalog price gives its rate)"
	}
	return amount.Rounded(cmp.Or(currency, d.Spell.Currency), d.Burnt)
}

// span writes a duration for people: "45m", "2h30m", "3d4h".
func span(d time.Duration) string {
	d = d.Round(time.Minute)
	days, h, m := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case days > 0:
		return fmt.Sprintf("%dd%dh", days, h)
	case h > 0 && m > 0:
		return fmt.Sprintf("%dh%dm", h, m)
	case h > 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dm", m)
}
