package ingest

import (
	"strconv"
	"testing"
)

// TestMemo: a value is parsed once per distinct key, a refused key is not
// remembered, and the memo stops growing at maxInterned keys (written here
// as 4096) while still answering for keys beyond it.
func TestMemo(t *testing.T) {
	calls := 0
	parse := func(s string) (int, bool) {
		calls++
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	m := memo[int]{}
	for _, c := range []struct {
		key   string
		want  int
		ok    bool
		calls int // parse calls so far
	}{
		{"7", 7, true, 1},
		{"7", 7, true, 1}, // remembered
		{"x", 0, false, 2},
		{"x", 0, false, 3}, // a refusal is parsed again
	} {
		got, ok := m.of(c.key, parse)
		if got != c.want || ok != c.ok || calls != c.calls {
			t.Errorf("of(%q) = %d, %v after %d parses; want %d, %v after %d", c.key, got, ok, calls, c.want, c.ok, c.calls)
		}
	}
	for i := range 5000 {
		if got, ok := m.of(strconv.Itoa(i), parse); !ok || got != i {
			t.Fatalf("of(%d) = %d, %v", i, got, ok)
		}
	}
	if len(m) != 4096 {
		t.Errorf("memo holds %d keys, want 4096", len(m))
	}
}
