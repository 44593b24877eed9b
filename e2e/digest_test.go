package e2e

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/store"
)

// The weekly digest in chat (issue #27): `finops run` on the demo fleet with
// watch.digest on, the team nlp's digest to a Feishu bot and the fleet's to a
// generic JSON receiver, both real HTTP servers on 127.0.0.1.

// chatReceiver records each request's body, answering as the platform
// does; while failing is set it answers 500 with a Retry-After past any
// send's deadline, so the sender gives up at once instead of retrying.
type chatReceiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	ok      [][]byte // bodies answered 2xx
	refused int
	failing bool
}

func newChatReceiver(t *testing.T, reply string) *chatReceiver {
	t.Helper()
	r := &chatReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.failing {
			r.refused++
			w.Header().Set("Retry-After", "3600")
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		r.ok = append(r.ok, b)
		io.WriteString(w, reply)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *chatReceiver) bodies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ok)
}

func (r *chatReceiver) setFailing(f bool) {
	r.mu.Lock()
	r.failing = f
	r.mu.Unlock()
}

// digestEnv is one test's copy of the demo fleet's database and a config
// with the two chat channels.
type digestEnv struct {
	cfg, db, out string
	vars         map[string]string
}

func newDigestEnv(t *testing.T, fixture string, feishu, generic *chatReceiver) *digestEnv {
	t.Helper()
	dir := t.TempDir()
	e := &digestEnv{db: filepath.Join(dir, "finops.db"), out: filepath.Join(dir, "out"),
		vars: map[string]string{"T_FEISHU_URL": feishu.srv.URL + "/open-apis/bot/v2/hook/tok", "T_JSON_URL": generic.srv.URL + "/hook"}}
	for _, suffix := range []string{"", "-wal"} {
		if b, err := os.ReadFile(filepath.Join(fixture, "finops.db"+suffix)); err == nil {
			os.WriteFile(e.db+suffix, b, 0o644)
		} else if suffix == "" {
			t.Fatal(err)
		}
	}
	base, err := os.ReadFile(filepath.Join(fixture, "finops.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	base = regexp.MustCompile(`(?m)^database:.*\n`).ReplaceAll(base, nil)
	cfg := fmt.Sprintf(`
database: %s
out: %s
watch:
  digest: true
  channels:
    - {type: feishu, url_env: T_FEISHU_URL, teams: [nlp]}
    - {type: json, url_env: T_JSON_URL}
`, e.db, e.out)
	e.cfg = filepath.Join(dir, "finops.yaml")
	if err := os.WriteFile(e.cfg, append(base, cfg...), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *digestEnv) run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	m := cli.NewMain(bytes.NewReader(nil), &out, &errb)
	m.Now = func() time.Time { return now }
	m.Getenv = func(k string) string { return e.vars[k] }
	code := m.Run(context.Background(), append([]string{"--config", e.cfg, "run", "--week", "2026-W48"}, args...))
	return code, out.String() + errb.String()
}

// feishuLines is a Feishu "post" message's title and its lines of text.
func feishuLines(t *testing.T, body []byte) (title string, lines []string) {
	t.Helper()
	var m struct {
		MsgType string `json:"msg_type"`
		Content struct {
			Post map[string]struct {
				Title   string
				Content [][]struct{ Tag, Text string }
			}
		}
	}
	if err := json.Unmarshal(body, &m); err != nil || m.MsgType != "post" {
		t.Fatalf("not a Feishu post message (%v): %s", err, body)
	}
	p := m.Content.Post["zh_cn"]
	for _, para := range p.Content {
		for _, el := range para {
			lines = append(lines, el.Text)
		}
	}
	return p.Title, lines
}

// digestSummary is what the digest quotes of the report's JSON summary,
// read from the file with its own types, not analysis.Result.
type digestSummary struct {
	Totals struct {
		Cost           float64 `json:"cost"`
		IdleCost       float64 `json:"idle_cost"`
		PreviousCost   float64 `json:"previous_cost"`
		MonthlySavings float64 `json:"monthly_savings"`
	} `json:"totals"`
	ByTeam     []digestTeam `json:"by_team"`
	ByResource []struct {
		ResourceID string `json:"resource_id"`
		Team       string `json:"team"`
	} `json:"by_resource"`
	Recommendations []struct {
		ID             string  `json:"id"`
		ResourceID     string  `json:"resource_id"`
		Action         string  `json:"action"`
		MonthlySavings float64 `json:"monthly_savings"`
	} `json:"recommendations"`
}

type digestTeam struct {
	Team         string  `json:"team"`
	Cost         float64 `json:"cost"`
	IdleCost     float64 `json:"idle_cost"`
	PreviousCost float64 `json:"previous_cost"`
}

func readDigestSummary(t *testing.T, path string) digestSummary {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s digestSummary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// pct is a share as the digest writes it: one decimal.
func pct(part, whole float64) string { return fmt.Sprintf("%.1f%%", 100*part/whole) }

// actionWords are the recommendation actions as the reports name them.
var actionWords = map[string]string{"switch_to_hourly": "Switch to hourly", "switch_to_monthly": "Switch to monthly",
	"switch_to_spot": "Switch to spot", "stop_when_idle": "Stop when idle", "release": "Release", "keep": "Keep"}

// wantDigestLines are the lines a digest must hold for the JSON summary's
// figures: cost, idle cost and share, and the recommendations of the
// resources in own (nil: all) with savings, largest first, at most 5, each
// with its advice id.
func wantDigestLines(s digestSummary, cost, idle, prev float64, own map[string]bool) []string {
	change := (cost - prev) / prev
	sign := "+"
	if change < 0 {
		sign, change = "-", -change
	}
	lines := []string{
		fmt.Sprintf("Cost: %s (%s%.1f%% vs previous period)", money(cost), sign, 100*change),
		fmt.Sprintf("Idle cost: %s (%s of total cost)", money(idle), pct(idle, cost)),
	}
	type rec struct {
		id, action, adv string
		saves           float64
	}
	var recs []rec
	for _, r := range s.Recommendations {
		if r.MonthlySavings > 0 && (own == nil || own[r.ResourceID]) {
			recs = append(recs, rec{r.ResourceID, r.Action, r.ID, r.MonthlySavings})
		}
	}
	slices.SortStableFunc(recs, func(a, b rec) int {
		return cmp.Or(cmp.Compare(b.saves, a.saves), cmp.Compare(a.id, b.id))
	})
	for i, r := range recs[:min(5, len(recs))] {
		lines = append(lines, fmt.Sprintf("%d. %s: %s, saves %s/month · %s", i+1, actionWords[r.action], r.id, money(r.saves), r.adv))
	}
	return lines
}

func wantLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s lacks the line %q; it reads:\n%s", what, w, strings.Join(got, "\n"))
		}
	}
}

