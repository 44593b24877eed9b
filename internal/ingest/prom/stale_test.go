package prom

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
)

// staleHistory is one GPU whose pod's series ends mid-hour and comes back
// after a gap (issue #25), with no staleness marker, as in a backfilled or
// remote-written TSDB:
//
//   - 10:00:00, 10:00:30, …, 10:17:30: a sample every 30 s, 90 % on the
//     minute and 70 % on the half minute; then nothing;
//   - 10:30:15, 10:30:45, …, 10:39:45: a sample every 30 s off the minute,
//     20 % at :15 and 40 % at :45; then nothing.
func staleHistory(h history) {
	labels := []string{"gpu", "0", "UUID", "GPU-stale-0", "modelName", "NVIDIA H100 80GB HBM3", "Hostname", "node-s",
		"exported_pod", "train-1", "exported_namespace", "ml"}
	h.Family(dcgm.GPUUtil)
	ten := day0.Add(10 * time.Hour)
	for s := 0; s <= 17*60+30; s += 30 {
		v := "90"
		if s%60 == 30 {
			v = "70"
		}
		h.Sample(labels, ten.Add(time.Duration(s)*time.Second), v)
	}
	for s := 30*60 + 15; s <= 39*60+45; s += 30 {
		v := "20"
		if s%60 == 45 {
			v = "40"
		}
		h.Sample(labels, ten.Add(time.Duration(s)*time.Second), v)
	}
}

