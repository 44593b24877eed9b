package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"
)

// Restore puts the SQLite file at snapshot in place of the database at db,
// after CheckSnapshot: a damaged snapshot, another application's database, a
// schema newer than this finops or one that is not exactly what finops's
// migrations wrote (a trigger, a view, an extra or changed table or index)
// never replaces anything. A snapshot of an older schema is migrated in its
// own file before the swap, so a migration that fails leaves db as it was.
// A database already at db is kept, with its WAL and shared-memory files,
// as <db>.before-restore-<now, UTC>; kept is that name, or "" when there was
// none. snapshot must be on db's file system (Restore renames it), and the
// caller holds the run lock (AcquireRunLock), so no run works on db meanwhile.
func Restore(ctx context.Context, snapshot, db string, now time.Time) (kept string, err error) {
	version, err := CheckSnapshot(ctx, snapshot)
	if err != nil {
		return "", err
	}
	if err := os.Chmod(snapshot, 0o644); err != nil {
		return "", fmt.Errorf("store: restore: %w", err)
	}
	if version < SchemaVersion() {
		if err := migrateSnapshot(ctx, snapshot, version); err != nil {
			return "", err
		}
	}
	if _, err := os.Stat(db); err == nil {
		// One new name for all three: SQLite finds <name>-wal, so the kept
		// copy opens as it was.
		kept = db + ".before-restore-" + now.UTC().Format("20060102T150405Z")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(db+suffix, kept+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("store: restore: %w", err)
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("store: restore: %w", err)
	}
	if err := os.Rename(snapshot, db); err != nil {
		return kept, fmt.Errorf("store: restore: %w", err)
	}
	return kept, nil
}

// migrateSnapshot brings the snapshot of an older schema to this finops's
// schema in its own file, and leaves no WAL beside it (Restore moves the
// file alone).
func migrateSnapshot(ctx context.Context, snapshot string, version int) error {
	st, err := Open(ctx, snapshot)
	if err != nil {
		return fmt.Errorf("snapshot %s: migrating schema version %d to %d: %w: the current database is unchanged", snapshot, version, SchemaVersion(), err)
	}
	if _, err := st.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		st.Close()
		return fmt.Errorf("snapshot %s: checkpoint after migration: %w", snapshot, err)
	}
	if _, err := st.db.ExecContext(ctx, "PRAGMA journal_mode = DELETE"); err != nil {
		st.Close()
		return fmt.Errorf("snapshot %s: after migration: %w", snapshot, err)
	}
	if err := st.Close(); err != nil {
		return fmt.Errorf("snapshot %s: after migration: %w", snapshot, err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if fi, err := os.Stat(snapshot + suffix); err == nil && fi.Size() > 0 && suffix == "-wal" {
			return fmt.Errorf("snapshot %s: its WAL is still there after the migration: the current database is unchanged", snapshot)
		}
		os.Remove(snapshot + suffix)
	}
	return nil
}

// CheckSnapshot checks, before anything is replaced, that the SQLite file at
// path is a database finops wrote and can use: PRAGMA integrity_check passes;
// its application_id is 0 (finops sets none; another application's file
// often has its own); its schema version (PRAGMA user_version) is one this
// finops knows, 1 to SchemaVersion(), never newer; and its schema
// (sqlite_schema: every table, index, view and trigger, with its SQL) is
// exactly what finops's migrations create for that version: no trigger, no
// view, nothing extra, nothing changed. It returns the schema version.
func CheckSnapshot(ctx context.Context, path string) (version int, err error) {
	version, err = checkFile(ctx, path, "integrity_check(20)", "integrity check")
	if err != nil {
		return 0, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+url.Values{"mode": {"ro"}}.Encode())
	if err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	defer db.Close()
	var appID int64
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return 0, fmt.Errorf("snapshot %s: read application_id: %w", path, err)
	}
	if appID != 0 {
		return 0, fmt.Errorf("snapshot %s is not a finops database: its application_id is %#08x (another application's file; finops sets none): restore a snapshot that `finops run` uploaded", path, uint32(appID))
	}
	if version > SchemaVersion() {
		return 0, fmt.Errorf("snapshot %s has schema version %d, newer than this finops (%d): upgrade finops to restore it (--force does not change this: this finops could not use it)", path, version, SchemaVersion())
	}
	if version < 1 {
		return 0, fmt.Errorf("snapshot %s is not a finops database: its schema version (PRAGMA user_version) is %d: restore a snapshot that `finops run` uploaded", path, version)
	}
	got, err := schemaOf(ctx, db)
	if err != nil {
		return 0, fmt.Errorf("snapshot %s: read its schema: %w", path, err)
	}
	want, err := referenceSchema(ctx, version)
	if err != nil {
		return 0, fmt.Errorf("snapshot %s: build finops's schema version %d to compare: %w", path, version, err)
	}
	if diffs := schemaDiff(got, want); len(diffs) > 0 {
		more := ""
		if len(diffs) > 5 {
			more = fmt.Sprintf("; and %d more", len(diffs)-5)
			diffs = diffs[:5]
		}
		return 0, fmt.Errorf("snapshot %s is not the schema finops writes (version %d): %s%s: restore a snapshot that `finops run` uploaded; nothing was replaced",
			path, version, strings.Join(diffs, "; "), more)
	}
	return version, nil
}