// TestRunChatDigest is the digest suite on one demo fixture.
func TestRunChatDigest(t *testing.T) {
	out := t.TempDir()
	if code, stdout, stderr := runFinops(t, "demo", "--out", out); code != 0 {
		t.Fatalf("demo exit %d\n%s\n%s", code, stdout, stderr)
	}
	fixture := filepath.Join(out, "demo-data")
	t.Run("OncePerChannel", func(t *testing.T) { testDigestOnce(t, fixture) })
	t.Run("RetriedAfter500", func(t *testing.T) { testDigestRetried(t, fixture) })
}

// testDigestOnce: a dry run says what it would send and sends nothing; two
// runs of the same week then give each receiver its digest exactly once,
// with the report JSON's numbers; a dry run then says each channel has it;
// --resend sends it again.
func testDigestOnce(t *testing.T, fixture string) {
	feishu := newChatReceiver(t, `{"code":0,"msg":"success","data":{}}`)
	generic := newChatReceiver(t, "")
	e := newDigestEnv(t, fixture, feishu, generic)
	// A dry run first: it says what it would send and sends nothing.
	code, out := e.run(t, "--dry-run")
	for _, w := range []string{"dry run: would send the 2026-W48 digest of team nlp to feishu#0: \"finops weekly digest 2026-W48 · team nlp\"",
		"dry run: would send the 2026-W48 digest of admins to json#1: \"finops weekly digest 2026-W48\""} {
		if !strings.Contains(out, w) {
			t.Errorf("the dry run does not say %q:\n%s", w, out)
		}
	}
	if code != cli.ExitOK || len(feishu.bodies())+len(generic.bodies()) != 0 {
		t.Fatalf("dry run: exit %d, %d+%d messages sent\n%s", code, len(feishu.bodies()), len(generic.bodies()), out)
	}
	for i := 1; i <= 2; i++ {
		if code, out := e.run(t); code != cli.ExitOK {
			t.Fatalf("run %d: exit %d\n%s", i, code, out)
		}
	}
	fb, gb := feishu.bodies(), generic.bodies()
	if len(fb) != 1 || len(gb) != 1 {
		t.Fatalf("after two runs the Feishu bot got %d digests and the JSON receiver %d; want 1 each", len(fb), len(gb))
	}
	s := readDigestSummary(t, filepath.Join(e.out, "finops-2026-W48.json"))
	checkNLPDigest(t, s, fb[0])
	checkFleetDigest(t, s, gb[0])
	checkDigestLedger(t, e.db)

	code, out = e.run(t, "--dry-run")
	if code != cli.ExitOK || !strings.Contains(out, "dry run: feishu#0 already has the 2026-W48 digest of team nlp") ||
		!strings.Contains(out, "dry run: json#1 already has the 2026-W48 digest of admins") {
		t.Errorf("dry run: exit %d\n%s", code, out)
	}
	if code, out := e.run(t, "--resend"); code != cli.ExitOK {
		t.Fatalf("--resend: exit %d\n%s", code, out)
	}
	if n, m := len(feishu.bodies()), len(generic.bodies()); n != 2 || m != 2 {
		t.Errorf("after --resend the receivers have %d and %d digests, want 2 each (the dry run sends none)", n, m)
	}
}

