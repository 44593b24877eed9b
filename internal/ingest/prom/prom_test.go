package prom

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
)

var day0 = time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)

type recSink struct {
	samples []*finops.GPUSample
	runs    []*finops.TaskRun
}

func (s *recSink) Billing(*finops.BillingLine) error { return nil }
func (s *recSink) Sample(x *finops.GPUSample) error  { s.samples = append(s.samples, x); return nil }
func (s *recSink) TaskRun(r *finops.TaskRun) error   { s.runs = append(s.runs, r); return nil }

// Against a real Prometheus: one day of dcgm-exporter history backfilled with
// promtool, read back through the default dcgm queries. GPU 0 reports only
// DCGM_FI_DEV_GPU_UTIL with the old Hostname label; GPU 1 reports both
// GPU_UTIL and PROF_GR_ENGINE_ACTIVE (which wins) with the new hostname
// label and Kubernetes labels that Prometheus renamed to exported_*.
func TestFetchDayRealPrometheus(t *testing.T) {
	srv := promtest.Start(t, realPromHistory())

	q, _ := DefaultQueries(ExporterDCGM)
	c, err := New(Source{Name: "test", URL: srv.URL, Queries: q, TaskLabels: dcgm.DefaultTaskLabels()})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.FetchDay(t.Context(), day0.Add(5*time.Hour), day0.Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !d.Complete || d.URI != "prometheus://test/2026-11-16" || len(d.Warnings) != 0 {
		t.Fatalf("day %+v", d)
	}
	checkFineStep(t, srv.URL, q)
	checkDCGMDay(t, d)
	checkSMIExporterDay(t, srv.URL)
	// The same day again is the same data: the same sha256.
	d2, err := c.FetchDay(t.Context(), day0, day0.Add(48*time.Hour))
	if err != nil || d2.SHA256 != d.SHA256 {
		t.Errorf("refetch: %v, sha %s vs %s", err, d2.SHA256, d.SHA256)
	}
	// A day that is not over is partial, up to now.
	d3, err := c.FetchDay(t.Context(), day0, day0.Add(6*time.Hour+30*time.Second))
	if err != nil || d3.Complete || d3.URI != "prometheus://test/2026-11-16#partial" || d3.Samples != 2*360 {
		t.Errorf("today: %v, %+v", err, d3)
	}

	// Down: the real server stopped. Retries, then a FetchError; no data.
	srv.Stop()
	c2, _ := New(Source{Name: "test", URL: srv.URL, Queries: q, Retries: 1, Backoff: time.Millisecond})
	_, err = c2.FetchDay(t.Context(), day0, day0.Add(48*time.Hour))
	var fe *FetchError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "2026-11-16") {
		t.Errorf("down: %v", err)
	}
}

