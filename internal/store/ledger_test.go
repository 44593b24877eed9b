package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

func build(calls *int) BuildFunc {
	return func(gen int) (string, string, []byte, error) {
		*calls++
		return fmt.Sprintf("<id.%d@x>", gen), "subject", []byte(fmt.Sprintf("mime gen %d call %d", gen, *calls)), nil
	}
}

func TestLedgerRunLifecycle(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	r1, err := s.BeginRun(ctx, "2026-W48")
	if err != nil {
		t.Fatal(err)
	}
	s.SetStage(ctx, r1.ID, StageIngest, StageOK)
	s.SetStage(ctx, r1.ID, StageUpload, StageFailed)
	if err := s.SetStage(ctx, r1.ID, "nonsense", StageOK); err == nil {
		t.Error("unknown stage accepted")
	}
	// r1 dies here (no FinishRun). The next run finds it.
	r2, err := s.BeginRun(ctx, "2026-W48")
	if err != nil {
		t.Fatal(err)
	}
	if r2.InterruptedBefore != 1 {
		t.Errorf("InterruptedBefore = %d, want 1", r2.InterruptedBefore)
	}
	if err := s.FinishRun(ctx, r2.ID, RunOK, ""); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx, "2026-W48")
	if err != nil || len(runs) != 2 {
		t.Fatalf("Runs = %+v, %v", runs, err)
	}
	if runs[0].Status != RunInterrupted || runs[0].Ingest != StageOK || runs[0].Upload != StageFailed || !runs[0].FinishedAt.IsZero() {
		t.Errorf("run 1 = %+v", runs[0])
	}
	if runs[1].Status != RunOK || runs[1].FinishedAt.IsZero() || runs[1].PID == 0 {
		t.Errorf("run 2 = %+v", runs[1])
	}
	if last, _ := s.LastSuccess(ctx); last.IsZero() {
		t.Error("LastSuccess is zero after an ok run")
	}
}

func TestLedgerArtifacts(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	r, _ := s.BeginRun(ctx, "2026-W47")
	a := Artifact{Period: "2026-W47", Name: "finops-2026-W47.json", Kind: "report", Path: "/out/a.json",
		ContentType: "application/json", SHA256: "aaa", Size: 3}
	if err := s.RecordArtifact(ctx, r.ID, a); err != nil {
		t.Fatal(err)
	}
	snap := Artifact{Period: "2026-W47", Name: "finops-2026-W47.db.gz", Kind: "snapshot", ContentType: "application/gzip", SHA256: "s1", Size: 9}
	s.RecordArtifact(ctx, r.ID, snap)
	s.MarkArtifact(ctx, snap.Period, snap.Name, ArtifactFailed, "S3 down")
	pending, _ := s.PendingArtifacts(ctx)
	if len(pending) != 2 {
		t.Fatalf("pending = %+v", pending)
	}
	if err := s.MarkUploaded(ctx, r.ID, a.Period, a.Name, "weekly/2026-W47/finops-2026-W47.json", "aaa"); err != nil {
		t.Fatal(err)
	}
	// The same bytes again: still uploaded. Other bytes: pending again.
	s.RecordArtifact(ctx, r.ID, a)
	if p, _ := s.PendingArtifacts(ctx); len(p) != 1 || p[0].Kind != "snapshot" {
		t.Errorf("after re-recording the same bytes: pending %+v", p)
	}
	a.SHA256 = "bbb"
	s.RecordArtifact(ctx, r.ID, a)
	if p, _ := s.PendingArtifacts(ctx); len(p) != 2 {
		t.Errorf("after new bytes: pending %+v", p)
	}
	// An upload of old bytes that finishes after new bytes were recorded
	// does not mark the new bytes uploaded.
	s.MarkUploaded(ctx, r.ID, a.Period, a.Name, "k", "aaa")
	if p, _ := s.PendingArtifacts(ctx); len(p) != 2 {
		t.Errorf("stale upload marked new bytes uploaded: %+v", p)
	}
	// A newer period's snapshot supersedes the failed one.
	if n, _ := s.SupersedeSnapshots(ctx, "2026-W48"); n != 1 {
		t.Errorf("superseded %d, want 1", n)
	}
	arts, _ := s.Artifacts(ctx, "2026-W47")
	if len(arts) != 2 || arts[0].Status != ArtifactSuperseded || arts[1].Status != ArtifactPending || arts[1].Key != "k" {
		t.Errorf("artifacts = %+v", arts)
	}
}

