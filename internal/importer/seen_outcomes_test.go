package importer

import (
	"testing"

	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
)

// TestSeenOutcomesAgree: source may not import store (the layers table),
// so each keeps its own names for what became of a seen object, and this
// adapter passes them through as strings; the two sets must be the same
// words, or a record would fail remote_objects' CHECK at run time.
func TestSeenOutcomesAgree(t *testing.T) {
	pairs := map[source.Outcome]string{
		source.Stored:    store.SeenStored,
		source.Unchanged: store.SeenUnchanged,
		source.Failed:    store.SeenFailed,
		source.LeftOut:   store.SeenLeftOut,
	}
	seen := map[string]bool{}
	for o, s := range pairs {
		if string(o) != s {
			t.Errorf("source outcome %q is stored as %q: the two names must be the same word", o, s)
		}
		if seen[s] {
			t.Errorf("store outcome %q names two source outcomes", s)
		}
		seen[s] = true
	}
}
