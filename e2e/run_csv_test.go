package e2e

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRunCSVFormat: `formats: [xlsx, html, json, csv]` used to end every
// `finops run` with exit 4, the delivery looking for a finops-<week>.csv
// that is never written: csv is a file per table. Each table's file is now
// recorded, uploaded with its bytes and content type, and the run exits 0.
func TestRunCSVFormat(t *testing.T) {
	s3, mp := startTeamServers(t)
	e := newTeamEnv(t, s3, mp, "xlsx, html, json, csv")
	code, stdout, stderr := e.run(t, "run", "--week", "2026-W48")
	if code != 0 {
		t.Fatalf("run: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	// The report's three files, its five CSV tables (report.csvTables) and
	// the trend's (report.trend_weeks defaults to 8; no chargeback, allocation
	// or energy is configured or measured, so no table of theirs), each
	// team's workbook and page, and the database snapshot.
	const w = "weekly/2026-W48/finops-2026-W48"
	want := []string{w + ".xlsx", w + ".html", w + ".json",
		w + "-by-resource.csv", w + "-by-team.csv", w + "-tasks.csv", w + "-recommendations.csv", w + "-daily.csv",
		w + "-trend.csv",
		w + "-orchid-lab.xlsx", w + "-orchid-lab.html", w + "-walnut-lab.xlsx", w + "-walnut-lab.html", w + ".db.gz"}
	slices.Sort(want)
	if keys := s3.Keys(t, teamBucket, ""); !slices.Equal(keys, want) {
		t.Errorf("bucket keys:\n got %q\nwant %q", keys, want)
	}
	for _, k := range want {
		if !strings.HasSuffix(k, ".csv") {
			continue
		}
		obj := s3.Get(t, teamBucket, k)
		if obj.ContentType != "text/csv; charset=utf-8; header=present" || obj.Metadata["sha256"] != sha(obj.Body) {
			t.Errorf("%s: content type %q, sha256 metadata %q (body %s)", k, obj.ContentType, obj.Metadata["sha256"], sha(obj.Body))
		}
		if local := mustRead(t, filepath.Join(e.out, filepath.Base(k))); !bytes.Equal(local, obj.Body) || len(local) == 0 {
			t.Errorf("%s: %d bytes in the bucket, %d in the out folder", k, len(obj.Body), len(local))
		}
	}
}