func TestLedgerEmails(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	r, _ := s.BeginRun(ctx, "2026-W48")
	calls := 0
	pending, err := s.QueueEmail(ctx, r.ID, "2026-W48", "nlp", []string{"b@x.com", "a@x.com", "a@x.com"}, false, build(&calls))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pending, []string{"a@x.com", "b@x.com"}) || calls != 1 {
		t.Fatalf("first queue: pending %v, %d builds", pending, calls)
	}
	msgs, _ := s.PendingMessages(ctx)
	if len(msgs) != 1 || msgs[0].MessageID != "<id.1@x>" || !slices.Equal(msgs[0].Recipients, []string{"a@x.com", "b@x.com"}) {
		t.Fatalf("pending messages = %+v", msgs)
	}
	s.MarkSending(ctx, r.ID, "2026-W48", "nlp", []string{"a@x.com", "b@x.com"})
	s.MarkSent(ctx, r.ID, "2026-W48", "nlp", []string{"a@x.com"})
	s.MarkEmailFailed(ctx, r.ID, "2026-W48", "nlp", []string{"b@x.com"}, "550 no such user")

	// A rerun of the week: only b is pending; the message keeps its ID.
	pending, _ = s.QueueEmail(ctx, r.ID, "2026-W48", "nlp", []string{"a@x.com", "b@x.com"}, false, build(&calls))
	if !slices.Equal(pending, []string{"b@x.com"}) {
		t.Errorf("rerun: pending %v", pending)
	}
	msgs, _ = s.PendingMessages(ctx)
	if len(msgs) != 1 || msgs[0].MessageID != "<id.1@x>" || !slices.Equal(msgs[0].Recipients, []string{"b@x.com"}) {
		t.Errorf("rerun: pending messages = %+v", msgs)
	}
	s.MarkSent(ctx, r.ID, "2026-W48", "nlp", []string{"b@x.com"})
	// Everyone has it: nothing pending, no build, and the stored message is dropped.
	before := calls
	pending, _ = s.QueueEmail(ctx, r.ID, "2026-W48", "nlp", []string{"a@x.com", "b@x.com"}, false, build(&calls))
	if len(pending) != 0 || calls != before {
		t.Errorf("all sent: pending %v, builds %d", pending, calls-before)
	}
	var mime []byte
	s.DB().QueryRow(`SELECT mime FROM run_messages WHERE period = '2026-W48' AND scope = 'nlp'`).Scan(&mime)
	if mime != nil {
		t.Error("the message is still stored after everyone got it")
	}
	// A lead added since gets it; --resend sends everyone a new generation.
	pending, _ = s.QueueEmail(ctx, r.ID, "2026-W48", "nlp", []string{"a@x.com", "b@x.com", "c@x.com"}, false, build(&calls))
	if !slices.Equal(pending, []string{"c@x.com"}) {
		t.Errorf("new lead: pending %v", pending)
	}
	pending, _ = s.QueueEmail(ctx, r.ID, "2026-W48", "nlp", []string{"a@x.com", "b@x.com"}, true, build(&calls))
	msgs, _ = s.PendingMessages(ctx)
	if !slices.Equal(pending, []string{"a@x.com", "b@x.com"}) || len(msgs) != 1 || msgs[0].MessageID != "<id.2@x>" {
		t.Errorf("resend: pending %v, messages %+v", pending, msgs)
	}
	// c was dropped from the leads before it was sent: forgotten.
	st, _ := s.EmailStatuses(ctx, "2026-W48")
	if len(st) != 2 {
		t.Errorf("statuses = %+v", st)
	}
	// A failing build leaves nothing queued.
	fail := func(int) (string, string, []byte, error) { return "", "", nil, fmt.Errorf("boom") }
	if _, err := s.QueueEmail(ctx, r.ID, "2026-W48", "", []string{"admin@x.com"}, false, fail); err == nil {
		t.Error("build error swallowed")
	}
	if sent, _ := s.EmailSent(ctx, "2026-W48", ""); len(sent) != 0 {
		t.Errorf("failed build left %v", sent)
	}
}

// TestLedgerInterruptedSend: a recipient marked sending when the process
// died is queued again by the next run.
func TestLedgerInterruptedSend(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	r, _ := s.BeginRun(ctx, "2026-W48")
	calls := 0
	s.QueueEmail(ctx, r.ID, "2026-W48", "cv", []string{"a@x.com"}, false, build(&calls))
	s.MarkSending(ctx, r.ID, "2026-W48", "cv", []string{"a@x.com"})
	// kill -9 here
	r2, _ := s.BeginRun(ctx, "2026-W48")
	if r2.ResetSendingBefore != 1 || r2.InterruptedBefore != 1 {
		t.Errorf("BeginRun = %+v", r2)
	}
	msgs, _ := s.PendingMessages(ctx)
	if len(msgs) != 1 || msgs[0].Recipients[0] != "a@x.com" {
		t.Errorf("pending = %+v", msgs)
	}
	st, _ := s.EmailStatuses(ctx, "")
	if len(st) != 1 || st[0].Attempts != 1 || st[0].Status != EmailPending {
		t.Errorf("status = %+v", st)
	}
}
