package ingest

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode"
)

// The text invariant (docs/INGEST.md §Text): no control or invisible
// formatting character from an input reaches an identifier, a team name, or
// any output — ingest refuses it, naming file, line, field and code point.

// unsafeRunes are every rune of the ranges issue 32 names: C0, DEL, C1, the
// line and paragraph separators, the bidi controls, the zero-width
// characters. Written out here from the issue, not from sanitize.
func unsafeRunes() []rune {
	var rs []rune
	for _, rg := range [][2]rune{{0x00, 0x1f}, {0x7f, 0x7f}, {0x80, 0x9f}, {0x2028, 0x2029}, {0x202a, 0x202e},
		{0x2066, 0x2069}, {0x200e, 0x200f}, {0x061c, 0x061c}, {0x200b, 0x200d}, {0x2060, 0x2060}, {0xfeff, 0xfeff}} {
		for r := rg[0]; r <= rg[1]; r++ {
			rs = append(rs, r)
		}
	}
	return rs
}

// randomIDText is an id of the shapes bills and logs carry.
func randomIDText(rng *rand.Rand) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789-_:."
	var b strings.Builder
	b.WriteString("id")
	for k := 1 + rng.Intn(20); k > 0; k-- {
		if rng.Intn(8) == 0 {
			b.WriteRune('训' + rune(rng.Intn(40)))
		} else {
			b.WriteByte(chars[rng.Intn(len(chars))])
		}
	}
	return b.String()
}

// withRune puts r at a random character boundary of id.
func withRune(rng *rand.Rand, id string, r rune) string {
	var at []int
	for i := range id {
		at = append(at, i)
	}
	at = append(at, len(id))
	i := at[rng.Intn(len(at))]
	return id[:i] + string(r) + id[i:]
}

// TestUnsafeTextRefusedGenerated: every rune of the ranges, at a
// random place in a random id, is refused by every reader we drive — a
// FOCUS ResourceId, a FOCUS Tags team, an nvidia-smi uuid, a tasks file's
// Team — naming the file, line 2, the field and the code point. The one
// other outcome allowed: a TAB, LF or CR at an end that the reader trims,
// with the stored value then free of every Cc/Cf/Zl/Zp character (checked
// with unicode.In, not with sanitize).
func TestUnsafeTextRefusedGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(3232))
	type driver struct {
		name, file, column string
		edit               func(v string) string // the cell's text for value v
		stored             func(s *recSink) string
	}
	drivers := []driver{
		{"FOCUS ResourceId", "focus_sample.csv", "ResourceId", func(v string) string { return v },
			func(s *recSink) string { return s.lines[0].ResourceID }},
		{"FOCUS Tags team", "focus_sample.csv", "Tags", func(v string) string {
			b, _ := json.Marshal(map[string]string{"team": v}) // escapes C0 and U+2028 as \u…: the reader decodes them
			return string(b)
		}, func(s *recSink) string { return s.lines[0].Tags["team"] }},
		{"nvidia-smi uuid", "derived_query-gpu_subset.csv", "uuid", func(v string) string { return v },
			func(s *recSink) string { return s.samples[0].UUID }},
		{"tasks Team", "tasks_sample.csv", "Team", func(v string) string { return v },
			func(s *recSink) string { return s.tasks[0].Team }},
	}
	for _, r := range unsafeRunes() {
		for _, d := range drivers {
			v := withRune(rng, randomIDText(rng), r)
			in := firstRow(t, d.file, func(hdr, row []string) ([]string, []string) {
				row[index(t, hdr, d.column)] = d.edit(v)
				return hdr, row
			})
			sum, sink, err := parseString(in, "gen.csv")
			if err == nil && sum.Rows == 1 && (r == '\t' || r == '\n' || r == '\r') {
				got := d.stored(sink)
				for _, c := range got {
					if unicode.In(c, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
						t.Errorf("%s: %q accepted as %q, which holds %U", d.name, v, got, c)
					}
				}
				if strings.TrimSpace(v) == v {
					t.Errorf("%s: %q (%U inside) accepted", d.name, v, r)
				}
				continue
			}
			if err == nil {
				t.Errorf("%s: %q (%U) accepted: %d rows", d.name, v, r, sum.Rows)
				continue
			}
			field := d.column
			want := fmt.Sprintf("U+%04X", r)
			for _, p := range []string{"gen.csv:2", fmt.Sprintf("field %q", field), want} {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("%s with %U: error %q does not name %q", d.name, r, err, p)
				}
			}
		}
	}
}

// TestUnsafeTextNamedCases: the cases of issue 32, each refused naming the
// field and the code point (each was imported on main before this rule).
func TestUnsafeTextNamedCases(t *testing.T) {
	for _, c := range []struct {
		name, column, value, want string
	}{
		{"8-bit CSI in ResourceId", "ResourceId", "gpu-\u009b31m01", "U+009B"},
		{"NEL in ResourceId", "ResourceId", "gpu-01\u0085x", "U+0085"},
		{"line separator in ResourceId", "ResourceId", "gpu\u2028-01", "U+2028"},
		{"RLO in ResourceId", "ResourceId", "gpu-a\u202egnp.exe", "U+202E"},
		{"ZWSP in ResourceId", "ResourceId", "gpu\u200b-01", "U+200B"},
		{"8-bit CSI in a Tags team", "Tags", `{"team": "nlp\u009b2J"}`, "U+009B"},
		{"line separator in a Tags team", "Tags", `{"team": "nl\u2028p"}`, "U+2028"},
		{"ZWJ in a Tags team", "Tags", `{"team": "nl\u200dp"}`, "U+200D"},
		{"BOM inside a Tags key", "Tags", `{"te\ufeffam": "nlp"}`, "U+FEFF"},
		{"TAB inside a ResourceId", "ResourceId", "gpu\t01", "U+0009"},
	} {
		in := firstRow(t, "focus_sample.csv", func(hdr, row []string) ([]string, []string) {
			row[index(t, hdr, c.column)] = c.value
			return hdr, row
		})
		_, _, err := parseString(in, "hostile.csv")
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		wantErrParts(t, err, "hostile.csv:2", fmt.Sprintf("field %q", c.column), c.want)
		for _, ch := range err.Error() {
			if unicode.In(ch, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
				t.Errorf("%s: the error %q holds %U raw", c.name, err, ch)
			}
		}
	}
	// Free text is not an id: a BOM-led header still reads, and a line
	// break stays in a description.
	in := firstRow(t, "focus_sample.csv", func(hdr, row []string) ([]string, []string) {
		hdr[0] = "\ufeff" + hdr[0]
		row[index(t, hdr, "ChargeDescription")] = "two\nlines"
		return hdr, row
	})
	if sum, _, err := parseString(in, "ok.csv"); err != nil || sum.Rows != 1 {
		t.Errorf("a BOM in the header's first name, a line break in a description: %v", err)
	}
}