// checkStale fetches staleHistory's day from url with the default dcgm
// queries at a 60 s step and checks it against what was written, by hand:
//
//   - a point is a minute [t, t+60 s) and holds the mean of its samples:
//     10:00 … 10:17 (18 minutes) at (90 + 70) / 2 = 80, and 10:30 … 10:39
//     (10 minutes) at (20 + 40) / 2 = 30: 28 points;
//   - the first part ends at 10:17, the minute of its last sample 10:17:30,
//     not at 10:22 as Prometheus' 5-minute lookback repeats it (nor at 10:18,
//     where a window ending at the step, (t−60 s, t], puts 10:17:30); the gap
//     10:18 … 10:29 has no point, and nothing follows 10:39;
//   - the pod holds the GPU in two runs, 10:00–10:18 and 10:30–10:40;
//   - the points are a minute apart but for the one 13-minute gap: the
//     sample interval stays 60 s.
func checkStale(t *testing.T, url string) {
	t.Helper()
	q, _ := DefaultQueries(ExporterDCGM)
	c, err := New(Source{Name: "stale", URL: url, Queries: q, TaskLabels: dcgm.DefaultTaskLabels()})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.FetchDay(t.Context(), day0, day0.AddDate(0, 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	sink := &recSink{}
	sum, err := d.Replay(t.Context(), sink)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for m := 0; m < 18; m++ {
		want = append(want, fmt.Sprintf("10:%02d 80", m))
	}
	for m := 30; m < 40; m++ {
		want = append(want, fmt.Sprintf("10:%02d 30", m))
	}
	var got []string
	for _, s := range sink.samples {
		u := "-"
		if s.Util != nil {
			u = fmt.Sprint(*s.Util)
		}
		if s.UUID != "GPU-stale-0" || s.Host != "node-s" {
			t.Errorf("sample of %s on %s", s.UUID, s.Host)
		}
		got = append(got, s.Time.Format("15:04")+" "+u)
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("minutes:\n got %s\nwant %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
	if d.Samples != 28 || sum.SampleInterval != time.Minute {
		t.Errorf("%d samples every %s, want 28 every 1m0s", d.Samples, sum.SampleInterval)
	}
	ten := day0.Add(10 * time.Hour)
	var runs []string
	for _, r := range sink.runs {
		runs = append(runs, fmt.Sprintf("%s/%s %s–%s %v", r.Team, r.Task, r.Start.Format("15:04"), r.End.Format("15:04"), r.GPUs))
		if r.Start.Before(ten) || r.End.After(ten.Add(time.Hour)) {
			t.Errorf("run %+v outside 10:00–11:00", *r)
		}
	}
	if w := "ml/train-1 10:00–10:18 [GPU-stale-0], ml/train-1 10:30–10:40 [GPU-stale-0]"; strings.Join(runs, ", ") != w {
		t.Errorf("runs:\n got %s\nwant %s", strings.Join(runs, ", "), w)
	}
}

// TestFetchDayStaleSeries: a real Prometheus, backfilled by promtool (so no
// staleness marker ends the series), gives no minute after a series' last
// sample and none in the gap before it comes back (issue #25).
func TestFetchDayStaleSeries(t *testing.T) {
	var om promtest.OpenMetrics
	staleHistory(&om)
	checkStale(t, promtest.Start(t, om.Bytes()).URL)
}

// TestFetchDayStaleSeriesVictoriaMetrics: the same history imported into
// VictoriaMetrics gives the same minutes. (Bare selectors there repeat a
// value over a window of max(step, 1.25 × the scrape interval): 10:18 and
// 10:40 would be points.)
func TestFetchDayStaleSeriesVictoriaMetrics(t *testing.T) {
	var ex promtest.Exposition
	staleHistory(&ex)
	checkStale(t, promtest.StartVictoriaMetrics(t, ex.Bytes()).URL)
}

// TestWindowedQueries: each instant vector selector is read over its own
// step, [t, t+step); everything else is sent as written (expected strings by
// hand: a 60 s step is "[1m] offset -59s999ms").
func TestWindowedQueries(t *testing.T) {
	const w = "[1m] offset -59s999ms)"
	for _, tt := range []struct{ in, want string }{
		{"DCGM_FI_DEV_GPU_UTIL", "avg_over_time(DCGM_FI_DEV_GPU_UTIL" + w},
		{"DCGM_FI_PROF_GR_ENGINE_ACTIVE * 100 or DCGM_FI_DEV_GPU_UTIL",
			"avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE" + w + " * 100 or avg_over_time(DCGM_FI_DEV_GPU_UTIL" + w},
		{`nvidia_smi_memory_used_bytes{uuid!="",job=~"a|b"} / 1048576`,
			`avg_over_time(nvidia_smi_memory_used_bytes{uuid!="",job=~"a|b"}` + w + ` / 1048576`},
		// A name-less selector; braces and an "or" inside a string.
		{`{__name__="gpu:util:avg1m", note="x or {y}"}`, `avg_over_time({__name__="gpu:util:avg1m", note="x or {y}"}` + w},
		// Aggregations, label lists, functions, strings and numbers.
		{`max by (UUID, Hostname) (label_replace(u, "pod", "$1", "exported_pod", "(.+)"))`,
			`max by (UUID, Hostname) (label_replace(avg_over_time(u` + w + `, "pod", "$1", "exported_pod", "(.+)"))`},
		{`sum without(instance)(u) > bool 1e-3`, `sum without(instance)(avg_over_time(u` + w + `) > bool 1e-3`},
		{"u * on(UUID) group_left(pod) kube_pod_info",
			"avg_over_time(u" + w + " * on(UUID) group_left(pod) avg_over_time(kube_pod_info" + w},
		{"clamp_max(u, 100) unless absent(u) # comment u", "clamp_max(avg_over_time(u" + w + ", 100) unless absent(avg_over_time(u" + w + ") # comment u"},
		{"topk(5, u) and vector(1) + time()", "topk(5, avg_over_time(u" + w + ") and vector(1) + time()"},
		{"-u + Inf - NaN", "-avg_over_time(u" + w + " + Inf - NaN"},
		// The query's own windows stay: range vectors and subqueries.
		{"avg_over_time(u[5m]) * 100", "avg_over_time(u[5m]) * 100"},
		{"rate(x_total [5m] offset 1h) + max_over_time(u[10m:1m] @ end())", "rate(x_total [5m] offset 1h) + max_over_time(u[10m:1m] @ end())"},
		{"max_over_time((u * 2)[10m:1m])", "max_over_time((avg_over_time(u" + w + " * 2)[10m:1m])"},
		// A selector's own offset is folded in, its @ kept.
		{"u offset 1h", "avg_over_time(u[1m] offset 59m1ms)"},
		{"u offset -2m", "avg_over_time(u[1m] offset -2m59s999ms)"},
		{"u offset 90", "avg_over_time(u[1m] offset 30s1ms)"},
		{"u @ 1763251200 offset 1m", "avg_over_time(u[1m] @ 1763251200 offset 1ms)"},
		{"u{a='b'} @ start()", "avg_over_time(u{a='b'}[1m] @ start() offset -59s999ms)"},
		// MetricsQL's keywords are not selectors.
		{"u default 0 keep_metric_names", "avg_over_time(u" + w + " default 0 keep_metric_names"},
	} {
		got, err := windowed(tt.in, time.Minute)
		if err != nil || got != tt.want {
			t.Errorf("windowed(%q):\n got %q, %v\nwant %q", tt.in, got, err, tt.want)
		}
	}
	if got, _ := windowed("u", 5*time.Second); got != "avg_over_time(u[5s] offset -4s999ms)" {
		t.Errorf("5 s step: %q", got)
	}
	for _, bad := range []string{`u{a="b"`, `u[5m`, `label_replace(u, "a)`, "sum by (a (u)", "u offset", "u offset (1h)",
		"u @", "WITH (x = u) x * 2", "u offset 1e400", "u offset 0x"} {
		if got, err := windowed(bad, time.Minute); err == nil {
			t.Errorf("windowed(%q) = %q, want an error", bad, got)
		}
	}
	if _, err := New(Source{URL: "http://prom:9090", Queries: Queries{Util: "u", Power: "p{"}}); err == nil ||
		!strings.Contains(err.Error(), `query "p{"`) {
		t.Errorf("New with a query that cannot be read: %v", err)
	}
}

// TestWindowedQueriesParse: every rewritten query of TestWindowedQueries
// that the server's language has is accepted by a real Prometheus and a
// real VictoriaMetrics (Check runs it over the last five minutes).
func TestWindowedQueriesParse(t *testing.T) {
	promQL := []string{"DCGM_FI_PROF_GR_ENGINE_ACTIVE * 100 or DCGM_FI_DEV_GPU_UTIL",
		`nvidia_smi_memory_used_bytes{uuid!="",job=~"a|b"} / 1048576`,
		`max by (UUID, Hostname) (label_replace(u, "pod", "$1", "exported_pod", "(.+)"))`,
		`sum without(instance)(u) > bool 1e-3`, "u * on(UUID) group_left(pod) kube_pod_info",
		"clamp_max(u, 100) unless absent(u)", "topk(5, u) and vector(1) + time()", "-u + Inf - NaN",
		"max_over_time((u * 2)[10m:1m])", "u offset 1h", "u offset -2m", "u @ 1763251200 offset 1m", "u{a='b'} @ start()"}
	for _, srv := range []struct {
		name    string
		url     func(*testing.T) string
		queries []string
	}{
		{"prometheus", func(t *testing.T) string { return promtest.Start(t, nil).URL }, promQL},
		{"victoria-metrics", func(t *testing.T) string { return promtest.StartVictoriaMetrics(t, nil).URL },
			append(promQL, "u default 0")},
	} {
		t.Run(srv.name, func(t *testing.T) {
			url := srv.url(t)
			for _, q := range srv.queries {
				c, err := New(Source{URL: url, Queries: Queries{Util: q}})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Check(t.Context(), day0); err != nil {
					t.Errorf("%s: %v", q, err)
				}
			}
			// A query the server cannot parse names the configured query,
			// then the text the server read (its error's position is there):
			// Prometheus' error does not quote it, so finops adds it;
			// VictoriaMetrics' does.
			c, err := New(Source{URL: url, Queries: Queries{Util: "u +"}})
			if err != nil {
				t.Fatal(err)
			}
			const conf, sent = `query "u +": `, `avg_over_time(u[1m] offset -59s999ms) +`
			if _, err := c.Check(t.Context(), day0); err == nil || !strings.Contains(err.Error(), conf) || !strings.Contains(err.Error(), sent) {
				t.Errorf("check: %v", err)
			}
			if _, err := c.FetchDay(t.Context(), day0, day0.AddDate(0, 0, 2)); err == nil ||
				!strings.Contains(err.Error(), conf) || !strings.Contains(err.Error(), sent) {
				t.Errorf("fetch: %v", err)
			}
		})
	}
}

// FuzzWindowed: no query makes the rewrite panic, and what it makes of a
// query it accepts is still whole (strings, braces and brackets closed).
func FuzzWindowed(f *testing.F) {
	for _, q := range []string{"DCGM_FI_PROF_GR_ENGINE_ACTIVE * 100 or DCGM_FI_DEV_GPU_UTIL", `u{a="b\"}"} offset -5m @ 12`,
		"sum by (a) (rate(x[5m:1m] @ end()))", "u @ start() offset 1h", `{__name__=~"a|b"}[5m]`, "0x1F + 1e-3 - .5", "# u\nv",
		"WITH (x = u) x", "u offset", "`raw` 'q'"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		out, err := windowed(q, time.Minute)
		if err != nil {
			return
		}
		if _, err := lexPromQL(out); err != nil {
			t.Fatalf("windowed(%q) = %q, which does not lex: %v", q, out, err)
		}
	})
}
