package publish

import (
	"context"
	"math/rand/v2"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile is bill text written to ping everyone, forge links and
// formatting, and drive a terminal.
var hostile = Alert{
	Event:    "idle",
	Title:    "gpu-7 <!channel> @all\n# not a heading",
	Text:     "<@U024BE7LH> <!here> <at user_id=\"all\">所有人</at> @all\n[click](https://evil.example/x) **bold** `code`\n# heading\n> quote\x1b]0;pwned\x07",
	Resource: "gpu-7<font color=\"warning\">",
	Team:     "<@all>",
}

// TestWebhookHostileText: what reaches each platform from hostile bill
// text. Expectations are the neutralised forms written by hand: a word
// joiner (U+2060) after every '@' and '<' (so no mention or tag can form),
// Slack's &lt; &gt; &amp;, backslashes before markdown's markers, no
// control characters.
func TestWebhookHostileText(t *testing.T) {
	tests := []struct {
		kind    string
		text    func(m map[string]any) string // everything the platform shows
		absent  []string
		present []string
	}{
		{KindFeishu, func(m map[string]any) string {
			var b strings.Builder
			post := get(m, "content", "post", "zh_cn")
			b.WriteString(get(post, "title").(string))
			for i := 0; get(post, "content", i) != nil; i++ {
				if get(post, "content", i, 0, "tag") != "text" {
					t.Errorf("paragraph %d is not a text element: %v", i, get(post, "content", i))
				}
				b.WriteString("\n" + get(post, "content", i, 0, "text").(string))
			}
			return b.String()
		}, []string{"@all", "<at", "<@", "<font"}, []string{"<\u2060at user_id", "@\u2060all", "gpu-7 <\u2060!channel> @\u2060all # not a heading"}},
		{KindLark, nil, []string{"@all", "<at"}, nil},
		{KindDingTalk, func(m map[string]any) string {
			return get(m, "markdown", "title").(string) + "\n" + get(m, "markdown", "text").(string)
		},
			[]string{"@all", "<@", "<font", "\n# ", "\n> ", "[click]", "**bold**"},
			[]string{`\[click\](https://evil.example/x)`, `\*\*bold\*\*`, "\\`code\\`", "\n\n\\# heading", "\n\n\\> quote"}},
		{KindWeCom, func(m map[string]any) string { return get(m, "markdown", "content").(string) },
			[]string{"@all", "<@", "<font", "\n# ", "[click]"},
			[]string{`\[click\]`, "<\u2060font color", "\n\\# heading"}},
		{KindSlack, func(m map[string]any) string {
			return m["text"].(string) + "\n" + get(m, "blocks", 0, "text", "text").(string) + "\n" + get(m, "blocks", 1, "text", "text").(string)
		}, []string{"<!", "<@", "<at", "<h", "<f"}, []string{"&lt;\u2060!channel&gt;", "&lt;\u2060@\u2060U024BE7LH&gt;"}},
		{KindJSON, func(m map[string]any) string {
			return m["title"].(string) + "\n" + m["text"].(string) + "\n" + m["team"].(string)
		},
			// Raw for the receiver to escape as its display needs, but
			// without control characters.
			nil, []string{"<!channel>", "<@all>", "[click](https://evil.example/x)"}},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			rc := newReceiver(t, okReply[tt.kind])
			if err := testHook(tt.kind, rc.URL).Send(context.Background(), hostile); err != nil {
				t.Fatal(err)
			}
			body := rc.requests()[0].body
			if strings.ContainsAny(string(body), "\x1b\x07") || strings.Contains(string(body), `\u001b`) || strings.Contains(string(body), `\u0007`) {
				t.Errorf("a control character reached the platform: %s", body)
			}
			shown := string(body)
			if tt.text != nil {
				shown = tt.text(decode(t, body))
			}
			for _, s := range tt.absent {
				if strings.Contains(shown, s) {
					t.Errorf("%q reached the platform:\n%s", s, shown)
				}
			}
			for _, s := range tt.present {
				if !strings.Contains(shown, s) {
					t.Errorf("%q missing from:\n%s", s, shown)
				}
			}
		})
	}
}

// TestWebhookSizeLimits: a huge alert of multi-byte text fits each
// platform's limit, cut on a rune boundary with "…", the facts line whole.
func TestWebhookSizeLimits(t *testing.T) {
	big := testAlert
	big.Title = strings.Repeat("训练", 400)
	big.Text = strings.Repeat("空闲的显卡 idle GPU <&> ", 3000)
	facts := "resource gpu-node-7 · team ml-train"
	tests := []struct {
		kind    string
		measure func(body []byte, m map[string]any) (size, limit int, text string)
	}{
		{KindFeishu, func(b []byte, m map[string]any) (int, int, string) {
			post := get(m, "content", "post", "zh_cn")
			return len(b), 20 << 10, get(post, "content", 0, 0, "text").(string) + "\n" + get(post, "content", 1, 0, "text").(string)
		}},
		{KindDingTalk, func(b []byte, m map[string]any) (int, int, string) {
			s := get(m, "markdown", "text").(string)
			return len(s), 4096, s
		}},
		{KindWeCom, func(b []byte, m map[string]any) (int, int, string) {
			s := get(m, "markdown", "content").(string)
			return len(s), 4096, s // bytes, as WeCom counts
		}},
		{KindSlack, func(b []byte, m map[string]any) (int, int, string) {
			s := get(m, "blocks", 1, "text", "text").(string)
			if h := get(m, "blocks", 0, "text", "text").(string); utf8.RuneCountInString(h) > 150 || !strings.HasSuffix(h, "…") {
				t.Errorf("header of %d characters, want at most 150 ending in …", utf8.RuneCountInString(h))
			}
			return utf8.RuneCountInString(s), 3000, s // characters, as Slack counts
		}},
		{KindJSON, func(b []byte, m map[string]any) (int, int, string) {
			s := m["text"].(string)
			return len(s), 16 << 10, s + "\n" + facts
		}},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			rc := newReceiver(t, okReply[tt.kind])
			if err := testHook(tt.kind, rc.URL).Send(context.Background(), big); err != nil {
				t.Fatal(err)
			}
			body := rc.requests()[0].body
			size, limit, text := tt.measure(body, decode(t, body))
			if size > limit || size < limit*9/10 {
				t.Errorf("size %d, want at most %d and not far below", size, limit)
			}
			if !utf8.ValidString(text) || !strings.Contains(text, "…") {
				t.Errorf("text is not valid UTF-8 or has no … where it was cut")
			}
			if !strings.Contains(text, facts) {
				t.Errorf("the facts line was cut")
			}
		})
	}
}

