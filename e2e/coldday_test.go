package e2e

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/store"
)

// TestIngestOldLogStraightToDays: a once-a-minute log of days older than
// utilization.hot_days goes straight into GPU-days (issue #15): the
// compaction after the ingest only folds each GPU's first and last minute,
// and the same log ingested as two files split mid-day gives the same days.
func TestIngestOldLogStraightToDays(t *testing.T) {
	dir := t.TempDir()
	// Eight GPUs, 2026-11-20 and 21: both ended more than three days
	// before the tests' clock (2026-11-30).
	log := filepath.Join(dir, "smi.csv")
	writeSMILog(t, log, smiLog{rows: 8 * 2 * 1440, every: time.Minute, start: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)})

	one := filepath.Join(dir, "one.db")
	code, out, errs := runFinops(t, "-v", "--db", one, "ingest", "--host", "h", log)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	// 8 GPUs × 2 days; the compaction folded 8 × 2 minutes (every minute,
	// 23,040, when the days were written per minute first).
	if c := counts(t, one); c["gpu_days"] != 16 || c["gpu_minutes"] != 0 {
		t.Errorf("counts %v: want 16 GPU-days and no minute left", c)
	}
	if !strings.Contains(errs, "gpu_days=16 minutes=16") {
		t.Errorf("the compaction after the ingest: want 16 days from 16 minutes in the log\n%s", errs)
	}

	// The same lines as two files, split at 2026-11-20 13:37 (line
	// 8 × 817 + 1 of the data), ingested in one command.
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	cut := 1 + 8*817
	a, z := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	if err := os.WriteFile(a, []byte(strings.Join(lines[:cut], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(z, []byte(lines[0]+strings.Join(lines[cut:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	two := filepath.Join(dir, "two.db")
	if code, out, errs := runFinops(t, "--db", two, "ingest", "--host", "h", a, z); code != 0 {
		t.Fatalf("two files: exit %d\n%s%s", code, out, errs)
	}
	if got, want := gpuDays(t, two), gpuDays(t, one); !reflect.DeepEqual(got, want) {
		t.Errorf("two files: gpu_days differ from one file's\n got %.200q\nwant %.200q", got, want)
	}
}

// gpuDays lists a database's GPU-day rows as text, in key order.
func gpuDays(t *testing.T, db string) []string {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.DB().Query(`SELECT g.gpu_key || ' ' || d.day || ' ' || d.minutes || ' ' || hex(d.util) || ' ' ||
		coalesce(d.mem_used_max, '') || ' ' || d.power_sum || ' ' || d.power_n FROM gpu_days d JOIN gpus g ON g.id = d.gpu_id
		ORDER BY g.gpu_key, d.day`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
