package ingest

import "strings"

// memo remembers what a cell's text parsed to, for the columns an export
// repeats a handful of values in millions of times (tag sets, units, GPU
// names, descriptions). It is bounded like an interner: a column that turns
// out to be unique stops growing it instead of growing memory.
type memo[V any] map[string]V

// of is what parse makes of k, parsed once per distinct k. A k that parse
// refuses (ok false) is not remembered, so its error is built afresh for
// each row that holds it.
func (m memo[V]) of(k string, parse func(string) (V, bool)) (V, bool) {
	if v, ok := m[k]; ok {
		return v, true
	}
	v, ok := parse(k)
	if ok && len(m) < maxInterned {
		m[strings.Clone(k)] = v // k may be the reader's buffer
	}
	return v, ok
}

// always makes an infallible parse one for memo.of.
func always[V any](f func(string) V) func(string) (V, bool) {
	return func(s string) (V, bool) { return f(s), true }
}
