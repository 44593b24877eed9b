package report

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/golden"
)

func TestEmailSubject(t *testing.T) {
	r := handResult(t)
	subject, _, _, err := EmailBody(r, EmailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// 830 / 4500 = 18.4 % idle; 44 of 1,494 GPU-hours unmonitored (≥), and
	// the dcgm source missing (data incomplete).
	if want := "[finops] 2026-W47 · ¥4,500 · idle ≥ ¥830 (18%) · data incomplete"; subject != want {
		t.Errorf("subject = %q, want %q", subject, want)
	}

	// A team name and label from data cannot add a header line.
	r.Period.Label = "2026-W47\r\nBcc: victim@example.com"
	subject, _, _, err = EmailBody(r, EmailOptions{Team: "nlp\nX-Evil: 1\u2028"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(subject, "\r\n\u2028\u2029\x00") {
		t.Errorf("subject carries a line break: %q", subject)
	}
	if want := "[finops] nlp X-Evil: 1 · 2026-W47 Bcc: victim@example.com · ¥4,500 · idle ≥ ¥830 (18%) · data incomplete"; subject != want {
		t.Errorf("subject = %q, want %q", subject, want)
	}
	// A currency without a symbol is spelled as its ASCII code.
	r = handResult(t)
	r.Currency = "chf\r\n"
	if subject, _, _, _ = EmailBody(r, EmailOptions{}); subject != "[finops] 2026-W47 · 4,500 CHF · idle ≥ 830 CHF (18%) · data incomplete" {
		t.Errorf("subject = %q", subject)
	}
}

func TestEmailText(t *testing.T) {
	_, text, _, err := EmailBody(handResult(t), EmailOptions{Attachment: "finops-2026-W47.xlsx",
		ReportURL: "https://reports.example.com/finops/2026-W47.html"})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "email.txt", []byte(text))
	for _, w := range []string{
		"Total cost           ¥4,500.00  +12.5% vs previous period",
		"Top findings",
		"1. [high] Switch to hourly: gpu-a100-1 — ¥4,800.00/mo", // titled by its advice (handResult: switch_to_hourly),
		"Full report: https://reports.example.com/finops/2026-W47.html",
		"The workbook finops-2026-W47.xlsx is attached.",
		"ml-train",
		"Source dcgm is missing",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q", w)
		}
	}
	// Every line from data stays one line: the hostile id has no newline, and
	// no line is a header-like injection.
	for _, line := range strings.Split(text, "\n") {
		if strings.ContainsAny(line, "\r\x1b") {
			t.Errorf("control character in %q", line)
		}
	}
}

// emailMarkupProblems parses the email HTML and lists what mail clients
// strip or block, or what would run: elements other than plain text markup,
// event handler and src attributes, links that are not https.
func emailMarkupProblems(t *testing.T, doc string) []string {
	t.Helper()
	var out []string
	z := html.NewTokenizer(strings.NewReader(doc))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "style", "link", "img", "iframe", "object", "embed", "form", "input", "svg", "base":
				out = append(out, "element "+tok.Data)
			}
			for _, a := range tok.Attr {
				switch {
				case strings.HasPrefix(a.Key, "on"), a.Key == "src", a.Key == "background", a.Key == "class":
					out = append(out, tok.Data+" attribute "+a.Key)
				case a.Key == "href" && !strings.HasPrefix(a.Val, "https://"):
					out = append(out, "href "+a.Val)
				}
			}
		}
	}
}

func TestEmailHTML(t *testing.T) {
	r := handResult(t)
	r.Findings[0].Text = `<img src=x onerror="alert(1)">` + hostileScript
	_, _, page, err := EmailBody(r, EmailOptions{ReportURL: "https://reports.example.com/a?b=1&c=2", Attachment: "finops-2026-W47.xlsx"})
	if err != nil {
		t.Fatal(err)
	}
	if p := emailMarkupProblems(t, page); len(p) > 0 {
		t.Errorf("email HTML has markup mail clients strip, or that would run: %q", p)
	}
	for _, w := range []string{
		// 44 of 1,494 billed GPU-hours unmonitored: idle is a lower bound,
		// and a source is missing.
		"<title>[finops] 2026-W47 · ¥4,500 · idle ≥ ¥830 (18%) · data incomplete</title>",
		// The page's headline opens the email too (idle 830 of 4,500 = 18 %;
		// 1,450 of 1,494 GPU-hours monitored = 97 %).
		"This week cost ¥4,500; at least ¥830 (18%) of it paid for idle GPUs (97% of GPU-hours monitored).",
		"¥4,500.00",
		"Switch to hourly: gpu-a100-1",
		"¥4,800.00/mo",
		`href="https://reports.example.com/a?b=1&amp;c=2"`,
		"finops-2026-W47.xlsx",
		"&lt;img src=x onerror=&#34;alert(1)&#34;&gt;",
		"&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;",
		"=HYPERLINK(&#34;http://x&#34;,&#34;y&#34;)",
		`style="`,
	} {
		if !strings.Contains(page, w) {
			t.Errorf("html lacks %q", w)
		}
	}
}