// realPromHistory is the day of exporter history the real server is
// backfilled with (see TestFetchDayRealPrometheus).
func realPromHistory() []byte {
	var om promtest.OpenMetrics
	g0 := []string{"gpu", "0", "UUID", "GPU-a0", "modelName", "NVIDIA A100-SXM4-80GB", "Hostname", "gpu-a"}
	g1 := []string{"gpu", "1", "UUID", "GPU-a1", "modelName", "NVIDIA A100-SXM4-80GB", "hostname", "gpu-a",
		"exported_pod", "train-7", "exported_namespace", "nlp", "exported_container", "trainer"}
	om.Family(dcgm.GPUUtil)
	for m := 0; m < 1440; m++ {
		v := "80"
		if m < 60 {
			v = "3"
		}
		if m >= 600 && m < 620 {
			v = "NaN" // the exporter had no value: missing, never zero
		}
		om.Sample(g0, day0.Add(time.Duration(m)*time.Minute), v)
	}
	for m := 0; m < 1440; m++ {
		om.Sample(g1, day0.Add(time.Duration(m)*time.Minute), "99")
	}
	om.Family(dcgm.GREngineActive)
	for m := 120; m < 720; m++ { // the pod ran 02:00–12:00
		om.Sample(g1, day0.Add(time.Duration(m)*time.Minute), "0.25")
	}
	om.Family(dcgm.FBUsed)
	for m := 0; m < 1440; m++ {
		om.Sample(g0, day0.Add(time.Duration(m)*time.Minute), "1024")
	}
	om.Family(dcgm.PowerUsage)
	for m := 0; m < 1440; m++ {
		om.Sample(g0, day0.Add(time.Duration(m)*time.Minute), "68.244000")
	}
	// utkuozdemir's nvidia_gpu_exporter on host gpu-b: uuid without "GPU-",
	// no host label (Prometheus' instance names it), bytes and ratios.
	gb := []string{"uuid", "6d5c0f2e-0000-0000-0000-00000000abcd", "instance", "gpu-b:9835", "job", "nvidia_gpu_exporter"}
	for _, f := range []struct{ name, v string }{{"nvidia_smi_utilization_gpu_ratio", "0.42"},
		{"nvidia_smi_memory_used_bytes", "2147483648"}, {"nvidia_smi_memory_total_bytes", "48305799168"},
		{"nvidia_smi_power_draw_watts", "110.23"}} {
		om.Family(f.name)
		for m := 0; m < 60; m++ {
			om.Sample(gb, day0.Add(time.Duration(m)*time.Minute), f.v)
		}
	}
	return om.Bytes()
}

