package tagjson

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestEncodeIsMarshal: the hand-written encoder writes what encoding/json
// writes for a map[string]string: named hard cases (escapes, HTML
// characters, U+2028, invalid UTF-8, other scripts) and generated maps of
// random bytes.
func TestEncodeIsMarshal(t *testing.T) {
	var c Cache
	cases := []map[string]string{
		{"team": "ml"},
		{"": "empty key", "ключ": "значение", `a"b\c`: "<x>&'y'", "tab\tnew\nline\r": "\b\f\x00\x1f\x7f"},
		{"bad utf8 \xff\xfe": "\xc3\x28", "seps": "\u2028\u2029", "emoji": "🚀", "cjk": "训练机"},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		m := map[string]string{}
		for range r.IntN(5) + 1 {
			k, v := make([]byte, r.IntN(8)), make([]byte, r.IntN(12))
			for i := range k {
				k[i] = byte(r.IntN(256))
			}
			for i := range v {
				v[i] = byte(r.IntN(256))
			}
			m[string(k)] = string(v)
		}
		cases = append(cases, m)
	}
	for _, m := range cases {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.encode(m); got != string(want) {
			t.Errorf("encode(%q)\n got %s\nwant %s", m, got, want)
		}
	}
}

// TestCacheIsMarshal: what Of returns is json.Marshal's of the tags as they
// are at each call, over generated sequences of tag maps that are shared
// between lines (as parsers and the store share them), refilled in place
// between calls (as a source reusing its line may do), or new, and more of
// them than the cache holds.
func TestCacheIsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(46, 35))
	words := []string{"team", "nlp", "vision", "é", "<b>", "\"q\"", "a&b", "", "project", "env", "prod"}
	fill := func(m map[string]string) {
		clear(m)
		for range 1 + rng.IntN(4) {
			m[words[rng.IntN(len(words))]+fmt.Sprint(rng.IntN(3))] = words[rng.IntN(len(words))]
		}
	}
	var c Cache
	pool := make([]map[string]string, 20)
	for i := range pool {
		pool[i] = map[string]string{}
		fill(pool[i])
	}
	hits := 0
	for i := range 3 * cacheMax {
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
		if _, ok := c.byMap[reflectAddr(m)]; ok {
			hits++
		}
		if got := c.Of(m); got != string(want) {
			t.Fatalf("call %d: %s, want %s", i, got, want)
		}
	}
	if len(c.byMap) > cacheMax {
		t.Errorf("cache holds %d entries, more than %d", len(c.byMap), cacheMax)
	}
	if hits < cacheMax {
		t.Errorf("only %d calls found their map cached: the sequence does not exercise the cache", hits)
	}
}

func reflectAddr(m map[string]string) uintptr { return reflect.ValueOf(m).Pointer() }