func TestEmailOptions(t *testing.T) {
	r := handResult(t)
	for _, bad := range []string{"javascript:alert(1)", "file:///etc/passwd", "//evil.example", "https://"} {
		if _, _, _, err := EmailBody(r, EmailOptions{ReportURL: bad}); err == nil {
			t.Errorf("report URL %q accepted", bad)
		}
	}
	// Without URL and attachment, neither is mentioned.
	_, text, page, err := EmailBody(r, EmailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "attached") || strings.Contains(text, "Full report") || strings.Contains(page, "href=") {
		t.Error("link or attachment mentioned without being configured")
	}
	// A team email with the organisation's totals for context.
	slice := r.ForTeam("ml-train")
	org := r.Totals
	subject, text, _, err := EmailBody(slice, EmailOptions{Team: "ml-train", OrgTotals: &org, MaxFindings: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The team's 44 unmonitored GPU-hours make its idle a lower bound; the
	// missing source makes its slice incomplete too.
	if subject != "[finops] ml-train · 2026-W47 · ¥4,160 · idle ≥ ¥750 (18%) · data incomplete" {
		t.Errorf("team subject = %q", subject)
	}
	for _, w := range []string{"team ml-train", "Whole organisation: ¥4,500.00, idle ≥ ¥830.00 (≥ 18.4%)", "… and 2 more"} {
		if !strings.Contains(text, w) {
			t.Errorf("team text lacks %q:\n%s", w, text)
		}
	}
	if strings.Contains(text, hostileScript) || strings.Contains(text, "HYPERLINK") {
		t.Errorf("team email shows another team's rows:\n%s", text)
	}
}

func TestEmailWithoutFindingsListsActions(t *testing.T) {
	r := handResult(t)
	r.Findings = nil
	_, text, _, err := EmailBody(r, EmailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "Top actions") || !strings.Contains(text, "Switch to hourly: gpu-a100-1 — ¥4,800.00/mo") {
		t.Errorf("no actions without findings:\n%s", text)
	}
	if _, _, _, err := EmailBody(&analysis.Result{}, EmailOptions{}); err != nil {
		t.Errorf("empty result: %v", err)
	}
}

// TestEmailSubjectCoverage: the subject never says "idle ¥0" of GPUs
// nobody monitored, marks a lower bound, and says when data is incomplete.
func TestEmailSubjectCoverage(t *testing.T) {
	tests := []struct {
		name                string
		billed, unmonitored float64
		idle                float64
		incomplete          []string
		want                string
	}{
		// 0 of 100 GPU-hours monitored: idle unknown, whatever IdleCost holds.
		{"no telemetry", 100, 100, 0, nil, "[finops] 2026-W47 · ¥4,500 · idle unknown (no telemetry)"},
		// 40 of 100 monitored, telemetry source stopped: ≥ and incomplete.
		{"stopped", 100, 60, 450, []string{"Source dcgm gpu-a is stale"}, "[finops] 2026-W47 · ¥4,500 · idle ≥ ¥450 (10%) · data incomplete"},
		// Every billed GPU-hour monitored: the amount as it is (450 / 4500).
		{"all monitored", 100, 0, 450, nil, "[finops] 2026-W47 · ¥4,500 · idle ¥450 (10%)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := handResult(t)
			r.Totals.GPUHoursBilled, r.Totals.GPUHoursUnmonitored, r.Totals.IdleCost = tt.billed, tt.unmonitored, tt.idle
			r.DataQuality.Incomplete = tt.incomplete
			r.DataQuality.Sources = nil // the reasons are tt.incomplete's alone
			subject, text, _, err := EmailBody(r, EmailOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if subject != tt.want {
				t.Errorf("subject = %q, want %q", subject, tt.want)
			}
			for _, w := range tt.incomplete {
				if !strings.Contains(text, w) {
					t.Errorf("body lacks %q", w)
				}
			}
		})
	}
}