// checkFineStep reads the day at a 5 s step (see its comments).
func checkFineStep(t *testing.T, url string, q Queries) {
	t.Helper()
	// A 5 s step over a day is 17,281 points a series: the real server
	// refuses more than 11,000 in one query, so this only succeeds because
	// the client splits the day into chunks.
	fine, err := New(Source{Name: "fine", URL: url, Queries: q, Step: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	fd, err := fine.FetchDay(t.Context(), day0.Add(5*time.Hour), day0.Add(48*time.Hour))
	if err != nil {
		t.Fatalf("5 s step over a day: %v", err)
	}
	// Each 5 s step holds only its own samples, [t, t+5 s): of a minute's
	// twelve steps only the one on the minute has GPU-a0's and GPU-a1's
	// sample, so 2 × 1,440 points (GPU-a0's NaN minutes keep memory and
	// power), twelve steps apart: each stands for a minute, as before when
	// the lookback repeated it over all twelve.
	fsum, err := fd.Replay(t.Context(), &recSink{})
	if err != nil || fd.Samples != 2*1440 || fsum.SampleInterval != time.Minute {
		t.Fatalf("5 s step over a day: %v, %d samples every %s, want 2880 every 1m0s", err, fd.Samples, fsum.SampleInterval)
	}
}

// checkDCGMDay replays the day read with the dcgm queries and checks each
// GPU's minutes, the task run, and that no nvidia_gpu_exporter series was
// read.
func checkDCGMDay(t *testing.T, d *Day) {
	t.Helper()
	sink := &recSink{}
	sum, err := d.Replay(t.Context(), sink)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Format != Format || sum.SampleInterval != time.Minute || !sum.PeriodStart.Equal(day0) {
		t.Errorf("summary %+v", sum)
	}
	per := map[string][]*finops.GPUSample{}
	for _, s := range sink.samples {
		per[s.UUID] = append(per[s.UUID], s)
	}
	checkDCGMMinutes(t, per["GPU-a0"], per["GPU-a1"])
	// The pod's labels are on both of GPU-a1's series (GPU_UTIL all day,
	// PROF 02:00–12:00), and only on the utilization query that won at each
	// step: the pod held GPU-a1 the whole day.
	if len(sink.runs) != 1 {
		t.Fatalf("runs %+v", sink.runs)
	}
	r := sink.runs[0]
	if r.Task != "train-7" || r.Team != "nlp" || r.Kind != "trainer" || r.Resource != "gpu-a" ||
		len(r.GPUs) != 1 || r.GPUs[0] != "GPU-a1" || !r.Start.Equal(day0) || !r.End.Equal(day0.Add(24*time.Hour)) {
		t.Errorf("run %+v", *r)
	}

	if g := per["GPU-6d5c0f2e-0000-0000-0000-00000000abcd"]; len(g) != 0 {
		t.Errorf("the dcgm queries read nvidia_gpu_exporter series: %+v", *g[0])
	}
}

// checkDCGMMinutes checks GPU-a0's and GPU-a1's minutes (see
// TestFetchDayRealPrometheus).
func checkDCGMMinutes(t *testing.T, a0, a1 []*finops.GPUSample) {
	t.Helper()
	if len(a0) != 1440 || len(a1) != 1440 {
		t.Fatalf("GPU-a0 %d samples, GPU-a1 %d; want 1440 each", len(a0), len(a1))
	}
	for m, s := range a0 {
		want := 80.0
		if m < 60 {
			want = 3
		}
		nan := m >= 600 && m < 620
		if !s.Time.Equal(day0.Add(time.Duration(m)*time.Minute)) || s.Host != "gpu-a" || s.Index != 0 || s.Model != "A100-80GB" ||
			nan != (s.Util == nil) || !nan && *s.Util != want || *s.MemUsed != 1024 || *s.PowerWatt != 68.244 {
			t.Fatalf("GPU-a0 minute %d: %+v", m, *s)
		}
	}
	for m, s := range a1 {
		want := 99.0
		// PROF 0.25 × 100 wins over GPU_UTIL 99 while it is there: from its
		// first sample at 02:00 (minute 120) to its last at 11:59 (minute
		// 719). Not five minutes past it (Prometheus' lookback repeats the
		// last value until 12:04 when, as here, no staleness marker ends the
		// series: issue #25); from 12:00 GPU_UTIL's 99 is back.
		if m >= 120 && m < 720 {
			want = 25
		}
		if s.Util == nil || *s.Util != want || s.Host != "gpu-a" || s.MemUsed != nil {
			t.Fatalf("GPU-a1 minute %d: util %v, want %v (%+v)", m, s.Util, want, *s)
		}
	}
}

// checkSMIExporterDay reads the day with the nvidia_gpu_exporter queries.
func checkSMIExporterDay(t *testing.T, url string) {
	t.Helper()
	qs, _ := DefaultQueries(ExporterNvidiaSMI)
	cs, err := New(Source{Name: "smi", URL: url, Queries: qs})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := cs.FetchDay(t.Context(), day0, day0.Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	smi := &recSink{}
	if _, err := ds.Replay(t.Context(), smi); err != nil {
		t.Fatal(err)
	}
	// 60 scrapes, 00:00–00:59: 60 steps, none of the 5 after the last that
	// Prometheus' lookback would fill with its value (issue #25).
	if len(smi.samples) != 60 || !smi.samples[59].Time.Equal(day0.Add(59*time.Minute)) {
		t.Fatalf("nvidia_gpu_exporter: %d samples, want 60, the last at 00:59", len(smi.samples))
	}
	if s := smi.samples[0]; s.UUID != "GPU-6d5c0f2e-0000-0000-0000-00000000abcd" || s.Host != "gpu-b" || s.Index != -1 ||
		*s.Util != 42 || *s.MemUsed != 2048 || *s.MemTotal != 46068 || *s.PowerWatt != 110.23 {
		t.Errorf("nvidia_gpu_exporter sample %+v", *s)
	}

}

// fake answers query_range the way a failing server does; only for faults a
// real server cannot be made to produce on demand.
func fake(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int)) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h(w, r, int(calls.Add(1)))
	}))
	t.Cleanup(s.Close)
	return s, &calls
}

