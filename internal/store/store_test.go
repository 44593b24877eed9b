package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func userVersion(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatalf("PRAGMA user_version: %v", err)
	}
	return v
}

func schemaObjects(t *testing.T, db *sql.DB, typ string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%' ORDER BY name`, typ)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOpenMigrations(t *testing.T) {
	ctx := context.Background()
	// The schema after every migration, sorted by name.
	wantTables := []string{"advice_decisions", "billing_lines", "failed_imports", "gpu_days", "gpu_minutes", "gpu_sources", "gpus", "meta", "period_changes", "rejected_rows", "remote_objects", "replaced_files",
		"run_artifacts", "run_digests", "run_emails", "run_messages", "runs", "source_files", "source_scopes", "source_warnings", "task_runs", "tasks", "teams",
		"watch_actions", "watch_cursors", "watch_events", "watch_messages", "watch_spells"}
	wantIndexes := []string{"advice_decisions_id", "billing_lines_end", "billing_lines_source", "billing_lines_start", "gpu_sources_source", "period_changes_source", "replaced_files_delivery",
		"run_digests_pending", "runs_period", "source_files_period", "source_scopes_scope", "task_runs_start",
		"watch_actions_decided", "watch_events_at", "watch_messages_pending", "watch_messages_sent", "watch_spells_open", "watch_spells_opened"}
	// Migration 14 added power.
	wantDayColumns := []string{"gpu_id", "day", "minutes", "util", "mem_used_max", "power_sum", "power_n", "power"}

	tests := []struct {
		name string
		// prepare runs against the file before the Open under test; nil = no file yet.
		prepare func(t *testing.T, path string)
		wantErr []string // substrings of the error; nil = success
	}{
		{name: "fresh file creates the schema"},
		{
			name: "reopen is idempotent and keeps the data",
			prepare: func(t *testing.T, path string) {
				s, err := Open(ctx, path)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.SyncTeams(ctx, []Team{{Name: "ml"}}); err != nil {
					t.Fatal(err)
				}
				s.Close()
			},
		},
		{
			name: "newer schema is refused",
			prepare: func(t *testing.T, path string) {
				s, err := Open(ctx, path)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.DB().Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion()+1)); err != nil {
					t.Fatal(err)
				}
				s.Close()
			},
			// "…has schema version 2, newer than this finops (1): upgrade finops"
			wantErr: []string{"upgrade finops", fmt.Sprintf("schema version %d", SchemaVersion()+1),
				fmt.Sprintf("(%d)", SchemaVersion())},
		},
		{
			name: "a file that is not a database is refused",
			prepare: func(t *testing.T, path string) {
				if err := os.WriteFile(path, []byte(strings.Repeat("not sqlite\n", 200)), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: []string{"store:"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "finops.db")
			if tt.prepare != nil {
				tt.prepare(t, path)
			}
			s, err := Open(ctx, path)
			if tt.wantErr != nil {
				if err == nil {
					s.Close()
					t.Fatalf("Open succeeded, want error containing %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("Open error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			if s.Path() != path {
				t.Errorf("Path() = %q, want %q", s.Path(), path)
			}
			if v := userVersion(t, s.DB()); v != SchemaVersion() {
				t.Errorf("user_version = %d, want %d", v, SchemaVersion())
			}
			if got := schemaObjects(t, s.DB(), "table"); !slices.Equal(got, wantTables) {
				t.Errorf("tables = %v, want %v", got, wantTables)
			}
			if got := schemaObjects(t, s.DB(), "index"); !slices.Equal(got, wantIndexes) {
				t.Errorf("indexes = %v, want %v", got, wantIndexes)
			}
			if got := tableColumns(t, s.DB(), "gpu_days"); !slices.Equal(got, wantDayColumns) {
				t.Errorf("gpu_days columns = %v, want %v", got, wantDayColumns)
			}
			// Open once more on the same file: nothing to migrate, nothing lost.
			before := counts(t, s)
			s2, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("second Open: %v", err)
			}
			defer s2.Close()
			if v := userVersion(t, s2.DB()); v != SchemaVersion() {
				t.Errorf("after reopen user_version = %d, want %d", v, SchemaVersion())
			}
			assertCounts(t, s2, before)
		})
	}
}

// Two processes opening an unmigrated file at the same time must not both run
// migration 1 (the second would fail with "table already exists").
//
// The file is created in WAL mode first: the switch of a brand-new file from
// the rollback journal to WAL can itself fail with SQLITE_BUSY when several
// connections race on it (SQLite does not call the busy handler there), which
// is not what this test is about.
func TestOpenConcurrentMigration(t *testing.T) {
	ctx := context.Background()
	for round := range 5 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("race%d.db", round))
		raw, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		var mode string
		if err := raw.QueryRow("PRAGMA journal_mode = WAL").Scan(&mode); err != nil || mode != "wal" {
			t.Fatalf("PRAGMA journal_mode = WAL: %q, %v", mode, err)
		}
		raw.Close()
		const n = 4
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				s, err := Open(ctx, path)
				if err == nil {
					s.Close()
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: concurrent Open #%d: %v", round, i, err)
			}
		}
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if v := userVersion(t, s.DB()); v != SchemaVersion() {
			t.Errorf("round %d: user_version = %d, want %d", round, v, SchemaVersion())
		}
		s.Close()
	}
}

