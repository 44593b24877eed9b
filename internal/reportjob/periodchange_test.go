package reportjob

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/store"
)

// TestPeriodChanges: a run that lost money or charges is named — beyond
// thresholds.max_restatement_drop as a partial source (the report is
// incomplete), within it as a warning; one that only grew is not named;
// an actual-cost run replacing an amortized one is a warning whatever its
// drop (what a cost means changed).
func TestPeriodChanges(t *testing.T) {
	const p = "azure:exports/gpu-costs:2026-01"
	// 14.98 → 2.00: (14.98 − 2.00) / 14.98 = 0.8665.
	big := store.PeriodChange{Period: p, Old: "run-1", New: "run-2", OldTotal: "14.98 USD", NewTotal: "2.00 USD", Drop: 0.8665,
		OnlyOld: 2, OnlyOldCost: "12.98 USD"}
	// 100.00 → 90.00: a tenth.
	small := store.PeriodChange{Period: p, Old: "run-2", New: "run-3", OldTotal: "100.00 USD", NewTotal: "90.00 USD", Drop: 0.1,
		OnlyOld: 1, OnlyOldCost: "10.00 USD"}
	// 100.00 → 120.00, every charge kept.
	grew := store.PeriodChange{Period: p, Old: "run-3", New: "run-4", OldTotal: "100.00 USD", NewTotal: "120.00 USD", Drop: -0.2}
	basis := store.PeriodChange{Period: p, Old: "amortized", New: "actual", OldTotal: "100.00 USD", NewTotal: "50.00 USD", Drop: 0.5}
	for _, tt := range []struct {
		name        string
		change      store.PeriodChange
		maxDrop     float64
		wantWarning bool
		wantPartial bool
	}{
		{"beyond the default", big, 0.2, false, true},
		{"within a looser threshold", big, 0.9, true, false},
		{"a tenth, within the default", small, 0.2, true, false},
		{"a tenth, beyond a stricter threshold", small, 0.05, false, true},
		{"grew", grew, 0.2, false, false},
		{"another cost basis", basis, 0.2, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			warns, partial := periodChanges([]store.PeriodChange{tt.change}, tt.maxDrop)
			if (len(warns) == 1) != tt.wantWarning || (len(partial) == 1) != tt.wantPartial || len(warns)+len(partial) > 1 {
				t.Fatalf("warnings %q, partial %+v", warns, partial)
			}
			text := strings.Join(warns, "")
			if len(partial) == 1 {
				if partial[0].Status != "partial" || partial[0].Kind != "billing" || partial[0].Name != "run "+tt.change.New+" of "+p {
					t.Errorf("status %+v", partial[0])
				}
				text = partial[0].Detail
			}
			if (tt.wantWarning || tt.wantPartial) && !strings.Contains(text, tt.change.String()) {
				t.Errorf("%q does not name the change %q", text, tt.change.String())
			}
		})
	}
}
