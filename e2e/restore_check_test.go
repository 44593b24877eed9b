package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/publish/publishtest"
	"github.com/finops-oss/finops/internal/store"
)

// TestRestoreRefusesNewerSchema: `finops restore` of a snapshot whose schema
// is newer than this finops (a real versitygw serves it) is refused with and
// without --force, saying to upgrade finops: without a database it creates
// none, and with --force the current database stays byte for byte as it was
// and still opens. Before, the snapshot was put in place and every later
// command failed on it. A snapshot with a trigger is refused the same way;
// a real one (VACUUM INTO of a finops database) still restores.
func TestRestoreRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	s3 := publishtest.StartS3(t, testAccessKey, testSecretKey)
	s3.CreateBucket(t, "finops-restore")
	dir := t.TempDir()
	e := &pubEnv{dir: dir, cfg: filepath.Join(dir, "finops.yaml"), db: filepath.Join(dir, "finops.db"),
		vars: map[string]string{"T_S3_KEY": testAccessKey, "T_S3_SECRET": testSecretKey}}
	cfg := fmt.Sprintf(`database: %s
publish:
  s3:
    bucket: finops-restore
    prefix: weekly
    region: us-east-1
    endpoint: %s
    path_style: true
    access_key_env: T_S3_KEY
    secret_key_env: T_S3_SECRET
    timeout: 5s
`, e.db, s3.URL)
	if err := os.WriteFile(e.cfg, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// The current database: a finops database with one source file.
	st, err := store.Open(ctx, e.db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec(`INSERT INTO source_files (uri, sha256, format, kind, rows, imported_at) VALUES ('old.csv', 'cd', 'focus', 'billing', 1, 0)`); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.db")
	if err := st.Snapshot(ctx, good); err != nil {
		t.Fatal(err)
	}
	st.Close()
	seed := func(period, name string, stmts ...string) {
		t.Helper()
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, mustRead(t, good), 0o644); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		db.Close()
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(mustRead(t, path))
		zw.Close()
		s3.Put(t, "finops-restore", "weekly/"+period+"/finops-"+period+".db.gz", gz.Bytes())
	}
	newer := store.SchemaVersion() + 1
	seed("2026-W47", "newer.db", fmt.Sprintf("PRAGMA user_version = %d", newer), "CREATE TABLE from_the_future (id INTEGER PRIMARY KEY)")
	seed("2026-W46", "trigger.db", `CREATE TRIGGER zero_cost AFTER INSERT ON billing_lines BEGIN UPDATE billing_lines SET billed_cost = '0' WHERE id = NEW.id; END`)
	seed("2026-W48", "good.db")
	from := "s3://finops-restore/weekly"
	wantNewer := fmt.Sprintf("schema version %d, newer than this finops (%d): upgrade finops", newer, store.SchemaVersion())

	// Without --force, onto no database: refused, no database created.
	fresh := filepath.Join(dir, "fresh", "finops.db")
	code, stdout, stderr := e.run(t, "--db", fresh, "restore", "--from", from, "--period", "2026-W47")
	if code == 0 || !strings.Contains(stderr, wantNewer) {
		t.Errorf("restore of a newer schema onto no database: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("a refused restore left a database at %s", fresh)
	}

	before := mustRead(t, e.db)
	for _, tc := range []struct{ period, want string }{
		{"2026-W47", wantNewer},
		{"2026-W46", `zero_cost`},
	} {
		code, stdout, stderr = e.run(t, "restore", "--from", from, "--period", tc.period, "--force")
		if code == 0 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "s3://finops-restore/weekly/"+tc.period) {
			t.Errorf("restore --force of %s: exit %d, want an error with %q\n%s\n%s", tc.period, code, tc.want, stdout, stderr)
		}
		if !bytes.Equal(mustRead(t, e.db), before) {
			t.Errorf("restore --force of %s changed the current database", tc.period)
		}
		if m, _ := filepath.Glob(e.db + ".before-restore-*"); len(m) > 0 {
			t.Errorf("restore --force of %s moved the current database aside: %v", tc.period, m)
		}
	}
	if code, stdout, stderr = e.run(t, "doctor"); strings.Contains(stdout+stderr, "newer than this finops") {
		t.Errorf("after refused restores, doctor: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// A real snapshot still restores.
	code, stdout, stderr = e.run(t, "restore", "--from", from, "--period", "2026-W48", "--force")
	if code != 0 || !strings.Contains(stdout, "1 source files") {
		t.Errorf("restore of a good snapshot: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