// The pragmas are in the DSN, so every pooled connection has them, not only
// the one that ran the migrations.
func TestPragmasOnEveryConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := openTest(t)
	db := s.DB()
	db.SetMaxOpenConns(4)

	// Hold 3 connections at once so they are 3 distinct pooled connections.
	const n = 3
	conns := make([]*sql.Conn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { conns[i], errs[i] = db.Conn(ctx) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Conn #%d: %v", i, errs[i])
		}
		defer conns[i].Close()
	}
	if st := db.Stats(); st.OpenConnections < n {
		t.Fatalf("OpenConnections = %d, want >= %d", st.OpenConnections, n)
	}

	pragmas := []struct {
		pragma string
		want   string
	}{
		{"foreign_keys", "1"},
		{"busy_timeout", "10000"},
		{"journal_mode", "wal"},
		{"synchronous", "1"}, // NORMAL
	}
	for i, c := range conns {
		for _, p := range pragmas {
			var got string
			if err := c.QueryRowContext(ctx, "PRAGMA "+p.pragma).Scan(&got); err != nil {
				t.Fatalf("conn %d: PRAGMA %s: %v", i, p.pragma, err)
			}
			if got != p.want {
				t.Errorf("conn %d: PRAGMA %s = %q, want %q", i, p.pragma, got, p.want)
			}
		}
	}
}

// A database finops creates has 32 KiB pages; one created before (4 KiB, in
// WAL mode) keeps its pages and its rows, and its snapshot is written with
// 32 KiB pages.
func TestPageSize(t *testing.T) {
	ctx := context.Background()
	pageSizeOf := func(t *testing.T, path string) int {
		t.Helper()
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("new", func(t *testing.T) {
		s := openTest(t)
		if got := pageSizeOf(t, s.Path()); got != 32768 {
			t.Errorf("page_size = %d, want 32768", got)
		}
	})

	t.Run("existing", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "old.db")
		old, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"CREATE TABLE kept (v TEXT)", "INSERT INTO kept VALUES ('before')"} {
			if _, err := old.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		old.Close()
		if got := pageSizeOf(t, path); got != 4096 {
			t.Fatalf("the old database has page_size %d, want SQLite's default 4096", got)
		}
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer s.Close()
		var v string
		if err := s.DB().QueryRowContext(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != "before" {
			t.Fatalf("the old row: %q, %v", v, err)
		}
		if got := pageSizeOf(t, path); got != 4096 {
			t.Errorf("after Open: page_size = %d, want 4096 (kept)", got)
		}
		snap := filepath.Join(t.TempDir(), "snap.db")
		if err := s.Snapshot(ctx, snap); err != nil {
			t.Fatal(err)
		}
		if got := pageSizeOf(t, snap); got != 32768 {
			t.Errorf("snapshot: page_size = %d, want 32768", got)
		}
	})
}

// tableColumns lists a table's columns in their order.
func tableColumns(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
