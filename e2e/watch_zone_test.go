package e2e

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
)

// TestWatchMessageZone: docs/WATCH.md promises the messages' times in the
// report's zone; they were in UTC. The config is in Asia/Shanghai and
// gpu-a idles from 01:00 UTC, which is 09:00 there: the idle alert says
// 09:00 and names the zone, its since (the facts line, the JSON schema's
// since) is 09:00 +08:00, and no time in it is UTC.
func TestWatchMessageZone(t *testing.T) {
	srv := promtest.Start(t, watchOpenMetrics(watchUtil))
	e := newWatchEnv(t, srv.URL, `watch:
  channels:
    - {type: slack, url_env: SLACK_URL}
`)
	got, _ := e.pass(t, watchAt(1, 31), 0)
	if len(got) != 1 {
		t.Fatalf("%d alerts, want gpu-a's: %+v", len(got), got)
	}
	const want = "idle since 2026-11-30 09:00 Asia/Shanghai (UTC+08:00)"
	if !strings.Contains(got[0].Text, want) {
		t.Errorf("the alert says:\n%s\nwant %q", got[0].Text, want)
	}
	if s := got[0].Since.Format("2006-01-02 15:04 -07:00"); s != "2026-11-30 09:00 +08:00" {
		t.Errorf("the alert's since (the facts line, JSON's since) is %s, want 09:00 in Shanghai", s)
	}
	if strings.Contains(got[0].Text, "UTC ") || strings.Contains(got[0].Text, "01:00") {
		t.Errorf("the alert still gives a UTC time:\n%s", got[0].Text)
	}
}
