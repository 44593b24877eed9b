package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRestoreRefusesForeignSnapshot: a snapshot that passes PRAGMA
// integrity_check but is not a database finops wrote is refused before the
// swap, naming what is wrong, and the current database stays byte for byte
// as it was (no .before-restore copy either): a trigger that zeroes every
// ingested cost, a view in place of billing_lines, another application's
// database (with and without an application_id), a schema newer than this
// finops, an extra index, a changed column, gpu_days without the power column
// migration 14 adds, and a file with no schema.
func TestRestoreRefusesForeignSnapshot(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 7, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		make  func(t *testing.T, path string)
		wants []string
	}{
		{name: "trigger zeroes costs", make: finopsWith(
			`CREATE TRIGGER zero_cost AFTER INSERT ON billing_lines BEGIN UPDATE billing_lines SET billed_cost = '0', effective_cost = '0' WHERE id = NEW.id; END`),
			wants: []string{`trigger "zero_cost" on billing_lines`}},
		{name: "view in place of billing_lines", make: finopsWith(
			`DROP TABLE billing_lines`,
			`CREATE VIEW billing_lines AS SELECT id, 0 AS billed_cost FROM source_files`),
			wants: []string{"billing_lines is a view, not finops's table", "index billing_lines_end, billing_lines_source, billing_lines_start missing"}},
		{name: "another application's database", make: sqliteWith(
			`PRAGMA application_id = 1196444487`, // GeoPackage, "GPKG"
			`PRAGMA user_version = 10300`,
			`CREATE TABLE gpkg_contents (table_name TEXT PRIMARY KEY)`),
			wants: []string{"not a finops database", "application_id is 0x47504b47"}},
		{name: "another application's database without application_id", make: sqliteWith(
			`PRAGMA user_version = 3`,
			`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)`),
			wants: []string{"not the schema finops writes (version 3)", `table "notes" that finops does not create`, "table billing_lines, gpu_minutes, gpu_sources, gpus, rejected_rows,"}},
		{name: "newer schema", make: finopsWith(
			fmt.Sprintf(`PRAGMA user_version = %d`, SchemaVersion()+1),
			`CREATE TABLE from_the_future (id INTEGER PRIMARY KEY)`),
			wants: []string{fmt.Sprintf("schema version %d, newer than this finops (%d): upgrade finops", SchemaVersion()+1, SchemaVersion())}},
		{name: "extra index", make: finopsWith(`CREATE INDEX sneaky ON billing_lines(billed_cost)`),
			wants: []string{`index "sneaky" that finops does not create`}},
		{name: "changed column", make: finopsWith(`ALTER TABLE billing_lines ADD COLUMN note TEXT`),
			wants: []string{"table billing_lines is not defined as finops defines it"}},
		{name: "current version without gpu_days.power", make: finopsWith(`ALTER TABLE gpu_days DROP COLUMN power`),
			wants: []string{"table gpu_days is not defined as finops defines it"}},
		{name: "no schema", make: sqliteWith(`CREATE TABLE t (x)`, `DROP TABLE t`),
			wants: []string{"not a finops database: its schema version (PRAGMA user_version) is 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			snap, db := filepath.Join(dir, "snap.db"), filepath.Join(dir, "finops.db")
			tc.make(t, snap)
			if err := CheckIntegrity(ctx, snap); err != nil {
				t.Fatalf("the hostile snapshot must pass the integrity check to test anything: %v", err)
			}
			oldDB(t, db)
			before, err := os.ReadFile(db)
			if err != nil {
				t.Fatal(err)
			}
			kept, err := Restore(ctx, snap, db, now)
			if err == nil {
				t.Fatalf("Restore put the snapshot in place (kept %q)", kept)
			}
			for _, want := range append(tc.wants, snap) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
			if after, err := os.ReadFile(db); err != nil || !bytes.Equal(after, before) {
				t.Errorf("the current database changed (%v)", err)
			}
			if matches, _ := filepath.Glob(db + ".before-restore-*"); len(matches) > 0 || kept != "" {
				t.Errorf("a refused restore moved the database aside: %v %q", matches, kept)
			}
			st, err := Open(ctx, db)
			if err != nil {
				t.Fatalf("the current database no longer opens: %v", err)
			}
			defer st.Close()
			var n int
			if err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM source_files WHERE uri = 'old.csv'`).Scan(&n); err != nil || n != 1 {
				t.Errorf("the current database's row: %d, %v", n, err)
			}
		})
	}
}

// TestRestoreOlderSchema: a snapshot a previous finops wrote (schema
// version 9, and 13, the last before gpu_days.power, with a compacted day)
// passes the check, is migrated in its own file before the swap and opens
// at the current version with its rows; the old day has no power blob.
func TestRestoreOlderSchema(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		version int
		rows    []string // written at that version, after a source file
		check   string   // a query on the restored database
		want    []string // its rows
	}{
		{version: 9},
		{version: 13,
			rows: []string{`INSERT INTO gpus (id, gpu_key) VALUES (1, 'GPU-A')`,
				`INSERT INTO gpu_days (gpu_id, day, minutes, util, power_sum, power_n) VALUES (1, 20148, 0, zeroblob(5760), 0, 0)`},
			check: `SELECT day, power IS NULL FROM gpu_days`, want: []string{"[20148 1]"}},
	} {
		t.Run(fmt.Sprint("schema ", tc.version), func(t *testing.T) {
			dir := t.TempDir()
			snap, db := filepath.Join(dir, "snap.db"), filepath.Join(dir, "finops.db")
			raw := oldSchema(t, snap, tc.version)
			mustExec(t, raw, fmt.Sprintf(`PRAGMA user_version = %d`, tc.version),
				`INSERT INTO source_files (uri, sha256, format, kind, rows, imported_at) VALUES ('w47.csv', 'ab', 'focus', 'billing', 1, 0)`)
			mustExec(t, raw, tc.rows...)
			raw.Close()
			if v, err := CheckSnapshot(ctx, snap); err != nil || v != tc.version {
				t.Fatalf("CheckSnapshot = %d, %v; want %d, nil", v, err, tc.version)
			}
			oldDB(t, db)
			if _, err := Restore(ctx, snap, db, time.Now()); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(snap + "-wal"); err == nil {
				t.Error("the snapshot's WAL was left behind")
			}
			v, err := Diagnose(ctx, db)
			if err != nil || v != SchemaVersion() {
				t.Errorf("restored database: version %d, %v; want %d", v, err, SchemaVersion())
			}
			st, err := Open(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var uri string
			if err := st.DB().QueryRowContext(ctx, `SELECT uri FROM source_files`).Scan(&uri); err != nil || uri != "w47.csv" {
				t.Errorf("restored rows: %q, %v", uri, err)
			}
			if tc.check != "" {
				if got := tableRows(t, st.DB(), tc.check); !slices.Equal(got, tc.want) {
					t.Errorf("%s: %v, want %v", tc.check, got, tc.want)
				}
			}
			if _, err := CheckSnapshot(ctx, db); err != nil {
				t.Errorf("the migrated database is not finops's schema: %v", err)
			}
		})
	}
}

// finopsWith makes a migrated finops database and runs stmts on it.
func finopsWith(stmts ...string) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		newDB(t, path)
		sqliteWith(stmts...)(t, path)
	}
}

// sqliteWith runs stmts on the SQLite file at path (created if needed).
func sqliteWith(stmts ...string) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		mustExec(t, db, stmts...)
	}
}

func mustExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// oldDB is the current database: migrated, one source file, closed.
func oldDB(t *testing.T, path string) {
	finopsWith(`INSERT INTO source_files (uri, sha256, format, kind, rows, imported_at) VALUES ('old.csv', 'cd', 'focus', 'billing', 1, 0)`)(t, path)
}
