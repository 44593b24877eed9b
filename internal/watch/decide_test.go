package watch

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// t0 is the clock of every case: 2026-11-30 12:00 UTC.
var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

func params() Params {
	return Params{AlertAfter: 30 * time.Minute, RemindEvery: 4 * time.Hour, Grace: 15 * time.Minute,
		Stale: 15 * time.Minute, From: at(-120), TelemetryOK: true, Act: true, MaxActions: 1}
}

// res is a resource billed ¥6 an hour (¥0.10 a minute), last seen a minute
// ago, idle since idleMin minutes from t0 (nil: busy).
func res(id string, idleMin *int) Target {
	r := analysis.ResourceNow{ID: id, Team: "nlp", Provider: "autodl", Mode: "hourly", GPUs: 2, Monitored: 2,
		LastSeen: at(-1), HourlyRate: 6, RateKnown: true, Currency: "CNY", FirstBilled: at(-600), LastBilled: at(0)}
	if idleMin != nil {
		r.IdleSince = at(*idleMin)
	}
	return Target{ResourceNow: r}
}

func withPolicy(t Target, p Policy) Target { t.Policy = p; return t }

// stopPolicy's allowlists are the config's watch.allow as the operator
// typed it: the ids and team of the resources the cases act on.
func stopPolicy() Policy {
	return Policy{After: time.Hour, Action: ActionStop, Command: []string{"/bin/stop", "{resource_id}", "{team}"}, Allowed: true,
		ArgvAllow: ArgvAllow{Resources: []string{"a", "b", "old", "i-0abc", "--help"}, Teams: []string{"nlp"}}}
}

func open(id string, since, opened, reminded int) Spell {
	return Spell{ID: 7, Resource: id, Team: "nlp", Kind: KindIdle, Since: at(since), Opened: at(opened), Reminded: at(reminded),
		Rate: 6, RateKnown: true, Currency: "CNY"}
}

// lifeSpell is a lifetime spell opened when the 72 hours passed, an hour
// ago; graced: its grace alert went out 15 minutes ago.
func lifeSpell(graced bool) Spell {
	s := open("a", -60, -60, -60)
	s.Kind = KindLifetime
	if graced {
		s.Graced = at(-15)
	}
	return s
}

// want is one expected decision: kind, event and, for money, the minutes
// burnt at ¥0.10 (hand-computed: minutes from the spell's start to t0).
type want struct {
	kind, event string
	minutes     float64 // burnt = minutes × 0.10; -1: rate unknown
	reason      string
}

