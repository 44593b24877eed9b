package pass

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/store"
)

// TestRunLocks: a pass does nothing while another pass holds the pass lock
// or a run holds the run lock (BusyError, the CLI's exit 5); with the locks
// free, a pass over a fleet with no sources and no bills finds nothing to
// decide, and says so once.
func TestRunLocks(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		held     func(db string) string // the lock file held, "" for none
		job      string
		wantBusy string // "" for no error
	}{
		{"free", func(string) string { return "" }, "", ""},
		{"another pass", func(db string) string { return store.RealPath(db) + ".watch" }, LockJob, "another watch pass is still running"},
		{"a weekly run", func(db string) string { return db }, "run 2026-W48", "run 2026-W48"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "finops.db")
			cfg := filepath.Join(dir, "finops.yaml")
			if err := os.WriteFile(cfg, []byte("database: "+db+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := config.Load(cfg, true, capped.ReadRegular)
			if err != nil {
				t.Fatal(err)
			}
			st, err := store.Open(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if path := tc.held(db); path != "" {
				lock, err := store.AcquireRunLock(path, tc.job, at)
				if err != nil {
					t.Fatal(err)
				}
				defer lock.Release()
			}
			var decided []Outcome
			res, err := Run(ctx, Options{Config: c, Store: st, Now: func() time.Time { return at }, Getenv: func(string) string { return "" },
				Out: io.Discard, Decided: func(o Outcome) { decided = append(decided, o) }})
			var busy BusyError
			switch {
			case tc.wantBusy == "" && err != nil:
				t.Fatalf("Run: %v", err)
			case tc.wantBusy != "" && (!errors.As(err, &busy) || !strings.Contains(err.Error(), tc.wantBusy)):
				t.Fatalf("Run: %v, want a BusyError naming %q", err, tc.wantBusy)
			}
			wantDecided := 1
			if tc.wantBusy != "" {
				wantDecided = 0 // refused before anything was read
			}
			if res != (Outcome{}) || len(decided) != wantDecided {
				t.Errorf("outcome %+v, told %d times; want nothing found, told %d times", res, len(decided), wantDecided)
			}
		})
	}
}
