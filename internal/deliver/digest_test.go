package deliver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/store"
)

// Hostile bill text: a team label and resource IDs with markdown, links,
// Slack's and WeCom's mentions and Feishu's <at> tag.
const (
	hostileTeam = "ops_[x](https://evil.example) @all <@U123> <at user_id=\"all\"></at>"
	hostileRes  = "gpu-*bold*_@here <!channel>"
)

// hook is a real chat webhook receiver on 127.0.0.1 that answers as its
// platform does and keeps the bodies.
type hook struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newHook(t *testing.T, reply string) *hook {
	t.Helper()
	h := &hook{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, b)
		h.mu.Unlock()
		io.WriteString(w, reply)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) got(t *testing.T) []byte {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.bodies) != 1 {
		t.Fatalf("%s received %d messages, want 1", h.srv.URL, len(h.bodies))
	}
	return h.bodies[0]
}

// hostileResult is week 48 of one team with a hostile name, its resources
// and recommendations named hostile too; n recommendations, the i-th saving
// 100+i a month.
func hostileResult(n int, id string) *analysis.Result {
	res := week48Result()
	res.ByTeam = []analysis.TeamCost{{Team: hostileTeam, Cost: 700, IdleCost: 175}}
	res.Totals = analysis.Totals{Cost: 700, IdleCost: 175}
	for i := range n {
		rid := fmt.Sprintf("%s-%02d", id, i)
		res.ByResource = append(res.ByResource, analysis.ResourceCost{ResourceID: rid, Team: hostileTeam, Cost: 7})
		res.Recommendations = append(res.Recommendations, analysis.Recommendation{ResourceID: rid,
			Action: analysis.ActionStopWhenIdle, MonthlySavings: float64(100 + i)})
	}
	return res
}

// platforms are the five channel types with the reply each platform gives
// to a message it took.
var platforms = []struct{ kind, reply string }{
	{"feishu", `{"code":0,"msg":"success"}`},
	{"dingtalk", `{"errcode":0,"errmsg":"ok"}`},
	{"wecom", `{"errcode":0,"errmsg":"ok"}`},
	{"slack", "ok"},
	{"json", ""},
}

// chatRun is a delivery of week 48 with watch.digest on and one channel per
// platform, each taking only the hostile team's messages.
func chatRun(t *testing.T) (*Run, map[string]*hook) {
	t.Helper()
	c := &config.Config{Teams: []config.Team{{Name: hostileTeam}}}
	c.Watch.Digest = true
	env := map[string]string{}
	hooks := map[string]*hook{}
	for i, p := range platforms {
		h := newHook(t, p.reply)
		hooks[p.kind] = h
		v := fmt.Sprintf("URL_%d", i)
		env[v] = h.srv.URL + "/hook/secret-token"
		c.Watch.Channels = append(c.Watch.Channels, config.Channel{Type: p.kind, URLEnv: v, Teams: []string{hostileTeam}})
	}
	r, _ := newRun(t, c, Transports{}, Options{})
	r.Getenv = func(k string) string { return env[k] }
	return r, hooks
}