func TestDecide(t *testing.T) {
	graced := open("a", -60, -30, -30)
	graced.Graced = at(-15)
	acted := graced
	acted.Acted = true
	stale := res("a", new(-60))
	stale.LastSeen = at(-16)
	noRate := res("a", new(-45))
	noRate.RateKnown, noRate.HourlyRate = false, 0
	lifetime := res("a", nil)
	lifetime.FirstBilled = at(-73 * 60)
	idleOld := lifetime // past its lifetime and idle (20 minutes: not alerted as idle yet)
	idleOld.IdleSince = at(-20)
	protected := withPolicy(res("a", new(-60)), Policy{After: time.Hour, Action: ActionStop, Command: []string{"/bin/stop"}, Protect: true, Allowed: true})
	for _, tc := range []struct {
		name    string
		p       func(*Params)
		targets []Target
		open    []Spell
		want    []want
	}{
		{name: "idle 29 minutes: nothing yet", targets: []Target{res("a", new(-29))}},
		{name: "idle 30 minutes: the alert", targets: []Target{res("a", new(-30))}, want: []want{{Open, "idle", 30, ""}}},
		{name: "busy: nothing", targets: []Target{res("a", nil)}},
		{name: "open, reminder not due", targets: []Target{res("a", new(-100))}, open: []Spell{open("a", -100, -70, -70)}},
		{name: "open, reminder due after 4h", targets: []Target{res("a", new(-300))}, open: []Spell{open("a", -300, -240, -240)},
			want: []want{{Remind, "reminder", 300, ""}}},
		{name: "open, busy again: closed", targets: []Target{res("a", nil)}, open: []Spell{open("a", -100, -70, -70)},
			want: []want{{Close, "busy", 100, "busy"}}},
		{name: "open, a new idle run after a busy spell: closed and opened", targets: []Target{res("a", new(-40))},
			open: []Spell{open("a", -100, -70, -70)}, want: []want{{Close, "busy", 100, "busy"}, {Open, "idle", 40, ""}}},
		{name: "idle run cut by the lookback continues the spell", targets: []Target{res("a", new(-120))},
			open: []Spell{open("a", -300, -270, -60)}},
		{name: "silent while telemetry works: released, burnt until last seen", targets: []Target{stale},
			open: []Spell{open("a", -60, -30, -30)}, want: []want{{Close, "released", 44, "released"}}},
		{name: "silent while a source failed: nothing", p: func(p *Params) { p.TelemetryOK = false }, targets: []Target{stale},
			open: []Spell{open("a", -60, -30, -30)}},
		{name: "gone from the bill: released at the spell's rate", open: []Spell{open("gone", -60, -30, -30)},
			want: []want{{Close, "released", 60, "released"}}},
		{name: "no rate known", targets: []Target{noRate}, want: []want{{Open, "idle", -1, ""}}},
		// A resource billed at 0 (a free tier, a credit) has a known rate:
		// nothing burnt, not "an unknown amount".
		{name: "gone from the bill at a known rate of 0: released, nothing burnt",
			open: []Spell{func() Spell { s := open("gone", -60, -30, -30); s.Rate = 0; return s }()},
			want: []want{{Close, "released", 0, "released"}}},
		{name: "gone from the bill, rate never known: released, amount unknown",
			open: []Spell{func() Spell { s := open("gone", -60, -30, -30); s.Rate, s.RateKnown = 0, false; return s }()},
			want: []want{{Close, "released", -1, "released"}}},
		{name: "grace alert at after − grace", targets: []Target{withPolicy(res("a", new(-45)), stopPolicy())},
			open: []Spell{open("a", -45, -15, -15)}, want: []want{{Grace, "grace", 45, ""}}},
		{name: "no action before after", targets: []Target{withPolicy(res("a", new(-59)), stopPolicy())},
			open: []Spell{func() Spell { s := open("a", -59, -29, -29); s.Graced = at(-14); return s }()}},
		{name: "acts after the grace", targets: []Target{withPolicy(res("a", new(-60)), stopPolicy())}, open: []Spell{graced},
			want: []want{{Act, "action", 60, ""}}},
		{name: "acts once", targets: []Target{withPolicy(res("a", new(-60)), stopPolicy())}, open: []Spell{acted}},
		{name: "protected: refused, no grace", targets: []Target{protected}, open: []Spell{open("a", -60, -30, -30)},
			want: []want{{Act, "action", 60, "protected (protect: true)"}}},
		{name: "not allowed: refused", targets: []Target{withPolicy(res("a", new(-60)), func() Policy { p := stopPolicy(); p.Allowed = false; return p }())},
			open: []Spell{open("a", -60, -30, -30)}, want: []want{{Act, "action", 60, "not in watch.allow"}}},
		{name: "dry run: recorded without a grace alert", p: func(p *Params) { p.Act = false },
			targets: []Target{withPolicy(res("a", new(-60)), stopPolicy())}, open: []Spell{open("a", -60, -30, -30)},
			want: []want{{Act, "action", 60, ""}}},
		{name: "max_actions: the second waits", p: func(p *Params) { p.Act = false },
			targets: []Target{withPolicy(res("a", new(-60)), stopPolicy()), withPolicy(res("b", new(-60)), stopPolicy())},
			open:    []Spell{open("a", -60, -30, -30), open("b", -60, -30, -30)}, want: []want{{Act, "action", 60, ""}}},
		{name: "past max_lifetime 72h", targets: []Target{withPolicy(lifetime, Policy{MaxLifetime: 72 * time.Hour})},
			want: []want{{Open, "lifetime", 60, ""}}},
		{name: "past max_lifetime, act_on_lifetime: the grace alert with the lifetime alert's spell",
			targets: []Target{withPolicy(idleOld, func() Policy { p := stopPolicy(); p.MaxLifetime, p.ActOnLifetime = 72*time.Hour, true; return p }())},
			open:    []Spell{lifeSpell(false)}, want: []want{{Grace, "grace", 60, ""}}},
		{name: "past max_lifetime, act_on_lifetime: acts a grace period later",
			targets: []Target{withPolicy(idleOld, func() Policy { p := stopPolicy(); p.MaxLifetime, p.ActOnLifetime = 72*time.Hour, true; return p }())},
			open:    []Spell{lifeSpell(true)}, want: []want{{Act, "action", 60, ""}}},
		{name: "past max_lifetime, act_on_lifetime, busy: no action",
			targets: []Target{withPolicy(lifetime, func() Policy { p := stopPolicy(); p.MaxLifetime, p.ActOnLifetime = 72*time.Hour, true; return p }())},
			open:    []Spell{lifeSpell(true)}},
		{name: "past max_lifetime without act_on_lifetime: alert only",
			targets: []Target{withPolicy(idleOld, func() Policy { p := stopPolicy(); p.MaxLifetime = 72 * time.Hour; return p }())},
			open:    []Spell{lifeSpell(true)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := params()
			if tc.p != nil {
				tc.p(&p)
			}
			got := Decide(t0, p, tc.targets, tc.open)
			if len(got) != len(tc.want) {
				t.Fatalf("%d decisions, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				d := got[i]
				if d.Kind != w.kind || d.Event != w.event || d.Reason != w.reason {
					t.Errorf("decision %d: %s/%s %q, want %s/%s %q", i, d.Kind, d.Event, d.Reason, w.kind, w.event, w.reason)
				}
				if w.minutes < 0 {
					if d.RateKnown || !strings.Contains(d.Message.Text, "unknown amount") {
						t.Errorf("decision %d: rate known %v, text %q", i, d.RateKnown, d.Message.Text)
					}
				} else if !d.RateKnown || math.Abs(d.Burnt-w.minutes*0.10) > 1e-9 {
					t.Errorf("decision %d: burnt %v (known %v), want %v", i, d.Burnt, d.RateKnown, w.minutes*0.10)
				}
				if d.Message.Title == "" || d.Message.Text == "" {
					t.Errorf("decision %d: empty message %+v", i, d.Message)
				}
			}
		})
	}
}

// TestDecideAct checks what an action carries: the argv with the
// allowlisted values in the placeholders' places, and dry run marked. A
// hostile id ("i-0abc; rm -rf /") is on no list, so it is refused whether
// or not act is on: recorded as not acted on with why, with the template
// instead of the expanded argv, and without a grace alert for an action
// that will not run. "--help", though the operator listed it, is refused
// by the second line (CheckValue).
func TestDecideAct(t *testing.T) {
	tmpl := []string{"/bin/stop", "{resource_id}", "{team}"}
	for _, tc := range []struct {
		id, reason string
		want       []string
	}{
		{id: "i-0abc", want: []string{"/bin/stop", "i-0abc", "nlp"}},
		{id: "i-0abc; rm -rf /", reason: `unsafe for its command: {resource_id} "i-0abc; rm -rf /" is not exactly one of watch.allow.resources, ` +
			`so it is not put in the command's arguments; the command has it as $FINOPS_RESOURCE_ID`, want: tmpl},
		{id: "I-0ABC", reason: `unsafe for its command: {resource_id} "I-0ABC" is not exactly one of watch.allow.resources, ` +
			`so it is not put in the command's arguments; the command has it as $FINOPS_RESOURCE_ID`, want: tmpl},
		{id: "--help", reason: `unsafe for its command: {resource_id} "--help" (listed in watch.allow.resources) starts with "-": the program would read it as an option`,
			want: tmpl},
	} {
		tg := withPolicy(res(tc.id, new(-60)), stopPolicy())
		s := open(tc.id, -60, -30, -30)
		s.Graced = at(-15)
		for _, act := range []bool{true, false} {
			p := params()
			p.Act = act
			got := Decide(t0, p, []Target{tg}, []Spell{s})
			if len(got) != 1 || got[0].Kind != Act {
				t.Fatalf("%s act=%v: %+v", tc.id, act, got)
			}
			if strings.Join(got[0].Command, "\x00") != strings.Join(tc.want, "\x00") {
				t.Errorf("%s act=%v: argv %q, want %q", tc.id, act, got[0].Command, tc.want)
			}
			if got[0].Reason != tc.reason || got[0].DryRun != (!act && tc.reason == "") {
				t.Errorf("%s act=%v: reason %q dry run %v, want %q", tc.id, act, got[0].Reason, got[0].DryRun, tc.reason)
			}
			if tc.reason != "" && !strings.Contains(got[0].Message.Title, "not acted on (unsafe for its command") {
				t.Errorf("%s: title %q", tc.id, got[0].Message.Title)
			}
			// Before the grace alert: none for an unsafe id (nothing will run).
			s2 := s
			s2.Graced = time.Time{}
			s2.Since = at(-50)
			pre := Decide(t0, p, []Target{tg}, []Spell{s2})
			if act && tc.reason != "" && len(pre) != 0 {
				t.Errorf("%s: a grace alert or action before after: %+v", tc.id, pre)
			}
		}
	}
}
