package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestQueueDigest: each step's channels still pending, and the ledger after
// it: a channel is sent to once per generation; --resend starts the next;
// a failed one is retried with the message as built last; one no longer
// listed is forgotten unless it was sent to.
func TestQueueDigest(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	run, err := s.BeginRun(ctx, "2026-W48")
	if err != nil {
		t.Fatal(err)
	}
	ledger := func() []string {
		ds, err := s.Digests(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range ds {
			out = append(out, fmt.Sprintf("%s|%s|%s|g%d|%s|%s|%d", d.Period, d.Scope, d.Channel, d.Generation, d.Status, d.Body, d.Attempts))
		}
		return out
	}
	for _, step := range []struct {
		name        string
		do          func() ([]string, error)
		wantPending []string
		wantLedger  []string
	}{
		{"first queue", func() ([]string, error) {
			return s.QueueDigest(ctx, run.ID, "2026-W48", "nlp", []string{"slack#1", "feishu#0", "slack#1"}, false, DigestMessage{Body: "v1"})
		}, []string{"feishu#0", "slack#1"}, []string{"2026-W48|nlp|feishu#0|g1|pending|v1|0", "2026-W48|nlp|slack#1|g1|pending|v1|0"}},
		{"feishu sent, slack failed", func() ([]string, error) {
			if err := s.MarkDigest(ctx, run.ID, "2026-W48", "nlp", "feishu#0", DigestSent, ""); err != nil {
				return nil, err
			}
			return nil, s.MarkDigest(ctx, run.ID, "2026-W48", "nlp", "slack#1", DigestFailed, "HTTP 500")
		}, nil, []string{"2026-W48|nlp|feishu#0|g1|sent|v1|1", "2026-W48|nlp|slack#1|g1|failed|v1|1"}},
		{"queued again: only slack, with the new text", func() ([]string, error) {
			return s.QueueDigest(ctx, run.ID, "2026-W48", "nlp", []string{"feishu#0", "slack#1"}, false, DigestMessage{Body: "v2"})
		}, []string{"slack#1"}, []string{"2026-W48|nlp|feishu#0|g1|sent|v1|1", "2026-W48|nlp|slack#1|g1|pending|v2|1"}},
		{"slack dropped from the config: forgotten; feishu kept", func() ([]string, error) {
			return s.QueueDigest(ctx, run.ID, "2026-W48", "nlp", nil, false, DigestMessage{Body: "v3"})
		}, nil, []string{"2026-W48|nlp|feishu#0|g1|sent|v1|1"}},
		{"resend: the next generation", func() ([]string, error) {
			return s.QueueDigest(ctx, run.ID, "2026-W48", "nlp", []string{"feishu#0"}, true, DigestMessage{Body: "v4"})
		}, []string{"feishu#0"}, []string{"2026-W48|nlp|feishu#0|g2|pending|v4|1"}},
	} {
		pending, err := step.do()
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if !slices.Equal(pending, step.wantPending) {
			t.Errorf("%s: pending %q, want %q", step.name, pending, step.wantPending)
		}
		if got := ledger(); !slices.Equal(got, step.wantLedger) {
			t.Errorf("%s: ledger %q, want %q", step.name, got, step.wantLedger)
		}
	}
	p, err := s.PendingDigests(ctx)
	if err != nil || len(p) != 1 || p[0].Channel != "feishu#0" {
		t.Errorf("PendingDigests = %+v, %v", p, err)
	}
	if err := s.SetStage(ctx, run.ID, StageChat, StageFailed); err != nil {
		t.Fatal(err)
	}
	if runs, err := s.Runs(ctx, "2026-W48"); err != nil || runs[0].Chat != StageFailed {
		t.Errorf("runs %+v, %v: want chat failed", runs, err)
	}
}
