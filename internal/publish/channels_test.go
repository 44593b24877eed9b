package publish

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/docanchor"
)

// TestChannelRegistryFacts: every chat channel kind of the table has a
// kind (once), a docs anchor that exists and a body builder whose body is
// JSON for any alert; a kind that signs changes the request when a secret
// is set, and one that does not sends the same request either way (so a
// secret can never leak into an unsigned platform's message). Alerts are
// generated.
func TestChannelRegistryFacts(t *testing.T) {
	anchors, err := docanchor.Anchors(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range channels() {
		if c.kind == "" || seen[c.kind] || c.body == nil {
			t.Fatalf("channel %q: a kind (once) and a body builder are required", c.kind)
		}
		seen[c.kind] = true
		if !anchors[c.doc] {
			t.Errorf("channel %q: docs anchor %q names no heading", c.kind, c.doc)
		}
		if Signs(c.kind) != c.signs {
			t.Errorf("Signs(%q) = %v, the table says %v", c.kind, Signs(c.kind), c.signs)
		}
	}
	if !slices.Equal(WebhookKinds(), func() []string {
		var out []string
		for _, c := range channels() {
			out = append(out, c.kind)
		}
		return out
	}()) {
		t.Errorf("WebhookKinds() = %v is not the table's", WebhookKinds())
	}
	rng := rand.New(rand.NewSource(36))
	words := []string{"idle", "GPU", "空闲", "<b>", "a\"b", "https://x.test/y?z=1", "¥1,234.50", "\\", "@all", "😀"}
	text := func(n int) string {
		var b bytes.Buffer
		for i := 0; i < n; i++ {
			b.WriteString(words[rng.Intn(len(words))] + " ")
		}
		return b.String()
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := 0; i < 200; i++ {
		a := Alert{Event: alertEvents()[rng.Intn(len(alertEvents()))], Title: text(1 + rng.Intn(8)), Text: text(rng.Intn(40)),
			Resource: text(1), Team: text(1), Burnt: "12.50", Currency: "USD", Since: now.Add(-time.Hour)}
		for _, c := range channels() {
			build := func(secret string) (string, error) {
				u, _ := url.Parse("https://bot.example/hook?token=t")
				h := http.Header{}
				body, err := c.body(a, secret, now, u, h)
				return string(body) + "\n" + u.String() + "\n" + h.Get(jsonSignatureHeader), err
			}
			plainReq, err1 := build("")
			signedReq, err2 := build("s3cret")
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: alert %+v: %v / %v", c.kind, a, err1, err2)
			}
			body, _ := c.body(a, "", now, &url.URL{}, http.Header{})
			if !json.Valid(body) {
				t.Fatalf("%s: body is not JSON for alert %+v: %s", c.kind, a, body)
			}
			if (plainReq != signedReq) != c.signs {
				t.Fatalf("%s (signs %v): a secret changed the request: %v", c.kind, c.signs, plainReq != signedReq)
			}
		}
	}
}
