package store

import (
	"context"
	"testing"
	"time"
)

// TestWatchActivity: the window's alerts are the messages sent in it — not
// those still pending or held, nor those sent after it, even for a decision
// made inside it — and its actions those decided in it, with the rate the
// ledger recorded (unknown stays unknown, not 0).
func TestWatchActivity(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	from, to := utc(2026, 11, 30, 0, 0, 0), utc(2026, 12, 7, 0, 0, 0)
	t1 := utc(2026, 12, 1, 14, 0, 0)
	open := WatchEvent{Kind: "open", SpellKind: "idle", Event: "idle", Resource: "gpu-a", Team: "nlp", Since: t1.Add(-time.Hour),
		Rate: 12, RateKnown: true, Currency: "CNY", Title: "gpu-a idle for 1h", Body: "b", Channels: []string{"slack#0", "email#1", "json#2"}}
	if _, err := s.RecordWatch(ctx, t1, []WatchEvent{open}, nil); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.PendingWatchMessages(ctx)
	if err != nil || len(msgs) != 3 {
		t.Fatalf("pending %+v, %v", msgs, err)
	}
	if err := s.MessageSent(ctx, msgs[0].ID, t1.Add(time.Minute)); err != nil { // in the window
		t.Fatal(err)
	}
	if err := s.MessageSent(ctx, msgs[1].ID, to); err != nil { // held past the window's end
		t.Fatal(err)
	}
	// msgs[2] stays pending.
	spells, err := s.OpenSpells(ctx)
	if err != nil {
		t.Fatal(err)
	}
	act := func(at time.Time, outcome string, rateKnown bool) {
		t.Helper()
		ev := WatchEvent{Kind: "act", SpellID: spells[0].ID, Event: "action", Resource: "gpu-a", Team: "nlp", Title: "stop", Body: "b",
			RateKnown: rateKnown, Action: &WatchAction{Action: "stop", Argv: []string{"/bin/stop"}, Outcome: outcome,
				IdleSince: open.Since, Rate: 12, Currency: "CNY"}}
		if _, err := s.RecordWatch(ctx, at, []WatchEvent{ev}, nil); err != nil {
			t.Fatal(err)
		}
	}
	act(from.Add(-time.Minute), ActionDryRun, true) // before the window
	act(t1.Add(2*time.Hour), ActionDryRun, true)
	act(t1.Add(3*time.Hour), ActionRefused, false)

	got, err := s.WatchActivity(ctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Alerts) != 1 {
		t.Fatalf("alerts %+v, want the one sent in the window", got.Alerts)
	}
	want := WatchAlert{SentAt: t1.Add(time.Minute), Resource: "gpu-a", Team: "nlp", Event: "idle", Channel: "slack#0", Title: "gpu-a idle for 1h"}
	if got.Alerts[0] != want {
		t.Errorf("alert %+v, want %+v", got.Alerts[0], want)
	}
	if len(got.Actions) != 2 {
		t.Fatalf("actions %+v, want the two decided in the window", got.Actions)
	}
	if a := got.Actions[0]; !a.DecidedAt.Equal(t1.Add(2*time.Hour)) || a.Outcome != ActionDryRun || !a.RateKnown || a.Rate != 12 || a.Currency != "CNY" {
		t.Errorf("first action %+v", a)
	}
	if a := got.Actions[1]; a.Outcome != ActionRefused || a.RateKnown {
		t.Errorf("second action %+v: its rate was not known", a)
	}
}