// TestDigestEscapedPerPlatform: the team's digest reaches each platform once,
// its name and the resources' defused and escaped as that platform needs,
// so no markdown, link or mention in them acts.
func TestDigestEscapedPerPlatform(t *testing.T) {
	r, hooks := chatRun(t)
	if err := r.Deliver(context.Background(), hostileResult(2, hostileRes), t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	if r.Result.Stages[store.StageChat] != store.StageOK || len(r.Result.DigestsSent) != len(platforms) {
		t.Fatalf("result %+v", r.Result)
	}
	const wj = "\u2060" // the word joiner publish puts after '@' and '<'
	for _, tc := range []struct {
		kind      string
		want, not []string // substrings of the raw body (JSON-encoded)
	}{
		{"feishu", // text elements are shown as written: only the mentions are defused
			[]string{"ops_[x](https://evil.example) @" + wj + "all <" + wj + "@" + wj + "U123>", "gpu-*bold*_@" + wj + "here <" + wj + "!channel>",
				`"tag":"text"`, "Cost: ¥700.00", "Idle cost: ¥175.00 (25.0% of total cost)"},
			[]string{"@all", "<at", `"tag":"at"`, `"tag":"a"`}},
		{"dingtalk",
			[]string{`ops\\_\\[x\\](https://evil.example) @` + wj + "all", `gpu-\\*bold\\*\\_@` + wj + "here", `"isAtAll":false`},
			// "title" is the notification's plain text: only the markdown "text" is escaped.
			[]string{"@all", "<at", "<@U123", "*bold*", `"text":"**finops weekly digest 2026-W48 · team ops_[`}},
		{"wecom",
			[]string{`ops\\_\\[x\\](https://evil.example) @` + wj + "all", "<" + wj + "@" + wj + "U123>"},
			[]string{"@all", "<@U123", "*bold*", "[x]("}},
		{"slack", // plain_text blocks, &, < and > escaped: no <!channel>, <@U123> or link
			[]string{"&lt;" + wj + "@" + wj + "U123&gt;", "&lt;" + wj + "!channel&gt;", `"mrkdwn":false`, `"type":"plain_text"`},
			[]string{"<@U123", "<!channel", `"type":"mrkdwn"`}},
		{"json", // the receiver decides how to show the text: as written
			[]string{`"team":"ops_[x](https://evil.example) @all <@U123> <at user_id=\"all\"></at>"`, `"event":"digest"`},
			nil},
	} {
		body := string(hooks[tc.kind].got(t))
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the body lacks %q:\n%s", tc.kind, w, body)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(body, n) {
				t.Errorf("%s: the body holds %q:\n%s", tc.kind, n, body)
			}
		}
	}
}