// checkNLPDigest: the team nlp's digest, on Feishu, holds its by_team row
// and the recommendations of its resources.
func checkNLPDigest(t *testing.T, s digestSummary, body []byte) {
	t.Helper()
	// The team nlp's digest, on Feishu: its by_team row and the
	// recommendations of its resources.
	title, lines := feishuLines(t, body)
	if title != "finops weekly digest 2026-W48 · team nlp" {
		t.Errorf("Feishu title %q", title)
	}
	own := map[string]bool{}
	for _, r := range s.ByResource {
		if r.Team == "nlp" {
			own[r.ResourceID] = true
		}
	}
	ti := slices.IndexFunc(s.ByTeam, func(tc digestTeam) bool { return tc.Team == "nlp" })
	if ti < 0 {
		t.Fatalf("no nlp row in the summary")
	}
	nlp := s.ByTeam[ti]
	wantLines(t, "the nlp digest", lines, wantDigestLines(s, nlp.Cost, nlp.IdleCost, nlp.PreviousCost, own))
	if !slices.Contains(lines, "team nlp") {
		t.Errorf("the nlp digest's facts line is not \"team nlp\": %q", lines)
	}
}

// checkFleetDigest: the fleet's digest, on the JSON receiver, holds the
// totals and every recommendation.
func checkFleetDigest(t *testing.T, s digestSummary, body []byte) {
	t.Helper()

	// The fleet's, on the JSON receiver: the totals and every recommendation.
	var j struct {
		SchemaVersion int `json:"schema_version"`
		Event         string
		Title, Text   string
		Team          string
		Currency      string
	}
	if err := json.Unmarshal(body, &j); err != nil {
		t.Fatal(err)
	}
	if j.SchemaVersion != 1 || j.Event != "digest" || j.Team != "" || j.Currency != "CNY" || j.Title != "finops weekly digest 2026-W48" {
		t.Errorf("JSON digest header %+v", j)
	}
	fleet := strings.Split(j.Text, "\n")
	want := wantDigestLines(s, s.Totals.Cost, s.Totals.IdleCost, s.Totals.PreviousCost, nil)
	want = append(want, "Savings available: "+money(s.Totals.MonthlySavings)+" per month")
	wantLines(t, "the fleet digest", fleet, want)
	if strings.Contains(j.Text, "Data incomplete") {
		t.Errorf("the demo's data is complete, but the digest says otherwise:\n%s", j.Text)
	}

}

// checkDigestLedger: the ledger has one row per scope and channel, sent
// once.
func checkDigestLedger(t *testing.T, db string) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := st.Digests(context.Background(), "2026-W48")
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ds {
		got = append(got, fmt.Sprintf("%s|%s|%s|%d", d.Scope, d.Channel, d.Status, d.Attempts))
	}
	if w := []string{"|json#1|sent|1", "nlp|feishu#0|sent|1"}; !slices.Equal(got, w) {
		t.Errorf("ledger %q, want %q", got, w)
	}
}

// testDigestRetried: the JSON receiver answers 500 to the first run, which
// exits 4 with the chat stage failed; the next run delivers that digest once
// and does not send the Feishu one again.
func testDigestRetried(t *testing.T, fixture string) {
	feishu := newChatReceiver(t, `{"code":0,"msg":"success","data":{}}`)
	generic := newChatReceiver(t, "")
	generic.setFailing(true)
	e := newDigestEnv(t, fixture, feishu, generic)
	code, out := e.run(t)
	if code != cli.ExitPublish || !strings.Contains(out, "HTTP 500") {
		t.Fatalf("run with the JSON receiver failing: exit %d, want %d naming the HTTP 500\n%s", code, cli.ExitPublish, out)
	}
	if strings.Contains(out, "/hook") {
		t.Errorf("the output shows the webhook's path (its token):\n%s", out)
	}
	st, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.Runs(context.Background(), "2026-W48")
	st.Close()
	if err != nil || len(runs) == 0 || runs[len(runs)-1].Chat != store.StageFailed || runs[len(runs)-1].Status != store.RunPublishFailed {
		t.Fatalf("ledger runs %+v (%v): want the last with chat failed, publish_failed", runs, err)
	}
	generic.setFailing(false)
	if code, out := e.run(t); code != cli.ExitOK {
		t.Fatalf("the next run: exit %d\n%s", code, out)
	}
	if n, m := len(feishu.bodies()), len(generic.bodies()); n != 1 || m != 1 {
		t.Errorf("after the retry: Feishu %d digests, JSON %d; want 1 each", n, m)
	}
	if generic.refused == 0 {
		t.Error("the failing receiver was never asked")
	}
}
