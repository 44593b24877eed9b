package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/capped"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
	"github.com/finops-oss/finops/internal/store"
)

// now is the fixed clock: 2026-11-30 03:00 UTC, three hours into the day.
var now = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

// history is one GPU busy at 95 % every minute from 2026-11-28 00:00 to
// now: two whole days and three hours of the third.
func history() []byte {
	var om promtest.OpenMetrics
	om.Family(dcgm.GPUUtil)
	l := []string{"gpu", "0", "UUID", "GPU-a-0", "modelName", "NVIDIA A100-SXM4-80GB", "Hostname", "gpu-a", "job", "dcgm"}
	for at := now.Add(-51 * time.Hour); at.Before(now); at = at.Add(time.Minute) {
		om.Sample(l, at, "95")
	}
	return om.Bytes()
}

// setup is a config naming the servers at urls (lab, then down) and an
// empty database.
func setup(t *testing.T, urls ...string) (*config.Config, *store.Store) {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	fmt.Fprintf(&b, "database: %s\nutilization:\n  prometheus:\n", filepath.Join(dir, "f.db"))
	for i, u := range urls {
		fmt.Fprintf(&b, "    - url: %s\n      name: %s\n      timeout: 5s\n      retries: 0\n", u, []string{"lab", "down"}[i])
	}
	path := filepath.Join(dir, "finops.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(path, true, capped.ReadRegular)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), c.Database)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return c, st
}

// TestFetch: the days of 2026-11-28 .. now from a real Prometheus, then
// again. The first fetch stores three days (28th, 29th, and the 30th, not
// over, as partial); the second asks only for the 30th again, the two
// whole days being stored. A server nobody listens on fails at its first
// day, the others going on.
func TestFetch(t *testing.T) {
	srv := promtest.Start(t, history())
	c, st := setup(t, srv.URL, "http://127.0.0.1:1")
	from := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		lab      string // lab's Detail
		labDays  int
		lines    []string // in the per-day lines
		notLines []string
	}{
		{"first", "3 days fetched, 0 already stored, 0 empty", 3,
			[]string{"prometheus lab 2026-11-28: ", "prometheus lab 2026-11-29: ", "prometheus lab 2026-11-30: ",
				"(partial: fetched again next time)", "prometheus down 2026-11-28: FAILED: "}, nil},
		{"again", "1 days fetched, 2 already stored, 0 empty", 1,
			[]string{"prometheus lab 2026-11-30: "}, []string{"prometheus lab 2026-11-28: ", "prometheus lab 2026-11-29: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			rs := Fetch(context.Background(), st, Options{Config: c, Servers: c.Telemetry.Prometheus, Getenv: os.Getenv,
				Now: func() time.Time { return now }, PerDay: &out}, from, now)
			if len(rs) != 2 {
				t.Fatalf("%d results, want 2 (lab, down)", len(rs))
			}
			lab, down := rs[0], rs[1]
			if lab.Server != "prometheus lab" || lab.Err != nil || lab.Detail != tc.lab || lab.Days != tc.labDays || lab.Failed != 0 {
				t.Errorf("lab: %+v, want %q, %d days, no error", lab, tc.lab, tc.labDays)
			}
			// Nothing came from it: failed, not partial; one day tried.
			if down.Server != "prometheus down" || down.Err == nil || down.Partial || down.Days != 1 || down.Failed != 1 {
				t.Errorf("down: %+v, want one failed day, not partial", down)
			}
			for _, s := range tc.lines {
				if !strings.Contains(out.String(), s) {
					t.Errorf("no %q in\n%s", s, out.String())
				}
			}
			for _, s := range tc.notLines {
				if strings.Contains(out.String(), s) {
					t.Errorf("%q fetched again:\n%s", s, out.String())
				}
			}
		})
	}
}

// TestFetchSince: the watch's read moves the server's cursor to now; the
// next read starts reread (5 minutes) before it, and a first read at the
// lookback's start.
func TestFetchSince(t *testing.T) {
	srv := promtest.Start(t, history())
	c, st := setup(t, srv.URL)
	ctx := context.Background()
	p := c.Telemetry.Prometheus[0]
	for _, at := range []time.Time{now.Add(-30 * time.Minute), now} {
		if err := FetchSince(ctx, st, c, p, os.Getenv, now.Add(-time.Hour), at); err != nil {
			t.Fatal(err)
		}
		cur, err := st.WatchCursor(ctx, "prometheus://lab")
		if err != nil {
			t.Fatal(err)
		}
		if !cur.Equal(at) {
			t.Errorf("cursor %s, want %s", cur, at)
		}
	}
	// An hour of one GPU's minutes came, 02:00 to 03:00.
	series, err := st.GPUSeries(ctx, now.Add(-time.Hour), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 1 {
		t.Fatalf("%d GPU series stored, want 1", len(series))
	}
}