// schemaObject is one row of sqlite_schema.
type schemaObject struct{ typ, name, table, sql string }

// schemaOf reads sqlite_schema, keyed by type and name.
func schemaOf(ctx context.Context, db *sql.DB) (map[string]schemaObject, error) {
	rows, err := db.QueryContext(ctx, `SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]schemaObject{}
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.typ, &o.name, &o.table, &o.sql); err != nil {
			return nil, err
		}
		m[o.typ+" "+o.name] = o
	}
	return m, rows.Err()
}

// referenceSchema is the schema of a new, empty database that finops's
// migrations brought to version, built in memory.
func referenceSchema(ctx context.Context, version int) (map[string]schemaObject, error) {
	db, err := sql.Open("sqlite", "file:reference?mode=memory&_pragma=foreign_keys(1)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	for v := 0; v < version; v++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		if err := applyMigration(ctx, tx, v); err != nil {
			tx.Rollback()
			return nil, err
		}
		if err := tx.Commit(); err != nil {
			return nil, err
		}
	}
	return schemaOf(ctx, db)
}

// schemaDiff says how got differs from want, one phrase a difference: what
// finops never creates first (triggers, views, other objects), then what is
// changed, then what is missing.
func schemaDiff(got, want map[string]schemaObject) []string {
	var extra, changed []string
	var missing = map[string][]string{}
	for k, g := range got {
		w, ok := want[k]
		switch {
		case !ok && g.typ == "trigger":
			extra = append(extra, fmt.Sprintf("it has a trigger %q on %s, which finops never creates", g.name, g.table))
		case !ok && g.typ == "view" && hasTable(want, g.name):
			extra = append(extra, fmt.Sprintf("%s is a view, not finops's table", g.name))
		case !ok && g.typ == "view":
			extra = append(extra, fmt.Sprintf("it has a view %q, which finops never creates", g.name))
		case !ok:
			extra = append(extra, fmt.Sprintf("it has a %s %q that finops does not create", g.typ, g.name))
		case g.table != w.table || g.sql != w.sql:
			changed = append(changed, fmt.Sprintf("%s %s is not defined as finops defines it (found %s)", g.typ, g.name, clip(g.sql)))
		}
	}
	for k, w := range want {
		if _, ok := got[k]; !ok && !(w.typ == "table" && hasView(got, w.name)) &&
			!(strings.HasPrefix(w.name, "sqlite_autoindex_") && !hasTable(got, w.table)) {
			missing[w.typ] = append(missing[w.typ], w.name)
		}
	}
	sort.Strings(extra)
	sort.Strings(changed)
	diffs := append(extra, changed...)
	for _, typ := range []string{"table", "index"} {
		names := missing[typ]
		sort.Strings(names)
		if len(names) > 0 {
			diffs = append(diffs, fmt.Sprintf("%s %s missing", typ, strings.Join(names, ", ")))
		}
	}
	return diffs
}

func hasTable(m map[string]schemaObject, name string) bool {
	_, ok := m["table "+name]
	return ok
}

func hasView(m map[string]schemaObject, name string) bool {
	_, ok := m["view "+name]
	return ok
}

// clip shortens SQL quoted in an error to one line of at most 120 bytes.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return fmt.Sprintf("%q", s)
}