func matrix(w http.ResponseWriter, r *http.Request, warnings ...string) {
	start := formTime(r, "start")
	body := map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix", "result": []any{
		map[string]any{"metric": map[string]string{"UUID": "GPU-x", "Hostname": "h", "gpu": "0"},
			"values": [][]any{{float64(start.Unix()), "5"}}},
	}}}
	if len(warnings) > 0 {
		body["warnings"] = warnings
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// formTime reads a query_range time parameter (the client sends unix seconds).
func formTime(r *http.Request, name string) time.Time {
	_ = r.ParseForm()
	f, _ := strconv.ParseFloat(r.Form.Get(name), 64)
	return time.UnixMilli(int64(f * 1000)).UTC()
}

func TestFetchDayFaults(t *testing.T) {
	q := Queries{Util: "DCGM_FI_DEV_GPU_UTIL"}
	now := day0.Add(72 * time.Hour)
	t.Run("503 then success is retried", func(t *testing.T) { fault503ThenSuccessIsRetried(t, q, now) })
	t.Run("503 every time: missing", func(t *testing.T) { fault503EveryTimeMissing(t, q, now) })
	t.Run("slow: timeout, missing", func(t *testing.T) { faultSlowTimeoutMissing(t, q, now) })
	t.Run("warnings: partial", func(t *testing.T) { faultWarningsPartial(t, q, now) })
	t.Run("bad query: not retried", func(t *testing.T) { faultBadQueryNotRetried(t, q, now) })
	t.Run("auth and chunks under 11,000 points", func(t *testing.T) { faultAuthAndChunksUnder11000Points(t, q, now) })
	t.Run("canceled", func(t *testing.T) { faultCanceled(t, q, now) })
}

// fault503ThenSuccessIsRetried is TestFetchDayFaults's "503 then success is retried" case.
func fault503ThenSuccessIsRetried(t *testing.T, q Queries, now time.Time) {
	s, calls := fake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"status":"error","errorType":"timeout","error":"query timed out"}`)
			return
		}
		matrix(w, r)
	})
	c, _ := New(Source{URL: s.URL, Queries: q, Retries: 2, Backoff: time.Millisecond})
	d, err := c.FetchDay(t.Context(), day0, now)
	if err != nil || d.Samples != 1 || calls.Load() != 2 || !d.Complete {
		t.Errorf("err %v, day %+v, calls %d", err, d, calls.Load())
	}
}

// fault503EveryTimeMissing is TestFetchDayFaults's "503 every time: missing" case.
func fault503EveryTimeMissing(t *testing.T, q Queries, now time.Time) {
	s, calls := fake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	c, _ := New(Source{URL: s.URL, Queries: q, Retries: 2, Backoff: time.Millisecond})
	_, err := c.FetchDay(t.Context(), day0, now)
	if err == nil || !strings.Contains(err.Error(), "503") || calls.Load() != 3 {
		t.Errorf("err %v, calls %d", err, calls.Load())
	}
}

// faultSlowTimeoutMissing is TestFetchDayFaults's "slow: timeout, missing" case.
func faultSlowTimeoutMissing(t *testing.T, q Queries, now time.Time) {
	s, _ := fake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
		matrix(w, r)
	})
	c, _ := New(Source{URL: s.URL, Queries: q, Timeout: 100 * time.Millisecond, Retries: 1, Backoff: time.Millisecond})
	start := time.Now()
	_, err := c.FetchDay(t.Context(), day0, now)
	if err == nil || time.Since(start) > 1500*time.Millisecond {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

// faultWarningsPartial is TestFetchDayFaults's "warnings: partial" case.
func faultWarningsPartial(t *testing.T, q Queries, now time.Time) {
	s, _ := fake(t, func(w http.ResponseWriter, r *http.Request, n int) { matrix(w, r, "remote read failed for store-2") })
	c, _ := New(Source{Name: "p", URL: s.URL, Queries: q})
	d, err := c.FetchDay(t.Context(), day0, now)
	if err != nil || d.Complete || d.URI != "prometheus://p/2026-11-16#partial" || len(d.Warnings) != 1 || d.Samples != 1 {
		t.Errorf("err %v, day %+v", err, d)
	}
}

// faultBadQueryNotRetried is TestFetchDayFaults's "bad query: not retried" case.
func faultBadQueryNotRetried(t *testing.T, q Queries, now time.Time) {
	s, calls := fake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"parse error"}`)
	})
	c, _ := New(Source{URL: s.URL, Queries: q, Retries: 3, Backoff: time.Millisecond})
	_, err := c.FetchDay(t.Context(), day0, now)
	if err == nil || !strings.Contains(err.Error(), "parse error") || calls.Load() != 1 {
		t.Errorf("err %v, calls %d", err, calls.Load())
	}
}

