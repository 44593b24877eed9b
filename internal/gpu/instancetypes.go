package gpu

import (
	"maps"
	"slices"
)

// InstanceTypes lists the instance types the catalog knows, lower case and
// sorted, each once. docs/SCALE.md's warehouse queries filter GPU lines by
// this list; e2e TestPushdownGPUList generates their IN-list and
// pattern from it, so the queries and the ingest's rule cannot drift apart.
// Alibaba's ecs.gn* types, recognised by pattern (alibabaInstance), are not
// in it.
func (c *Catalog) InstanceTypes() []string {
	if c == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(c.instances))
}
