package main

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/store"
	"github.com/shopspring/decimal"
)

func counts(t *testing.T, db string) map[string]int {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// columnSum sums one column of a CSV with encoding/csv and decimals, skipping
// NULL and empty cells: an independent check of what finops stores.
func columnSum(t *testing.T, path, column string) (sum decimal.Decimal, rows, nulls int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range recs[0] {
		if h == column {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("%s has no column %s", path, column)
	}
	for _, r := range recs[1:] {
		if r[col] == "NULL" || r[col] == "" {
			nulls++
			continue
		}
		sum = sum.Add(decimal.RequireFromString(r[col]))
	}
	return sum, len(recs) - 1, nulls
}

func TestIngestFOCUSSample(t *testing.T) {
	sample := filepath.Join(repoRoot(t), "testdata", "ingest", "focus_sample.csv")
	db := filepath.Join(t.TempDir(), "f.db")
	code, stdout, stderr := finops(t, "--db", db, "ingest", sample)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	want, rows, nulls := columnSum(t, sample, "EffectiveCost")

	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var got decimal.Decimal
	var n, nullCells, gpuLines int
	q, err := st.DB().Query(`SELECT effective_cost, instance_type, gpu_count FROM billing_lines`)
	if err != nil {
		t.Fatal(err)
	}
	gpuTypes := map[string]bool{}
	for q.Next() {
		var ec, it *string
		var gpus int
		if err := q.Scan(&ec, &it, &gpus); err != nil {
			t.Fatal(err)
		}
		n++
		if ec == nil {
			nullCells++
		} else {
			got = got.Add(decimal.RequireFromString(*ec))
		}
		if gpus > 0 {
			gpuLines++
			if it != nil {
				gpuTypes[*it] = true
			}
		}
	}
	q.Close()
	if n != rows {
		t.Errorf("stored %d lines, the file has %d rows", n, rows)
	}
	if !got.Equal(want) {
		t.Errorf("Σ EffectiveCost stored = %s, Σ in the file = %s", got, want)
	}
	if nullCells != nulls {
		t.Errorf("null EffectiveCost cells stored = %d, in the file %d (nulls are not zeros)", nullCells, nulls)
	}
	for _, it := range []string{"g5.4xlarge", "g3.4xlarge"} {
		if !gpuTypes[it] {
			t.Errorf("%s rows are not recognised as GPU lines (GPU instance types seen: %v)", it, gpuTypes)
		}
	}
	if !strings.Contains(stdout, "focus, 1000 rows") {
		t.Errorf("ingest output does not describe the file: %q", stdout)
	}

	// The same file again changes nothing and says so.
	before := counts(t, db)
	code, stdout, _ = finops(t, "--db", db, "ingest", sample)
	if code != 0 || !strings.Contains(stdout, "already imported") {
		t.Errorf("re-import: exit %d, output %q", code, stdout)
	}
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("re-import changed the database: %v → %v", before, after)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestBadFileLeavesDatabaseUnchanged: a bad file exits non-zero naming
// file:line and field, and the database keeps exactly the rows it had.
func TestBadFileLeavesDatabaseUnchanged(t *testing.T) {
	root := repoRoot(t)
	db := filepath.Join(t.TempDir(), "f.db")
	if code, out, errOut := finops(t, "--db", db, "ingest", filepath.Join(root, "testdata", "ingest", "autodl_sample.csv")); code != 0 {
		t.Fatalf("good file: exit %d: %s %s", code, out, errOut)
	}
	wrongHeader := filepath.Join(t.TempDir(), "wrong_header.csv")
	if err := os.WriteFile(wrongHeader, []byte("date,amount,what\n2026-11-01,3.50,coffee\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := counts(t, db)
	if before["billing_lines"] == 0 {
		t.Fatal("the good file stored no lines")
	}
	for _, tc := range []struct {
		file string
		want []string
	}{
		{wrongHeader, []string{"wrong_header.csv:1", "unrecognised header"}},
		// Line 3 has "1;50" in BilledCost.
		{"bad_number.csv", []string{"bad_number.csv:3", "BilledCost"}},
		{"bad_date.csv", []string{"bad_date.csv:", "ChargePeriod"}},
		{"not_utf8.csv", []string{"not_utf8.csv:", "UTF-8"}},
		{"empty.csv", []string{"empty.csv", "empty"}},
		{"truncated.csv.gz", []string{"truncated.csv.gz"}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			path := tc.file
			if !filepath.IsAbs(path) {
				path = filepath.Join(root, "testdata", "ingest", "bad", tc.file)
			}
			code, stdout, stderr := finops(t, "--db", db, "ingest", path)
			if code != ExitFailed {
				t.Errorf("exit %d, want %d", code, ExitFailed)
			}
			msg := stdout + stderr
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
			if after := counts(t, db); !equalCounts(before, after) {
				t.Errorf("database changed: %v → %v", before, after)
			}
		})
	}
}

func TestIngestCheckWritesNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	sample := filepath.Join(repoRoot(t), "testdata", "ingest", "autodl_sample.csv")
	code, stdout, _ := finops(t, "--db", db, "ingest", "--check", sample)
	if code != 0 || !strings.Contains(stdout, "OK: rental") {
		t.Fatalf("--check: exit %d, output %q", code, stdout)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("--check created the database")
	}
}
