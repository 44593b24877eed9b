package report

import (
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
)

// TestResourceLabel: pages, emails and the terminal name a cloud resource by
// its short id (and its name when that says more); the workbook and the JSON
// keep the full id (they write ResourceID directly).
func TestResourceLabel(t *testing.T) {
	for _, tt := range []struct {
		id, name, want string
	}{
		{"projects/p/zones/z/instances/trainer-1", "trainer-1", "trainer-1"},
		{"projects/p/zones/z/instances/trainer-1", "", "trainer-1"},
		{"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm-1", "gpu box", "gpu box (vm-1)"},
		{"i-0abc", "训练机", "训练机 (i-0abc)"},
		{"i-0abc", "i-0abc", "i-0abc"},
	} {
		if got := resourceLabel(analysis.ResourceCost{ResourceID: tt.id, ResourceName: tt.name}); got != tt.want {
			t.Errorf("resourceLabel(%q, %q) = %q, want %q", tt.id, tt.name, got, tt.want)
		}
	}
}
