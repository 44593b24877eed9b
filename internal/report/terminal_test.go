package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

func summary(t *testing.T, color bool) string {
	t.Helper()
	r := handResult(t)
	// A bill label carrying a terminal escape (clear screen) and a newline.
	r.ByResource[2].ResourceID = "gpu-h100-2\x1b[2J\nrm"
	var buf bytes.Buffer
	if err := WriteSummary(&buf, r, Meta{}, color); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func TestWriteSummaryPlain(t *testing.T) {
	out := summary(t, false)
	if strings.Contains(out, "\x1b") {
		t.Fatalf("plain summary contains escape sequences:\n%q", out)
	}
	wants := []string{
		"finops 2026-W47 · 2026-11-16 – 2026-11-22 (Asia/Shanghai)",
		"Total cost           ¥4,500.00",
		"Idle cost            ≥ ¥830.00  ≥ 18.4% of total, 340.0 h", // 44 of 1,494 GPU-hours unmonitored
		"Savings available    ¥5,040.00  per month",
		"RESOURCE",
		"Switch to hourly",
	}
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("summary lacks %q:\n%s", w, out)
		}
	}
	// Top resources by cost: 3360, 500, 200.
	a := strings.Index(out, "gpu-a100-1 ")
	b := strings.Index(out, "gpu-h100-2")
	c := strings.Index(out, "</script>")
	if a < 0 || b < 0 || c < 0 || !(a < b && b < c) {
		t.Errorf("resources not ordered by cost:\n%s", out)
	}
	// Top actions: only the two with savings; keep is not an action.
	actions := out[strings.Index(out, "Top actions"):]
	if strings.Count(actions, "0/mo") != 2 || strings.Contains(actions, "Keep") {
		t.Errorf("top actions wrong:\n%s", actions)
	}
	if strings.Index(actions, "¥4,800.00") > strings.Index(actions, "¥240.00") {
		t.Errorf("top actions not ordered by savings:\n%s", actions)
	}
	// Top findings: not the rent-mode changes (those are the actions), in
	// analysis' order, coloured by severity only on a terminal.
	findings := out[strings.Index(out, "Top findings"):strings.Index(out, "Top actions")]
	for _, w := range []string{"Allocated but idle", "¥600.00", "Forgotten instance", "¥80.00", "Over budget forecast"} {
		if !strings.Contains(findings, w) {
			t.Errorf("findings lack %q:\n%s", w, findings)
		}
	}
	if strings.Contains(findings, "Switch to hourly") {
		t.Errorf("findings repeat the actions:\n%s", findings)
	}
	// The control characters from the label are replaced, not passed through.
	if !strings.Contains(out, "gpu-h100-2\uFFFD[2J\uFFFDrm") {
		t.Errorf("control characters not neutralised:\n%q", out)
	}
}

func TestWriteSummaryColorKeepsAlignment(t *testing.T) {
	plain := summary(t, false)
	colored := summary(t, true)
	if !strings.Contains(colored, "\x1b[") {
		t.Fatal("no colour in coloured summary")
	}
	if got := ansi.ReplaceAllString(colored, ""); got != plain {
		t.Errorf("coloured summary without escapes differs from the plain one:\n%s\n---\n%s", got, plain)
	}
}

func TestWriteSummaryTeamTitle(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSummary(&buf, handResult(t).ForTeam("ml-train"), Meta{Team: "ml-train\x1b[2J"}, false); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "finops 2026-W47 · team ml-train\uFFFD[2J · 2026-11-16") {
		t.Errorf("title:\n%s", out)
	}
	if strings.Contains(out, "</script>") {
		t.Errorf("another team's resource in the team summary:\n%s", out)
	}
}

// TestWriteSummaryWideNames: resources named in Chinese line up with the
// others (issue #16 item 9). Widths are measured here independently of
// termcol: one column a rune, two for a Han character. Every line of the
// table ends with the right-aligned UTIL column, so all have one width, and
// the GPU column starts at one column on every line.
func TestWriteSummaryWideNames(t *testing.T) {
	width := func(s string) int {
		n := 0
		for _, r := range s {
			n++
			if unicode.Is(unicode.Han, r) {
				n++
			}
		}
		return n
	}
	for _, color := range []bool{false, true} {
		r := handResult(t)
		r.ByResource[0].ResourceID = "训练集群-甲"
		r.ByResource[2].ResourceID = strings.Repeat("推理服务节点", 4) // 48 columns: cut to 32
		var buf bytes.Buffer
		if err := WriteSummary(&buf, r, Meta{}, color); err != nil {
			t.Fatal(err)
		}
		out := ansi.ReplaceAllString(buf.String(), "")
		table := out[strings.Index(out, "Top resources by cost"):strings.Index(out, "Top findings")]
		lines := strings.Split(strings.TrimSpace(table), "\n")[1:] // header and three rows
		if len(lines) != 4 {
			t.Fatalf("color=%v: table:\n%s", color, table)
		}
		starts := map[int]bool{}
		widths := map[int]bool{}
		for i, l := range lines {
			gpu := []string{"GPU", "8× A100-80GB", "2× H100", "L40S"}[i]
			at := strings.Index(l, gpu)
			if at < 0 {
				t.Fatalf("color=%v: line %q lacks %q", color, l, gpu)
			}
			starts[width(l[:at])] = true
			widths[width(l)] = true
		}
		if len(starts) != 1 || len(widths) != 1 {
			t.Errorf("color=%v: columns misaligned (GPU starts at %v, lines %v columns wide):\n%s", color, starts, widths, table)
		}
		// 15 Han characters (30 columns) and "…": the cut stays within 32.
		if !strings.Contains(table, "  推理服务节点推理服务节点推理服…  ") {
			t.Errorf("color=%v: long name not cut to 32 columns:\n%s", color, table)
		}
	}
}

// TestWrapWide: the plain-text email wraps by display columns. By hand:
// "训练 训练 训练" is three words of 4 columns; at width 10 two fit on a
// line (4+1+4 = 9), a third would make 14.
func TestWrapWide(t *testing.T) {
	if got, want := wrap("训练 训练 训练", 10, "", ""), "训练 训练\n训练"; got != want {
		t.Errorf("wrap = %q, want %q", got, want)
	}
	if got, want := wrap("ab cd ef", 5, "", ""), "ab cd\nef"; got != want {
		t.Errorf("wrap = %q, want %q", got, want)
	}
}
