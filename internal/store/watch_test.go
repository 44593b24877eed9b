package store

import (
	"context"
	"testing"
	"time"
)

func countRows(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	if err := s.DB().QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWatchLedger: a spell's life in the ledger, one transaction per pass.
// A second open spell of the same resource and kind is refused and the
// whole pass rolls back; a pending action left by a dead pass is marked
// interrupted and can never be finished (run) again.
func TestWatchLedger(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	t1 := utc(2026, 11, 30, 1, 31, 0)
	open := WatchEvent{Kind: "open", SpellKind: "idle", Event: "idle", Resource: "gpu-a", Team: "nlp", Since: utc(2026, 11, 30, 1, 0, 0),
		Rate: 4.8, RateKnown: true, Currency: "CNY", Title: "idle", Body: "b", Burnt: 2.48, BurntKnown: true, Channels: []string{"slack#0", "email#1"}}
	if _, err := s.RecordWatch(ctx, t1, []WatchEvent{open}, nil); err != nil {
		t.Fatal(err)
	}
	spells, err := s.OpenSpells(ctx)
	if err != nil || len(spells) != 1 || spells[0].Resource != "gpu-a" || spells[0].Rate != 4.8 || !spells[0].Opened.Equal(t1) {
		t.Fatalf("open spells %+v, %v", spells, err)
	}
	id := spells[0].ID
	// The same spell opened again (two passes at once cannot, but a bug
	// could): refused, and the other decision of that pass is not kept.
	other := WatchEvent{Kind: "remind", SpellID: id, Event: "reminder", Resource: "gpu-a", Title: "r", Body: "b"}
	if _, err := s.RecordWatch(ctx, t1.Add(time.Minute), []WatchEvent{other, open}, nil); err == nil {
		t.Fatal("a second open spell of gpu-a was recorded")
	}
	if n := countRows(t, s, "watch_events"); n != 1 {
		t.Errorf("%d events after the refused pass, want 1", n)
	}
	checkWatchLedgerMessages(ctx, t, s, t1)
	checkWatchLedgerInterrupted(ctx, t, s, t1, id, open.Since)
	closeEv := WatchEvent{Kind: "close", SpellID: id, Event: "busy", Resource: "gpu-a", Title: "busy", Body: "b", CloseReason: "busy", Burnt: 7, BurntKnown: true}
	if _, err := s.RecordWatch(ctx, t1.Add(time.Hour), []WatchEvent{closeEv}, nil); err != nil {
		t.Fatal(err)
	}
	if spells, _ = s.OpenSpells(ctx); len(spells) != 0 {
		t.Errorf("open after close: %+v", spells)
	}
	hist, err := s.WatchHistory(ctx, t1, t1.Add(2*time.Hour))
	if err != nil || len(hist) != 3 || hist[1].Action == nil || hist[1].Action.Outcome != ActionInterrupted || hist[2].Event != "busy" {
		t.Errorf("history %+v, %v", hist, err)
	}
}

// checkWatchLedgerMessages sends one of the open spell's two pending
// messages and fails the other: one stays pending, tried once.
func checkWatchLedgerMessages(ctx context.Context, t *testing.T, s *Store, t1 time.Time) {
	t.Helper()
	msgs, err := s.PendingWatchMessages(ctx)
	if err != nil || len(msgs) != 2 || msgs[0].Channel != "slack#0" || msgs[1].Channel != "email#1" || msgs[0].Burnt != 2.48 {
		t.Fatalf("pending messages %+v, %v", msgs, err)
	}
	if err := s.MessageSent(ctx, msgs[0].ID, t1); err != nil {
		t.Fatal(err)
	}
	if err := s.MessageFailed(ctx, msgs[1].ID, "smtp connect: refused"); err != nil {
		t.Fatal(err)
	}
	if msgs, _ = s.PendingWatchMessages(ctx); len(msgs) != 1 || msgs[0].Attempts != 1 {
		t.Errorf("after one sent and one failed: %+v", msgs)
	}
}

// checkWatchLedgerInterrupted records a pending action on spell id, lets
// the pass die, and checks the next pass marks it interrupted for good.
func checkWatchLedgerInterrupted(ctx context.Context, t *testing.T, s *Store, t1 time.Time, id int64, since time.Time) {
	t.Helper()
	act := WatchEvent{Kind: "act", SpellID: id, Event: "action", Resource: "gpu-a", Team: "nlp", Title: "stop", Body: "b",
		Action: &WatchAction{Action: "stop", Argv: []string{"/bin/stop", "gpu-a"}, Outcome: ActionPending, IdleSince: since, Rate: 4.8, Currency: "CNY"}}
	pending, err := s.RecordWatch(ctx, t1.Add(30*time.Minute), []WatchEvent{act}, nil)
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending %v, %v", pending, err)
	}
	if spells, _ := s.OpenSpells(ctx); !spells[0].Acted {
		t.Error("the spell is not marked acted with its action recorded")
	}
	// The pass dies here. The next one finds the action pending.
	if n, err := s.InterruptPendingActions(ctx, t1.Add(35*time.Minute)); err != nil || n != 1 {
		t.Fatalf("interrupted %d, %v", n, err)
	}
	if err := s.FinishAction(ctx, pending[0], ActionDone, "", nil, "", t1); err == nil {
		t.Error("an interrupted action was finished again")
	}
	a, err := s.Action(ctx, pending[0])
	if err != nil || a.Outcome != ActionInterrupted || a.Argv[1] != "gpu-a" {
		t.Errorf("action %+v, %v", a, err)
	}
}
