package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

func TestSnapshot(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.SyncTeams(ctx, []Team{{Name: "nlp", Leads: []string{"a@example.com"}}, {Name: "cv"}}); err != nil {
		t.Fatal(err)
	}
	run, err := s.BeginRun(ctx, "2026-W48")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "snap.db")
	if err := s.Snapshot(ctx, path); err != nil {
		t.Fatal(err)
	}
	if err := CheckIntegrity(ctx, path); err != nil {
		t.Fatal(err)
	}
	copyDB, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer copyDB.Close()
	want, _ := s.Counts(ctx)
	got, _ := copyDB.Counts(ctx)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("snapshot %s = %d rows, want %d", k, got[k], v)
		}
	}
	if runs, _ := copyDB.Runs(ctx, ""); len(runs) != 1 || runs[0].ID != run.ID {
		t.Errorf("snapshot runs = %+v", runs)
	}
	// The target must not exist: a snapshot never overwrites a file.
	if err := s.Snapshot(ctx, path); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("second snapshot to the same path: %v", err)
	}
}

func TestCheckIntegrityRejectsDamage(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	// Enough rows for several pages, so damage lands in a b-tree page.
	meta := FileMeta{URI: "x.csv", SHA256: shaOf("x")}
	_, err := s.Import(ctx, meta, func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		for i := range 3000 {
			start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
			if err := sink.Billing(&finops.BillingLine{Line: i + 1, ChargeStart: start, ChargeEnd: start.Add(time.Hour),
				ChargeCategory: finops.ChargeUsage, ResourceID: strings.Repeat("r", 50), BilledCost: dec("1.5")}); err != nil {
				return nil, err
			}
		}
		return &ingest.Summary{Format: "focus", Kind: ingest.KindBilling, Rows: 3000}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "snap.db")
	if err := s.Snapshot(ctx, path); err != nil {
		t.Fatal(err)
	}
	// The page in the middle of the file overwritten.
	damagePage(t, path, 0)
	if err := CheckIntegrity(ctx, path); err == nil {
		t.Error("integrity check passed a damaged file")
	}
	if err := CheckIntegrity(ctx, filepath.Join(t.TempDir(), "missing.db")); err == nil {
		t.Error("integrity check passed a missing file")
	}
}
