package report

import (
	"encoding/json"
	"maps"
	"reflect"
)

// tagsJSON is the Billing lines sheet's Tags column: a line's tags as JSON
// (keys sorted), made once per tag set rather than once per line. A week's
// lines come ordered by charge start, so consecutive lines are of different
// resources and rarely share tags, but the store shares one map among the
// lines with the same tags (store.lineCache): the cache is keyed by the
// map's identity, and an entry is used only while its copy of the tags is
// still equal to the map (a source may reuse and refill one map), so the
// JSON is always json.Marshal's of the tags as they are (TestTagsJSON).
type tagsJSON struct {
	byMap map[uintptr]tagsEntry
}

type tagsEntry struct {
	tags map[string]string // a copy, to check the map against
	json string
}

// tagsCacheMax bounds the cache: past it, it starts again.
const tagsCacheMax = 4096

// of returns tags' JSON; tags is not empty.
func (c *tagsJSON) of(tags map[string]string) (string, error) {
	key := reflect.ValueOf(tags).Pointer()
	if e, ok := c.byMap[key]; ok && maps.Equal(e.tags, tags) {
		return e.json, nil
	}
	js, err := json.Marshal(tags)
	if err != nil {
		return "", err
	}
	if c.byMap == nil || len(c.byMap) >= tagsCacheMax {
		c.byMap = map[uintptr]tagsEntry{}
	}
	c.byMap[key] = tagsEntry{tags: maps.Clone(tags), json: string(js)}
	return string(js), nil
}
