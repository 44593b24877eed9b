package store

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// TestMigrateAdviceDecisions: migration 12 adds advice_decisions to a
// database of schema 11 and keeps what was there; a decision recorded then is
// read back as the id's current one, with every earlier row kept as history.
func TestMigrateAdviceDecisions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v11.db")
	db := oldSchema(t, path, 11)
	for _, q := range []string{
		`PRAGMA user_version = 11`,
		`INSERT INTO failed_imports (uri, error, failed_at) VALUES ('bill.csv', 'broken', 7)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkAdviceMigrated(t, s)
	checkAdviceDecisionsRecorded(ctx, t, s)
}

// checkAdviceMigrated checks the migrated database: the schema version,
// the rows that were there, and advice_decisions' columns and check.
func checkAdviceMigrated(t *testing.T, s *Store) {
	t.Helper()
	if v, want := tableRows(t, s.DB(), `PRAGMA user_version`), fmt.Sprintf("[%d]", SchemaVersion()); !slices.Equal(v, []string{want}) {
		t.Fatalf("user_version %v, want %s", v, want)
	}
	if got := tableRows(t, s.DB(), `SELECT uri, error FROM failed_imports`); !slices.Equal(got, []string{"[bill.csv broken]"}) {
		t.Errorf("failed_imports after the migration: %v", got)
	}
	cols := tableRows(t, s.DB(), `SELECT name FROM pragma_table_info('advice_decisions') ORDER BY cid`)
	want := []string{"[seq]", "[id]", "[decision]", "[until]", "[why]", "[decided_at]", "[resource_id]", "[action]",
		"[baseline]", "[expected]", "[currency]"}
	if !slices.Equal(cols, want) {
		t.Fatalf("advice_decisions columns %v, want %v", cols, want)
	}
	if _, err := s.DB().Exec(`INSERT INTO advice_decisions (id, decision, decided_at, resource_id, action)
		VALUES ('adv-00000000', 'maybe', 0, 'r', 'release')`); err == nil {
		t.Error("a decision other than done, dismissed or snoozed was stored")
	}
}

// checkAdviceDecisionsRecorded records decisions in the migrated database
// and reads each id's current one back, with every earlier row as history.
func checkAdviceDecisionsRecorded(ctx context.Context, t *testing.T, s *Store) {
	t.Helper()
	at := func(d int) time.Time { return time.Date(2026, 12, d, 9, 0, 0, 0, time.UTC) }
	// adv-a is snoozed, then dismissed (the clock went back between the two:
	// the later row still wins); adv-b is done with its baseline.
	for _, d := range []AdviceDecision{
		{ID: "adv-a", Decision: "snoozed", Until: at(29), Why: "<b>after the freeze</b>", DecidedAt: at(2), ResourceID: "r1", Action: "release"},
		{ID: "adv-b", Decision: "done", DecidedAt: at(2), ResourceID: "r2", Action: "switch_to_hourly",
			Baseline: 3000, Expected: 2010, Currency: "CNY"},
		{ID: "adv-a", Decision: "dismissed", Why: "=HYPERLINK(\"x\")", DecidedAt: at(1), ResourceID: "r1", Action: "release"},
	} {
		if err := s.RecordAdviceDecision(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	cur, err := s.AdviceDecisions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) != 2 || cur[0].ID != "adv-a" || cur[0].Decision != "dismissed" || !cur[0].Until.IsZero() ||
		cur[0].Why != "=HYPERLINK(\"x\")" || !cur[0].DecidedAt.Equal(at(1)) {
		t.Fatalf("current decisions %+v", cur)
	}
	if b := cur[1]; b.ID != "adv-b" || b.Decision != "done" || b.Baseline != 3000 || b.Expected != 2010 ||
		b.Currency != "CNY" || b.ResourceID != "r2" || b.Action != "switch_to_hourly" {
		t.Errorf("adv-b: %+v", b)
	}
	hist, err := s.AdviceHistory(ctx, "adv-a")
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[0].Decision != "snoozed" || !hist[0].Until.Equal(at(29)) || hist[0].Why != "<b>after the freeze</b>" {
		t.Errorf("adv-a's history %+v, want the snooze then the dismissal", hist)
	}
}

// TestResourceLines keeps the lines of the resources asked for, by id or
// name and without regard to case, overlapping the range.
func TestResourceLines(t *testing.T) {
	s := openTest(t)
	day := func(d int) time.Time { return utc(2026, 11, d, 0, 0, 0) }
	lines := []*finops.BillingLine{
		usageLine(1, "card", day(1), day(2), "10"),
		usageLine(2, "CARD", day(3), day(4), "11"),
		usageLine(3, "other", day(3), day(4), "12"),
		usageLine(4, "card", day(20), day(21), "13"),
		usageLine(5, "", day(3), day(4), "14"),
	}
	lines[4].ResourceName = "Named"
	mustImport(t, s, "b.csv", feed(&ingest.Summary{Format: "focus", Kind: "billing", Rows: len(lines)}, lines, nil, nil))
	got, err := s.ResourceLines(context.Background(), day(1), day(10), []string{"card", "named"})
	if err != nil {
		t.Fatal(err)
	}
	var costs []string
	for _, l := range got {
		costs = append(costs, l.BilledCost.String())
	}
	slices.Sort(costs)
	if want := []string{"10", "11", "14"}; !slices.Equal(costs, want) {
		t.Errorf("lines %v, want %v", costs, want)
	}
}
