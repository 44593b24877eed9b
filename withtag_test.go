package finops

import (
	"maps"
	"testing"
)

// TestWithTagLeavesTheSharedMap: WithTag gives the line a new map holding
// its tags and the new one, and leaves the map it had — which other lines
// may share — as it was; a line without tags gets a map of the one tag.
func TestWithTagLeavesTheSharedMap(t *testing.T) {
	shared := map[string]string{"team": "ml", "env": "prod"}
	a, b := &BillingLine{Tags: shared}, &BillingLine{Tags: shared}
	a.WithTag("team", "infra")
	a.WithTag("resource_group", "rg-1")
	if want := map[string]string{"team": "ml", "env": "prod"}; !maps.Equal(shared, want) || !maps.Equal(b.Tags, want) {
		t.Errorf("the shared map became %v", shared)
	}
	if want := map[string]string{"team": "infra", "env": "prod", "resource_group": "rg-1"}; !maps.Equal(a.Tags, want) {
		t.Errorf("a's tags %v, want %v", a.Tags, want)
	}
	var none BillingLine
	none.WithTag("k", "v")
	if !maps.Equal(none.Tags, map[string]string{"k": "v"}) {
		t.Errorf("no tags, then one: %v", none.Tags)
	}
}
