package prom

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
)

// bodyTransport answers every request with one canned response, so the
// fuzzer reaches the client's decoding of query_range bodies and FetchDay's
// join without a server or a socket.
type bodyTransport struct {
	code int
	body []byte
}

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: b.code, Status: http.StatusText(b.code), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(bytes.NewReader(b.body)),
		Request: r, ContentLength: int64(len(b.body))}, nil
}

// fuzzCodes are the statuses a Prometheus (or a proxy in front of it)
// answers query_range with: the client decodes the body of each differently.
var fuzzCodes = []int{200, 400, 422, 503, 500, 429}

type fuzzSink struct {
	samples []finops.GPUSample
	runs    []finops.TaskRun
}

func (s *fuzzSink) Billing(*finops.BillingLine) error { return nil }
func (s *fuzzSink) Sample(x *finops.GPUSample) error  { s.samples = append(s.samples, *x); return nil }
func (s *fuzzSink) TaskRun(r *finops.TaskRun) error   { s.runs = append(s.runs, *r); return nil }

// FuzzFetchDayResponse decodes arbitrary query_range response bodies. A
// Prometheus (or whatever answers at its URL) is untrusted: the day is a
// *FetchError, or samples on the day's step grid with utilization 0–100 and
// task runs that end after they start.
func FuzzFetchDayResponse(f *testing.F) {
	day := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	addFetchDaySeeds(f)
	q, err := DefaultQueries(ExporterDCGM)
	if err != nil {
		f.Fatal(err)
	}
	cat := gpu.NewCatalog()
	f.Fuzz(func(t *testing.T, code uint8, body []byte) {
		if len(body) > 16<<10 {
			return
		}
		// An hour's step keeps a day at 24 points per GPU: the per-GPU
		// allocation of a 1-minute day would dominate each exec.
		c, err := New(Source{Name: "fuzz", URL: "http://prometheus.invalid:9090", Queries: q, Step: time.Hour,
			TaskLabels: dcgm.DefaultTaskLabels(), Catalog: cat,
			Transport: bodyTransport{code: fuzzCodes[int(code)%len(fuzzCodes)], body: body}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := c.FetchDay(t.Context(), day, day.Add(48*time.Hour))
		if err != nil {
			var fe *FetchError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "prometheus fuzz: 2026-11-16") {
				t.Fatalf("not a FetchError naming source and day: %v", err)
			}
			return
		}
		if !strings.HasPrefix(d.URI, "prometheus://fuzz/2026-11-16") || len(d.SHA256) != 64 ||
			d.Complete != (len(d.Warnings) == 0) || strings.HasSuffix(d.URI, "#partial") == d.Complete {
			t.Fatalf("day %+v", d)
		}
		sink := &fuzzSink{}
		sum, err := d.Replay(t.Context(), sink)
		if err != nil {
			t.Fatal(err)
		}
		if len(sink.samples) != d.Samples || len(sink.runs) != d.Runs || sum.Rows != d.Samples+d.Runs {
			t.Fatalf("day says %d samples and %d runs, replay gave %d and %d (%d rows)", d.Samples, d.Runs,
				len(sink.samples), len(sink.runs), sum.Rows)
		}
		checkFuzzReplay(t, day, sink)
	})
}

// addFetchDaySeeds adds the corpus seeds: well-formed and odd matrices, the
// other result types, and the error bodies of each status.
func addFetchDaySeeds(f *testing.F) {
	for _, s := range []struct {
		code int
		body string
	}{
		{200, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"UUID":"GPU-x","Hostname":"h","gpu":"0","modelName":"NVIDIA H100 80GB HBM3","pod":"train-1","namespace":"ml"},"values":[[1795305600,"5"],[1795309200,"150"],[1795312800,"NaN"],[1795316400,"-3"]]},{"metric":{"gpu":"1","instance":"10.0.0.2:9400","GPU_I_ID":"1","UUID":"GPU-y"},"values":[[1795305600.5,"9.2e18"],[1795395600,"1"]]}]}}`},
		{200, `{"status":"success","warnings":["partial data"],"data":{"resultType":"matrix","result":[{"metric":{"uuid":"20c56d28-0da5-6d26-a36a-e7af1ce2586e","index":"0","hostname":"n"},"values":[[1795305600,"1e3"]]}]}}`},
		{200, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"UUID":"GPU-x"},"value":[1795305600,"5"]}]}}`},
		{200, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"UUID":"GPU-x"},"histograms":[[1795305600,{"count":"1","sum":"2","buckets":[[0,"0","1","1"]]}]]}]}}`},
		{200, `{"status":"success","data":{"resultType":"scalar","result":[1795305600,"1"]}}`},
		{422, `{"status":"error","errorType":"execution","error":"exceeded maximum resolution of 11,000 points per timeseries"}`},
		{503, `{"status":"error","errorType":"timeout","error":"query timed out"}`},
		{400, `{"status":"error","errorType":"bad_data","error":"parse error"}`},
		{500, `<html>bad gateway</html>`},
		{200, ``},
	} {
		code := 0
		for i, c := range fuzzCodes {
			if c == s.code {
				code = i
			}
		}
		f.Add(uint8(code), []byte(s.body))
	}
}

// checkFuzzReplay checks the replayed samples lie on the day's step grid
// with utilization 0–100 and no missing value, and the task runs end after
// they start, within the day.
func checkFuzzReplay(t *testing.T, day time.Time, sink *fuzzSink) {
	t.Helper()
	for i, s := range sink.samples {
		off := s.Time.Sub(day)
		if s.Line != i+1 || off < 0 || off >= 24*time.Hour || off%time.Hour != 0 || s.Time.Location() != time.UTC {
			t.Fatalf("sample %d off the day's grid: %+v", i, s)
		}
		if s.Util != nil && !(*s.Util >= 0 && *s.Util <= 100) {
			t.Fatalf("sample %d: utilization %v", i, *s.Util)
		}
		for _, v := range []*float64{s.Util, s.MemUsed, s.MemTotal, s.PowerWatt} {
			if v != nil && dcgm.Missing(*v) {
				t.Fatalf("sample %d: a missing value leaked: %+v", i, s)
			}
		}
	}
	for i, r := range sink.runs {
		if r.Line != i+1 || !r.End.After(r.Start) || r.Start.Before(day) || r.End.After(day.Add(24*time.Hour)) ||
			r.Task == "" || len(r.GPUs) == 0 {
			t.Fatalf("run %d: %+v", i, r)
		}
	}
}
