package importer

import (
	"testing"

	"github.com/finops-oss/finops/internal/store"
)

// TestStoredBytes: an import is recorded as holding its bytes (an
// incremental pull's "stored", which counts only while the database holds
// them) unless it changed nothing with bytes of its own: a superseded
// delivery, or a file whose charges another file holds. The expectations
// are the rule read off store.ImportResult's fields by hand.
func TestStoredBytes(t *testing.T) {
	// Every charge held by another file with the same charges (store's
	// settleOverlaps: Superseded only when the other was kept).
	overlap := []store.OverlapNote{{Scope: "AWS account 1234, 2026-11", Other: "s3://b/a.csv", Action: store.OverlapSame}}
	for _, tc := range []struct {
		name string
		res  store.ImportResult
		want bool
	}{
		{"new bytes", store.ImportResult{}, true},
		{"new bytes meeting another file's charges", store.ImportResult{Overlaps: overlap}, true},
		{"the same bytes as an earlier import (those are held)", store.ImportResult{Duplicate: true}, true},
		{"a superseded delivery", store.ImportResult{Duplicate: true, Superseded: true}, false},
		{"charges another file holds", store.ImportResult{Duplicate: true, Overlaps: overlap}, false},
	} {
		if got := storedBytes(&tc.res); got != tc.want {
			t.Errorf("%s: storedBytes = %v, want %v", tc.name, got, tc.want)
		}
	}
}
