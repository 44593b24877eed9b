package termcol

import (
	"strings"
	"testing"
	"text/tabwriter"
)

func TestWidth(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"gpu-a", 5},
		{"训练集群", 8},              // four wide characters
		{"团队A", 5},               // two wide, one narrow
		{"e\u0301", 1},           // e and a combining acute: one column
		{"\x1b[33m告警\x1b[0m", 4}, // colour takes no column
		{"…", 1},                 // ambiguous: narrow, whatever LANG says
	} {
		if got := Width(tc.s); got != tc.want {
			t.Errorf("Width(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"gpu-a", 5, "gpu-a"},
		{"gpu-abc", 5, "gpu-…"},
		{"训练集群训练集群", 8, "训练集…"}, // 3 wide characters (6) + … (1) = 7: a fourth would make 9
		{"训练集群", 8, "训练集群"},
		{"训练集群", 0, "训练集群"},
	} {
		if got := Truncate(tc.s, tc.max); got != tc.want || Width(got) > max(tc.max, Width(tc.s)) {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
}

// TestWriterMatchesTabwriter: on ASCII text, where runes and columns agree,
// the layout is text/tabwriter's (padding 2, blanks), blocks included.
func TestWriterMatchesTabwriter(t *testing.T) {
	const text = "  NAME\tCOST\tIDLE\n  a\t1\t\n  longer name\t12345\tx\n  only one\n  b\tc\n\td\te\tf\n"
	for _, right := range []bool{false, true} {
		var want, got strings.Builder
		flags := uint(0)
		w := NewWriter(&got)
		if right {
			flags = tabwriter.AlignRight
			w = NewRightWriter(&got)
		}
		tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', flags)
		tw.Write([]byte(text))
		tw.Flush()
		w.Write([]byte(text))
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("right=%v:\n%s\nwant (tabwriter):\n%s", right, got.String(), want.String())
		}
	}
}

// TestWriterWide: a column of Chinese names lines up by display width; the
// expected padding is counted by hand (each Han character two columns).
func TestWriterWide(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b)
	w.Write([]byte("训练集群\t100\nab\t7\n团队A\t3\n"))
	w.Flush()
	// Widest cell 训练集群 = 8 columns, plus padding 2: the second column
	// starts at column 10 on every line.
	want := "训练集群  100\n" + "ab        7\n" + "团队A     3\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