func TestEscapeMarkdown(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"gpu-node-1.a_b", `gpu-node-1.a\_b`}, // - and . only matter at a line's start
		{"- item", `\- item`},                 // list
		{"  # h", `  \# h`},                   // heading after spaces
		{"a # b > c", "a # b > c"},            // mid-line: nothing to escape
		{"[x](y) *b* `c` ~s~ |t|", "\\[x\\](y) \\*b\\* \\`c\\` \\~s\\~ \\|t\\|"},
		{`back\slash`, `back\\slash`},
		{"训练 *集群*", `训练 \*集群\*`},
	} {
		if got := escapeMarkdown(tt.in); got != tt.want {
			t.Errorf("escapeMarkdown(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFit(t *testing.T) {
	bytesOf := func(s string) int { return len(s) }
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcdef", 5, "ab…"}, // "…" is 3 bytes: 2 letters + … = 5
		{"训练集群", 9, "训练…"},   // 3 bytes a character, 3 for …: 6+3; never half of one
		{"训练集群", 12, "训练集群"}, // exactly fits
		{"训练集群", 2, ""},      // not even "…" fits
	} {
		if got := fit(tt.in, tt.max, bytesOf); got != tt.want {
			t.Errorf("fit(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

// TestWebhookPayloadProperties builds messages from random mixes of hostile
// fragments, long runs and multi-byte text (a fixed seed, so a failure
// repeats) and checks what must hold for every one: valid JSON of valid
// UTF-8, within the platform's limit, no control character, no mention or
// tag left whole.
func TestWebhookPayloadProperties(t *testing.T) {
	fragments := []string{"@all", "@here", "<!channel>", "<@U024BE7LH>", `<at user_id="all">`, "<font color=\"warning\">",
		"[x](https://evil.example)", "**", "`", "# ", "\n> ", "\n- ", "\\", "&", "训练集群", "é", "🙂", "\x1b[2J", "\x00", "\r\n",
		"\xff\xfe", " ", "\n", "gpu-node-7", strings.Repeat("a", 500), strings.Repeat("空", 700)}
	rng := rand.New(rand.NewPCG(17, 2026))
	mix := func() string {
		var b strings.Builder
		for n := rng.IntN(40); n > 0; n-- {
			b.WriteString(fragments[rng.IntN(len(fragments))])
		}
		return b.String()
	}
	limits := map[string]func(m map[string]any, body []byte) (int, int){
		KindFeishu:   func(m map[string]any, b []byte) (int, int) { return len(b), 20 << 10 },
		KindLark:     func(m map[string]any, b []byte) (int, int) { return len(b), 20 << 10 },
		KindDingTalk: func(m map[string]any, b []byte) (int, int) { return len(get(m, "markdown", "text").(string)), 4096 },
		KindWeCom:    func(m map[string]any, b []byte) (int, int) { return len(get(m, "markdown", "content").(string)), 4096 },
		KindSlack: func(m map[string]any, b []byte) (int, int) {
			return utf8.RuneCountInString(get(m, "blocks", 1, "text", "text").(string)), 3000
		},
		KindJSON: func(m map[string]any, b []byte) (int, int) { return len(m["text"].(string)), 16 << 10 },
	}
	mention := regexp.MustCompile(`@(all|here)|<[!@]|<at |<font`)
	for i := 0; i < 200; i++ {
		a := Alert{Event: "idle", Title: mix(), Text: mix(), Resource: mix(), Team: mix(), Burnt: "1.5", Currency: "USD"}
		for _, kind := range WebhookKinds() {
			w := Webhook{Kind: kind, URL: "https://example.com/hook", Secret: map[bool]string{true: "s"}[Signs(kind)]}
			u, _ := url.Parse(w.URL)
			body, _, err := w.payload(a, signedAt, u)
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			if !utf8.Valid(body) {
				t.Fatalf("%s: body is not UTF-8 for %+q", kind, a)
			}
			m := decode(t, body)
			if size, limit := limits[kind](m, body); size > limit {
				t.Errorf("%s: %d over the limit %d for %+q", kind, size, limit, a)
			}
			shown := string(body)
			if strings.Contains(shown, `\u001b`) || strings.Contains(shown, `\u0000`) {
				t.Errorf("%s: a control character reached the platform: %s", kind, body)
			}
			if kind != KindJSON && mention.MatchString(shown) {
				t.Errorf("%s: %q left whole in %s", kind, mention.FindString(shown), body)
			}
		}
	}
}
