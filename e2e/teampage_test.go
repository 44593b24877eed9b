package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/publish/publishtest"
)

// The team lead's Monday (issue #27): `finops run` writes each team's own
// HTML page beside its workbook, uploads it under the week's prefix, and the
// lead's email links it. The tests run a week of two teams against a real
// versitygw (S3) and mailpit (SMTP), and open the page in headless Chromium.
//
// The week, 2026-W48 [Nov 23, Nov 30) UTC, billed by AutoDL in China time
// (08:00 is 00:00 UTC), two weekly rentals:
//
//	gpu-orchid, team orchid-lab: 2 × A100 × 168 h × ¥2.40 = ¥806.40
//	gpu-walnut, team walnut-lab: 1 × RTX 4090 × 168 h × ¥1.20 = ¥201.60
//
// The names are odd on purpose: none of them occurs in the page's own text
// or its inlined ECharts library, so finding one means the data put it there.
type teamCase struct {
	team, lead, resource, cost string
}

var teamCases = []teamCase{
	{team: "orchid-lab", lead: "orchid-lead@example.com", resource: "gpu-orchid", cost: "806.40"},
	{team: "walnut-lab", lead: "walnut-lead@example.com", resource: "gpu-walnut", cost: "201.60"},
}

const (
	teamBucket = "finops-teams"
	teamSMTPPW = "smtp-PASS-teampage-7e1d"
)

// teamEnv is one two-team week: its folder, config and secrets; the servers
// are nil for a test that needs none (a dry run connects to nothing).
type teamEnv struct {
	dir, cfg, out string
	s3            *publishtest.S3Server
	mp            *publishtest.Mailpit
	vars          map[string]string
}

