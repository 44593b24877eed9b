package config

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
)

// allocationKey matches the commented lines of finops.example.yaml's
// allocation and chargeback example: "# key: value", indented or not.
var allocationKey = regexp.MustCompile(`^(\s*)# ?(\s*(?:report|group_by|chargeback|unallocated|idle):.*)$`)

// TestExampleAllocationUncommented: someone who uncomments the example's
// group_by and chargeback lines where they stand gets a config that loads
// with them, not a second report: section (a duplicate key).
func TestExampleAllocationUncommented(t *testing.T) {
	b, err := os.ReadFile("../../finops.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	n := 0
	for i, l := range lines {
		if m := allocationKey.FindStringSubmatch(l); m != nil {
			lines[i] = m[1] + m[2]
			n++
		}
	}
	if n == 0 {
		t.Fatal("finops.example.yaml has no commented group_by or chargeback lines")
	}
	c, err := Parse("finops.example.yaml", []byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatalf("the example with its allocation lines uncommented: %v", err)
	}
	// The example's own values: group_by [tag:project, account];
	// unallocated proportional, idle even.
	if want := []string{"tag:project", "account"}; !slices.Equal(c.Report.GroupBy, want) {
		t.Errorf("group_by = %q, want %q", c.Report.GroupBy, want)
	}
	if c.Chargeback.Unallocated != analysis.SpreadProportional || c.Chargeback.Idle != analysis.SpreadEven {
		t.Errorf("chargeback = %+v, want proportional and even", c.Chargeback)
	}
	if c.TrendWeeks() != 8 {
		t.Errorf("trend_weeks = %d, want the example's 8 kept", c.TrendWeeks())
	}
}
