package sanitize

import (
	"strings"
	"testing"
)

func TestCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ml-train", "ml-train"},
		{`=HYPERLINK("http://x","y")`, `'=HYPERLINK("http://x","y")`},
		{"+1", "'+1"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\tx", "'\tx"},
		{"\rx", "'\rx"},
		{"a=b", "a=b"},
		{"", ""},
		{"'already", "'already"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
	}
	for _, tt := range tests {
		if got := Cell(tt.in); got != tt.want {
			t.Errorf("Cell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := strings.Repeat("x", MaxCellChars+10)
	if n := len([]rune(Cell(long))); n != MaxCellChars {
		t.Errorf("long text has %d characters, want %d", n, MaxCellChars)
	}
}

func TestFileLabel(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2026-W47", "2026-W47"},
		{"2026-10-31_2026-11-30", "2026-10-31_2026-11-30"},
		{"../../etc/passwd", "_.._etc_passwd"},
		{"..", "report"},
		{"", "report"},
		{"周报 W47", "___W47"},
		{`a\b:c`, "a_b_c"},
	}
	for _, tt := range tests {
		if got := FileLabel(tt.in, "report"); got != tt.want {
			t.Errorf("FileLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTerminal(t *testing.T) {
	if got := Terminal("a\x1b[31mb\nc\td", 0); got != "a\uFFFD[31mb\uFFFDc\uFFFDd" {
		t.Errorf("Terminal = %q", got)
	}
	if got := Terminal("abcdefgh", 5); got != "abcd…" {
		t.Errorf("Terminal truncation = %q", got)
	}
	// max is terminal columns: a Han character takes two, so 5 columns
	// hold two of them and "…" (2+2+1), not four.
	if got := Terminal("训练集群", 5); got != "训练…" {
		t.Errorf("Terminal wide truncation = %q, want 训练…", got)
	}
}

func TestTruncate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"abcdef", 6, "abcdef"}, // fits: untouched
		{"abcdefg", 6, "abcde…"},
		{"ééééé", 3, "éé…"}, // characters, not bytes
		{"abc", 0, "abc"},   // no limit
	} {
		if got := Truncate(tt.in, tt.max); got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

// TestFileLabelUnique: team names that FileLabel would merge or that are
// too long get a hash of their own; plain names stay as they are.
func TestFileLabelUnique(t *testing.T) {
	got := map[string]string{}
	for _, team := range []string{"nlp", "ml-train", ".", "..", "视觉", "语音", strings.Repeat("x", 300), strings.Repeat("x", 299)} {
		l := FileLabelUnique(team, "team")
		if prev, ok := got[l]; ok {
			t.Errorf("%q and %q share the file label %q", prev, team, l)
		}
		got[l] = team
		if len(l) > 64 || strings.ContainsAny(l, "/\\") || strings.HasPrefix(l, ".") {
			t.Errorf("FileLabelUnique(%q) = %q: too long or not a plain name", team, l)
		}
	}
	for _, plain := range []string{"nlp", "ml-train", "team_7"} {
		if l := FileLabelUnique(plain, "team"); l != plain {
			t.Errorf("FileLabelUnique(%q) = %q, want it unchanged", plain, l)
		}
	}
}

// TestBidiControlsReplaced: the overrides and isolates that reorder text
// never reach a terminal or a chat message (Terminal, Text).
func TestBidiControlsReplaced(t *testing.T) {
	for _, r := range []rune{0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C} {
		in := "gpu-a" + string(r) + "gnp.exe"
		if got := Text(in); got != "gpu-a\uFFFDgnp.exe" {
			t.Errorf("Text(%q) = %q", in, got)
		}
		if got := Terminal(in, 0); got != "gpu-a\uFFFDgnp.exe" {
			t.Errorf("Terminal(%q) = %q", in, got)
		}
	}
	// Right-to-left text itself is kept: only the invisible controls go.
	if got := Text("مرحبا gpu"); got != "مرحبا gpu" {
		t.Errorf("Text of Arabic = %q", got)
	}
}
