package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/ingest"
)

// TestSeenObjects: what an incremental pull records comes back under its
// URL prefix only (not a sibling prefix that shares its first letters),
// with every field as written; Held is true exactly while the database
// holds the recorded bytes; a record replaces its URL's earlier one, and
// forget removes it.
func TestSeenObjects(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	lm := time.Date(2026, 11, 2, 3, 4, 5, 600, time.UTC)
	imported := shaOf("s3://b/p/a.csv") // the bytes mustImport stores for that URI
	recs := []SeenObject{
		{URL: "s3://b/p/a.csv", Size: 10, ETag: `"e1"`, MD5: "00ff", LastModified: lm, SHA256: imported, Outcome: SeenStored},
		{URL: "s3://b/p/b.csv", Size: 11, ETag: `"e2"`, SHA256: shaOf("never imported"), Outcome: SeenFailed},
		{URL: "s3://b/p/m/Manifest.json", Size: 12, Outcome: SeenLeftOut},
		{URL: "s3://b/p/z\U0010FFFF", Size: 13, SHA256: shaOf("x"), Outcome: SeenUnchanged},
		{URL: "s3://b/p0/other.csv", Size: 14, Outcome: SeenStored},
		{URL: "s3://b/p", Size: 15, Outcome: SeenStored},
	}
	if err := s.RecordSeen(ctx, recs, nil); err != nil {
		t.Fatal(err)
	}
	// Held by hand: nothing imported yet.
	want := slices.Clone(recs[:4])
	check := func(what string) {
		t.Helper()
		got, err := s.SeenUnder(ctx, "s3://b/p/")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, want, func(a, b SeenObject) bool { return a == b }) {
			t.Errorf("%s: SeenUnder = %+v\nwant %+v", what, got, want)
		}
	}
	check("recorded")

	mustImport(t, s, "s3://b/p/a.csv", feed(&ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization}, nil, nil, nil))
	want[0].Held = true
	check("a.csv imported")

	// b.csv imported at last (another version), the manifest gone.
	b := SeenObject{URL: "s3://b/p/b.csv", Size: 12, ETag: `"e3"`, SHA256: imported, Outcome: SeenStored}
	if err := s.RecordSeen(ctx, []SeenObject{b}, []string{"s3://b/p/m/Manifest.json"}); err != nil {
		t.Fatal(err)
	}
	b.Held = true
	want = []SeenObject{want[0], b, want[3]}
	check("replaced and forgotten")

	// An outcome the table does not know is refused, not stored.
	if err := s.RecordSeen(ctx, []SeenObject{{URL: "s3://b/p/c", Outcome: "maybe"}}, nil); err == nil {
		t.Error("an unknown outcome was recorded")
	}
	check("after the refusal")
}