// TestDigestSlackLimit: a digest of many long, escape-heavy resource names
// stays within Slack's limits (header 150 characters, section 3000, text
// 40000), with its cost line and the link kept.
func TestDigestSlackLimit(t *testing.T) {
	r, hooks := chatRun(t)
	// 40 recommendations on resources of 300 characters, each '&' sent as
	// "&amp;": uncut, five lines would be 5 × 1,500 characters.
	long := strings.Repeat("&", 300)
	res := hostileResult(40, long)
	// The view's lines come on top: the team's chargeback and movers of
	// resources named as long (the digest cuts them and lists at most two).
	res.Chargeback = &analysis.Chargeback{UnallocatedRule: analysis.SpreadEven, Total: 700,
		Teams: []analysis.TeamChargeback{{Team: hostileTeam, Direct: 700, ChargedBack: 700}}}
	pct := 0.5
	tr := &analysis.Trend{WeeksAsked: 5, EnoughHistory: true,
		TeamMovers: []analysis.Mover{{Kind: analysis.MoverTeam, Name: hostileTeam, Cost: 700, Mean: 400, BaselineWeeks: 4, Change: 300, ChangePct: &pct}}}
	for i := range 5 {
		tr.Weeks = append(tr.Weeks, analysis.TrendWeek{Label: fmt.Sprintf("2026-W%d", 44+i), Teams: []analysis.TrendTeam{{Team: hostileTeam, Cost: 700}}})
		tr.ResourceMovers = append(tr.ResourceMovers, analysis.Mover{Kind: analysis.MoverResource, Name: fmt.Sprintf("%s-%02d", long, i),
			Team: hostileTeam, Cost: 7, Mean: 1, BaselineWeeks: 1, Change: 6, ChangePct: &pct})
	}
	res.Trend = tr
	if err := r.Deliver(context.Background(), res, t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Text   string
		Blocks []struct {
			Type string
			Text struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal(hooks["slack"].got(t), &msg); err != nil {
		t.Fatal(err)
	}
	if len(msg.Blocks) != 2 {
		t.Fatalf("blocks %+v", msg.Blocks)
	}
	for _, c := range []struct {
		what  string
		text  string
		limit int
	}{{"header", msg.Blocks[0].Text.Text, 150}, {"section", msg.Blocks[1].Text.Text, 3000}, {"text", msg.Text, 40000}} {
		if n := utf8.RuneCountInString(c.text); n > c.limit || n == 0 {
			t.Errorf("%s: %d characters, Slack's limit is %d", c.what, n, c.limit)
		}
	}
	sec := msg.Blocks[1].Text.Text
	for _, w := range []string{"Cost: ¥700.00", "Savings available: ¥", "1. Stop when idle: ", "… and 35 more in the report",
		"Charged back: ¥700.00", "Top movers:", "… and 3 more in the report"} {
		if !strings.Contains(sec, w) {
			t.Errorf("the section lacks %q:\n%s", w, sec)
		}
	}
}

// TestDigestRouting: a channel that lists teams gets those teams' digests,
// one that lists none gets the fleet's, with the report's link under
// link_base_url; an email channel gets none; a channel removed from the
// config abandons its pending digest instead of failing every run.
func TestDigestRouting(t *testing.T) {
	c := &config.Config{Teams: []config.Team{{Name: "数据组"}, {Name: "平台组"}}}
	c.Publish.LinkBaseURL = "https://reports.example.com/finops/"
	c.Watch.Digest = true
	c.Watch.Channels = []config.Channel{
		{Type: "feishu", URLEnv: "A", Teams: []string{"数据组"}},
		{Type: "email"},
		{Type: "json", URLEnv: "B"},
	}
	r, _ := newRun(t, c, Transports{S3: &publish.S3Config{Bucket: "b", Prefix: "weekly"}}, Options{})
	var got []string
	for _, s := range r.chatScopes(week48Result(), "out", []string{"out/finops-2026-W48.json", "out/finops-2026-W48.html"}) {
		got = append(got, fmt.Sprintf("%s→%s %s", scopeName(s.scope), strings.Join(s.channels, ","), s.reportURL))
	}
	// The team's digest links the team's own page (teamPages), the fleet's
	// the whole report.
	want := []string{"team 数据组→feishu#0 https://reports.example.com/finops/weekly/2026-W48/finops-2026-W48-___-0f8c4195.html",
		"admins→json#2 https://reports.example.com/finops/weekly/2026-W48/finops-2026-W48.html"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("scopes %q, want %q", got, want)
	}
	// A lead of the same team is emailed the same link: one page, named once.
	c.Teams[0].Leads = []string{"lead@example.com"}
	r.pages = nil
	mails, err := r.scopes(context.Background(), week48Result(), t.TempDir(), []string{"out/finops-2026-W48.html"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(mails) != 1 || mails[0].reportURL != strings.Fields(want[0])[2] {
		t.Errorf("the lead's email links %+v, want the digest's %s", mails, strings.Fields(want[0])[2])
	}

	ctx := context.Background()
	if _, err := r.Store.QueueDigest(ctx, r.RunID, "2026-W47", "平台组", []string{"slack#3"}, false,
		store.DigestMessage{Title: "t", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	fails := 0
	if st := r.sendDigests(ctx, func(string, ...any) { fails++ }); st != store.StageOK || fails != 0 {
		t.Errorf("stage %s with %d failures, want ok: a removed channel is no failure", st, fails)
	}
	ds, err := r.Store.Digests(ctx, "2026-W47")
	if err != nil || len(ds) != 1 || ds[0].Status != store.DigestAbandoned {
		t.Errorf("digests %+v (%v), want the one abandoned", ds, err)
	}
}

// TestTeamPagesInDirChatFirst: the pages are named once, by whichever
// stage asks first; the chat stage asking first still names them in the out
// folder, so the team's page and workbook are written there and not in the
// working directory.
func TestTeamPagesInDirChatFirst(t *testing.T) {
	c := &config.Config{Teams: []config.Team{{Name: "数据组"}}}
	c.Watch.Digest = true
	c.Watch.Channels = []config.Channel{{Type: "feishu", URLEnv: "A", Teams: []string{"数据组"}}}
	r, _ := newRun(t, c, Transports{}, Options{})
	dir, res := t.TempDir(), week48Result()
	if got := len(r.chatScopes(res, dir, nil)); got != 1 {
		t.Fatalf("%d digests, want the team's one", got)
	}
	if err := r.writeTeamPages(context.Background(), res, dir, nil); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".html", ".xlsx"} {
		// 数据组 is ___ in a file name, and the hash keeps it its own (teamPages).
		matches, err := filepath.Glob(filepath.Join(dir, "finops-2026-W48-___*"+ext))
		if err != nil || len(matches) != 1 {
			t.Errorf("team %s files in the out folder: %q, %v; want one", ext, matches, err)
		}
	}
}