// newTeamEnv writes the week's bill and a config publishing to s3 and mp
// (a dead address for a nil one), with formats and extra top-level YAML.
func newTeamEnv(t *testing.T, s3 *publishtest.S3Server, mp *publishtest.Mailpit, formats string) *teamEnv {
	t.Helper()
	e := &teamEnv{dir: t.TempDir(), s3: s3, mp: mp,
		vars: map[string]string{"T_S3_KEY": testAccessKey, "T_S3_SECRET": testSecretKey, "T_SMTP_PASS": teamSMTPPW}}
	e.out = filepath.Join(e.dir, "out")
	bills := filepath.Join(e.dir, "bills")
	if err := os.MkdirAll(bills, 0o755); err != nil {
		t.Fatal(err)
	}
	// The same two weekly rentals in each of the 8 weeks W41–W48 (from
	// Monday Oct 5), so that each page's trend has 8 weeks to show.
	bill := "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n"
	for w := 7; w >= 0; w-- {
		from := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC).AddDate(0, 0, -7*w)
		span := from.Format(time.DateTime) + "," + from.AddDate(0, 0, 7).Format(time.DateTime)
		bill += "gpu-orchid,训练机,A100-SXM4-80GB * 2,包周," + span + ",¥806.40,¥806.40\n" +
			"gpu-walnut,推理机,RTX 4090 * 1,包周," + span + ",¥201.60,¥201.60\n"
	}
	if err := os.WriteFile(filepath.Join(bills, "autodl.csv"), []byte(bill), 0o644); err != nil {
		t.Fatal(err)
	}
	s3URL, smtpPort := "http://127.0.0.1:9", 9 // nothing listens on the discard port
	if s3 != nil {
		s3URL = s3.URL
		s3.CreateBucket(t, teamBucket)
	}
	if mp != nil {
		smtpPort = mp.SMTPPort
	}
	cfg := fmt.Sprintf(`database: %[1]s/finops.db
out: %[2]s
timezone: UTC
formats: [%[3]s]
billing:
  - path: %[4]s/*.csv
    mapping: autodl
resources:
  - id: gpu-orchid
    team: orchid-lab
  - id: gpu-walnut
    team: walnut-lab
teams:
  - name: orchid-lab
    leads: [orchid-lead@example.com]
  - name: walnut-lab
    leads: [walnut-lead@example.com]
publish:
  link_base_url: %[5]s/%[6]s
  s3:
    bucket: %[6]s
    prefix: weekly
    region: us-east-1
    endpoint: %[5]s
    path_style: true
    access_key_env: T_S3_KEY
    secret_key_env: T_S3_SECRET
    timeout: 20s
  smtp:
    host: 127.0.0.1
    port: %[7]d
    tls: none
    from: finops@example.com
    user: finops
    password_env: T_SMTP_PASS
    admins: [cto@example.com]
    timeout: 20s
`, e.dir, e.out, formats, bills, s3URL, teamBucket, smtpPort)
	e.cfg = filepath.Join(e.dir, "finops.yaml")
	if err := os.WriteFile(e.cfg, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// startTeamServers starts versitygw and a mailpit that accepts finops with
// teamSMTPPW.
func startTeamServers(t *testing.T) (*publishtest.S3Server, *publishtest.Mailpit) {
	t.Helper()
	s3 := publishtest.StartS3(t, testAccessKey, testSecretKey)
	auth := filepath.Join(t.TempDir(), "smtp-auth")
	if err := os.WriteFile(auth, []byte("finops:"+teamSMTPPW+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return s3, publishtest.StartMailpit(t, "--smtp-auth-file", auth)
}

// run runs finops in-process with the env's variables and the fixed clock.
func (e *teamEnv) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	m := cli.NewMain(bytes.NewReader(nil), &out, &errb)
	m.Now = func() time.Time { return now }
	m.Getenv = func(k string) string { return e.vars[k] }
	m.SendBackoff = []time.Duration{}
	code := m.Run(context.Background(), append([]string{"--config", e.cfg}, args...))
	return code, out.String(), errb.String()
}

// reportLink is the one link under link_base_url in an email's text.
var reportLink = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/` + teamBucket + `/[^\s"'<>)\]]+`)

// TestTeamPageLinked is issue #27's done-when: after `finops run`, each
// lead's email (read back from mailpit) links an object that exists in the
// bucket, is that team's page alone, and renders in headless Chromium
// without errors, its charts drawn.
func TestTeamPageLinked(t *testing.T) {
	s3, mp := startTeamServers(t)
	e := newTeamEnv(t, s3, mp, "xlsx, html, json")
	if code, stdout, stderr := e.run(t, "run", "--week", "2026-W48"); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	inbox := map[string]publishtest.Message{}
	for _, sum := range mp.Messages(t) {
		for _, to := range sum.To {
			inbox[to.Address] = mp.Message(t, sum.ID)
		}
	}
	base := s3.URL + "/" + teamBucket + "/"
	var pages []string
	pageDir := t.TempDir() // the subtests' own go when they end
	for i, tc := range teamCases {
		other := teamCases[1-i]
		t.Run(tc.team, func(t *testing.T) {
			msg, ok := inbox[tc.lead]
			if !ok {
				t.Fatalf("no email to %s; the inbox holds %d", tc.lead, len(inbox))
			}
			links := reportLink.FindAllString(msg.Text, -1)
			if len(links) != 1 {
				t.Fatalf("%s's email holds %d links to the bucket, want 1: %q\n%s", tc.lead, len(links), links, msg.Text)
			}
			link := links[0]
			if !strings.Contains(msg.HTML, link) {
				t.Errorf("the HTML part does not link %s", link)
			}
			u, err := url.Parse(link)
			if err != nil || !strings.HasPrefix(link, base) {
				t.Fatalf("link %q is not under link_base_url %s: %v", link, base, err)
			}
			// versitygw need not serve anonymous GETs: the key, read back
			// from the link, goes through the S3 client.
			key := strings.TrimPrefix(u.Path, "/"+teamBucket+"/")
			if want := "weekly/2026-W48/finops-2026-W48-" + tc.team + ".html"; key != want {
				t.Errorf("key %q, want %q", key, want)
			}
			obj := s3.Get(t, teamBucket, key)
			if obj.ContentType != "text/html; charset=utf-8" {
				t.Errorf("content type %q", obj.ContentType)
			}
			page := string(obj.Body)
			for _, want := range []string{tc.team, tc.resource, tc.cost} {
				if !strings.Contains(page, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
			for _, not := range []string{other.team, other.resource, other.cost} {
				if strings.Contains(page, not) {
					t.Errorf("%s's page shows %q of %s", tc.team, not, other.team)
				}
			}
			file := filepath.Join(pageDir, filepath.Base(key))
			if err := os.WriteFile(file, obj.Body, 0o644); err != nil {
				t.Fatal(err)
			}
			pages = append(pages, file)
		})
	}
	if len(pages) != len(teamCases) {
		return
	}
	for i, p := range renderPages(t, pages...) {
		checkTeamPageDrawn(t, teamCases[i].team, p)
	}
}

// checkTeamPageDrawn: the team's page rendered in Chromium without
// problems, every chart drawn, the daily spend and the 8-week trend (W41
// to W48) among them.
func checkTeamPageDrawn(t *testing.T, team string, p renderedPage) {
	t.Helper()
	if len(p.problems) > 0 {
		t.Errorf("%s's page in Chromium:\n%s", team, strings.Join(p.problems, "\n"))
	}
	if len(p.charts) == 0 {
		t.Errorf("%s's page has no charts", team)
	}
	for id, n := range p.charts {
		if n == 0 {
			t.Errorf("%s's page: chart %s is not drawn", team, id)
		}
	}
	// The daily spend is billed, so drawn whatever the telemetry.
	if p.charts["chart-daily-team"] == 0 {
		t.Errorf("%s's page: the daily spend by team is not drawn: %v", team, p.charts)
	}
	// The team's 8-week trend (issue #27's done-when): drawn, one week
	// per bill week, W41 to W48.
	if p.charts["chart-trend"] == 0 {
		t.Errorf("%s's page: the trend chart is not drawn: %v", team, p.charts)
	}
	want := []string{"2026-W41", "2026-W42", "2026-W43", "2026-W44", "2026-W45", "2026-W46", "2026-W47", "2026-W48"}
	if fmt.Sprint(p.trendWeeks) != fmt.Sprint(want) {
		t.Errorf("%s's page: the trend shows weeks %q, want %q", team, p.trendWeeks, want)
	}
}
