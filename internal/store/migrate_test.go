package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// TestMigrateBillingLinesForeignKey: migration 10 drops billing_lines' foreign
// key on source_id, on a database written by schema 9,
// and keeps every row (id and every column), the indexes, and the
// restatement's deletes: a replaced source leaves no line behind.
func TestMigrateBillingLinesForeignKey(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v9.db")
	db := oldSchema(t, path, 9)
	// Rows as schema 9 stored them: ids with a gap, every column set on one
	// line, every nullable column NULL on another, and a line of a source
	// that belongs to a billing period (replaced below).
	for _, q := range []string{
		`PRAGMA user_version = 9`,
		`INSERT INTO source_files (id, uri, sha256, format, kind, rows, imported_at, period_key, delivery) VALUES
			(1, 'a.csv', 'sha-a', 'focus', 'billing', 2, 0, NULL, NULL),
			(2, 'old.csv', 'sha-old', 'aws-cur', 'billing', 1, 0, 'aws-cur:1:2026-01', 'asm-1')`,
		`INSERT INTO billing_lines VALUES
			(3, 1, 2, 'AWS', 'acct', 'sub', 1767225600, 1767229200, 'Usage', 'Correction', 'Usage-Based', 'Standard',
			 'OnDemand', 'Used', 'cm-1', 'i-1', 'gpu box', 'p4d', 'EC2', 'sku-1', 'p4d.24xlarge', 'us-east-1', 'A100',
			 8, '32.77', '30.1', '40', 'USD', '1', 'Hours', '{"team":"ml"}'),
			(7, 1, 3, NULL, NULL, NULL, 1767225600, 1767229200, 'Tax', NULL, NULL, NULL, NULL, NULL, NULL, NULL,
			 NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
			(8, 2, 2, 'AWS', NULL, NULL, 1767312000, 1767315600, 'Usage', NULL, NULL, NULL, NULL, NULL, NULL, 'i-2',
			 NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, '5', NULL, NULL, 'USD', NULL, NULL, NULL)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	before := tableRows(t, db, `SELECT * FROM billing_lines ORDER BY id`)
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var version int
	if err := s.DB().QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != SchemaVersion() {
		t.Fatalf("user_version = %d (%v), want %d", version, err, SchemaVersion())
	}
	if fks := tableRows(t, s.DB(), `SELECT "table" FROM pragma_foreign_key_list('billing_lines')`); len(fks) > 0 {
		t.Errorf("billing_lines still has foreign keys: %v", fks)
	}
	if after := tableRows(t, s.DB(), `SELECT * FROM billing_lines ORDER BY id`); !slices.Equal(after, before) {
		t.Errorf("rows after the migration:\n%v\nwant\n%v", after, before)
	}
	idx := tableRows(t, s.DB(), `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'billing_lines' ORDER BY name`)
	if want := []string{"[billing_lines_end]", "[billing_lines_source]", "[billing_lines_start]"}; !slices.Equal(idx, want) {
		t.Errorf("indexes %v, want %v", idx, want)
	}
	if ok := tableRows(t, s.DB(), `PRAGMA integrity_check`); !slices.Equal(ok, []string{"[ok]"}) {
		t.Errorf("integrity_check: %v", ok)
	}

	// A new delivery of old.csv's period replaces it: its line goes, a.csv's
	// two stay, the new file's one comes.
	importDelivery(t, s, "aws-cur:1:2026-01", "asm-2", deliveryFile{"new.csv", []string{"6"}})
	ids := tableRows(t, s.DB(), `SELECT source_id, line FROM billing_lines ORDER BY source_id, line`)
	if want := []string{"[1 2]", "[1 3]", "[3 2]"}; !slices.Equal(ids, want) {
		t.Errorf("lines (source, line) after the restatement: %v, want %v", ids, want)
	}
	assertNoOrphanLines(t, s)
}

// tableRows reads every row of a query, each formatted as one string.
func tableRows(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(vals))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// assertNoOrphanLines fails when a billing line's source is gone: nothing
// but the store's own deletes keeps them together since migration 10.
func assertNoOrphanLines(t *testing.T, s *Store) {
	t.Helper()
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM billing_lines
		WHERE source_id NOT IN (SELECT id FROM source_files)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		t.Errorf("%d billing lines whose source file is gone", n)
	}
}

// TestMigrateRefusesForeignSchema: where billing_lines' CREATE statement is
// not the one finops wrote (here its spacing differs), migration 10 cannot
// find the key to drop: Open refuses with the reason and the database stays
// at schema 9, key and all.
func TestMigrateRefusesForeignSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v9.db")
	db := oldSchema(t, path, 9)
	for _, q := range []string{`PRAGMA user_version = 9`, `PRAGMA writable_schema = ON`,
		`UPDATE sqlite_schema SET sql = replace(sql, 'source_id         INTEGER', 'source_id INTEGER') WHERE name = 'billing_lines'`,
		`PRAGMA writable_schema = OFF`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if s, err := Open(ctx, path); err == nil {
		s.Close()
		t.Fatal("Open migrated a billing_lines it did not write")
	} else if !strings.Contains(err.Error(), "migration 10") || !strings.Contains(err.Error(), "foreign key") {
		t.Errorf("error %q: want migration 10 and the foreign key named", err)
	}
	db = oldSchema(t, path, 0) // the same file, as it was left
	if v := tableRows(t, db, `PRAGMA user_version`); !slices.Equal(v, []string{"[9]"}) {
		t.Errorf("user_version %v after the refusal, want 9", v)
	}
	if fks := tableRows(t, db, `SELECT "table" FROM pragma_foreign_key_list('billing_lines')`); len(fks) != 1 {
		t.Errorf("foreign keys after the refusal: %v, want the one", fks)
	}
}

// oldSchema opens a new database at path as finops at schema version left
// it: the first version migrations applied, user_version still 0 for the
// caller to set with the rows it writes.
func oldSchema(t *testing.T, path string, version int) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// One connection: migration 10 edits sqlite_schema, which another
	// connection of the pool would not read again.
	db.SetMaxOpenConns(1)
	for i, m := range migrations[:version] {
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(m); err != nil {
			t.Fatalf("migration %d: %v", i+1, err)
		}
		if err := afterMigration(context.Background(), tx, i+1); err != nil {
			t.Fatalf("migration %d: %v", i+1, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestMigrateDayPower: migration 14 adds gpu_days.power to a database
// written by schema 13 and leaves its days without (NULL): they read as
// they did, each minute with the day's mean power. A minute delivered
// later into such a day is compacted with its own watts, and the day's
// older minutes keep the mean they were read with rather than losing their
// power.
func TestMigrateDayPower(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v13.db")
	db := oldSchema(t, path, 13)
	// Day 20148 (2025-03-01, minute 29013120): GPU-A at 10:00 and 10:01
	// with 100 W and 300 W, stored as a sum of 400 from 2 readings; GPU-B
	// at 10:00 with no power reading.
	const d0, m0 = 20148, 29013120
	var util [dayMinutes]float32
	for i := range util {
		util[i] = float32(math.NaN())
	}
	util[600], util[601] = 50, 50
	a := encodeDay(&util)
	util[601] = float32(math.NaN())
	b := encodeDay(&util)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO gpus (id, gpu_key, uuid) VALUES (1, 'GPU-A', 'GPU-A'), (2, 'GPU-B', 'GPU-B')`, nil},
		{`INSERT INTO gpu_days (gpu_id, day, minutes, util, mem_used_max, power_sum, power_n) VALUES
			(1, ?, 2, ?, NULL, 400, 2), (2, ?, 1, ?, NULL, 0, 0)`, []any{d0, a, d0, b}},
		{`PRAGMA user_version = 13`, nil},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := userVersion(t, s.DB()); v != SchemaVersion() || v < 14 {
		t.Fatalf("user_version = %d, want %d (14 or later)", v, SchemaVersion())
	}
	if got := tableRows(t, s.DB(), `SELECT gpu_id, power IS NULL FROM gpu_days ORDER BY gpu_id`); !slices.Equal(got, []string{"[1 1]", "[2 1]"}) {
		t.Errorf("gpu_days (gpu, power IS NULL) = %v, want both NULL", got)
	}
	series := func() map[string]map[int64]float64 {
		t.Helper()
		gs, err := s.GPUSeries(ctx, coldDay, coldDay.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]map[int64]float64{}
		for i := range gs {
			out[gs[i].Key] = minutePower(&gs[i])
		}
		return out
	}
	// 400 W from 2 readings for 2 minutes: 200 W each; GPU-B none.
	want := map[string]map[int64]float64{"GPU-A": {m0 + 600: 200, m0 + 601: 200}, "GPU-B": {m0 + 600: -1}}
	if got := series(); !reflect.DeepEqual(got, want) {
		t.Errorf("after the migration: %v, want %v", got, want)
	}

	// 10:02 at 500 W arrives late and is compacted into the old day.
	sum := &ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization}
	mustImport(t, s, "late.csv", feed(sum, nil, []*finops.GPUSample{
		{UUID: "GPU-A", Index: -1, Time: coldDay.Add(hm(10, 2, 0)), Util: new(80.0), PowerWatt: new(500.0)},
	}, nil))
	if _, err := s.CompactTelemetry(ctx, coldDay.Add(72*time.Hour)); err != nil {
		t.Fatal(err)
	}
	want["GPU-A"][m0+602] = 500
	if got := series(); !reflect.DeepEqual(got, want) {
		t.Errorf("after a late minute: %v, want %v", got, want)
	}
	if got, want := dayWatts(t, s, "GPU-A", d0), map[int]int{600: 200, 601: 200, 602: 500}; !reflect.DeepEqual(got, want) {
		t.Errorf("GPU-A's day watts %v, want %v", got, want)
	}
	if got := dayWatts(t, s, "GPU-B", d0); got != nil {
		t.Errorf("GPU-B's day has power %v, want NULL", got)
	}
}
