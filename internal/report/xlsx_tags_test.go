package report

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestTagsJSON: the Tags column's cached JSON is json.Marshal's of the tags
// as they are at each call, over generated sequences of tag maps that are
// shared between lines (as the store shares them), refilled in place
// between lines (as a source reusing its line may do), or new, and more of
// them than the cache holds.
func TestTagsJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(46, 35))
	words := []string{"team", "nlp", "vision", "é", "<b>", "\"q\"", "a&b", "", "project", "env", "prod"}
	fill := func(m map[string]string) {
		clear(m)
		for range 1 + rng.IntN(4) {
			m[words[rng.IntN(len(words))]+fmt.Sprint(rng.IntN(3))] = words[rng.IntN(len(words))]
		}
	}
	var c tagsJSON
	pool := make([]map[string]string, 20)
	for i := range pool {
		pool[i] = map[string]string{}
		fill(pool[i])
	}
	for i := range 3 * tagsCacheMax {
		var m map[string]string
		switch rng.IntN(4) {
		case 0: // a new map
			m = map[string]string{}
			fill(m)
		case 1: // a shared map refilled in place
			m = pool[rng.IntN(len(pool))]
			fill(m)
		default: // a shared map as it was
			m = pool[rng.IntN(len(pool))]
		}
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.of(m)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Fatalf("call %d: %s, want %s", i, got, want)
		}
	}
	if len(c.byMap) > tagsCacheMax {
		t.Errorf("cache holds %d entries, more than %d", len(c.byMap), tagsCacheMax)
	}
}