// faultAuthAndChunksUnder11000Points is TestFetchDayFaults's "auth and chunks under 11,000 points" case.
func faultAuthAndChunksUnder11000Points(t *testing.T, q Queries, now time.Time) {
	var auth []string
	var points []int
	s, _ := fake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		auth = append(auth, r.Header.Get("Authorization"))
		start, end := formTime(r, "start"), formTime(r, "end")
		step, _ := time.ParseDuration(r.Form.Get("step") + "s")
		points = append(points, int(end.Sub(start)/step)+1)
		matrix(w, r)
	})
	env := map[string]string{"TOKEN": "s3cret"}
	c, err := New(Source{URL: s.URL, Queries: q, Step: 5 * time.Second, BearerTokenEnv: "TOKEN",
		Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.FetchDay(t.Context(), day0, now); err != nil {
		t.Fatal(err)
	}
	// 86,400 s / 5 s = 17,280 points: two requests of at most 11,000.
	if len(points) != 2 || points[0] > 11000 || points[0]+points[1] != 17280 || auth[0] != "Bearer s3cret" {
		t.Errorf("points %v auth %v", points, auth)
	}
	if _, err := New(Source{URL: s.URL, Queries: q, BearerTokenEnv: "UNSET", Getenv: func(string) string { return "" }}); err == nil {
		t.Error("an unset token env was accepted")
	}
	auth = nil
	c, err = New(Source{URL: s.URL, Queries: q, BasicAuthUser: "finops", BasicAuthPasswordEnv: "PW",
		Getenv: func(k string) string { return map[string]string{"PW": "pa55"}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.FetchDay(t.Context(), day0, now); err != nil {
		t.Fatal(err)
	}
	// base64("finops:pa55")
	if len(auth) == 0 || auth[0] != "Basic Zmlub3BzOnBhNTU=" {
		t.Errorf("basic auth header %v", auth)
	}
}

// faultCanceled is TestFetchDayFaults's "canceled" case.
func faultCanceled(t *testing.T, q Queries, now time.Time) {
	s, _ := fake(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusBadGateway) })
	c, _ := New(Source{URL: s.URL, Queries: q, Retries: 5, Backoff: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.FetchDay(ctx, day0, now); err == nil {
		t.Error("no error")
	}
}

// TestDefaultQueries: an unknown exporter is refused by name. What the default
// queries return is checked against a real Prometheus above
// (TestFetchDayRealPrometheus runs both exporters' defaults), not here by
// comparing them with their own text.
func TestDefaultQueries(t *testing.T) {
	if _, err := DefaultQueries("node"); err == nil {
		t.Error("unknown exporter accepted")
	}
}

// TestNewRedactsURL: a bad URL is named in the error without its password.
func TestNewRedactsURL(t *testing.T) {
	_, err := New(Source{URL: "ftp://reader:hunter2@prom:9090/", Queries: Queries{Util: "up"}})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), `"ftp://reader:xxxxx@prom:9090/"`) {
		t.Errorf("err = %v, want the URL redacted", err)
	}
}

// TestRetryable: a refused connection or a timeout is worth another try; a
// certificate the client does not trust is not (it would only burn the
// deadline before the same error).
func TestRetryable(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: "http://127.0.0.1:1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	untrusted := &url.Error{Op: "Get", URL: "https://prom", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{refused, true},
		{context.DeadlineExceeded, true},
		{untrusted, false},
		{&url.Error{Op: "Get", URL: "https://prom", Err: x509.HostnameError{Host: "prom"}}, false},
		{errors.New("bad query"), false},
	} {
		if got := retryable(tt.err); got != tt.want {
			t.Errorf("retryable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
