package prom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// fleet answers query_range for hosts × gpus GPUs the way Prometheus does,
// utilization (h·7 + g·3 + step) mod 100, written as it is encoded (chunked,
// no Content-Length). It understands the two queries a split sends: the host
// list (group by) and one host's part (and on(...) with label_replace).
type fleet struct {
	hosts, gpus int
	label       string // extra label on every series, to make one step large

	mu       sync.Mutex
	requests int
	perHost  int
}

var hostOfPart = regexp.MustCompile(`"Hostname", "([^"]+)"`)

func (f *fleet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start, end := formTime(r, "start"), formTime(r, "end")
	step := 5 * time.Minute
	q := r.Form.Get("query")
	f.mu.Lock()
	f.requests++
	only := ""
	if m := hostOfPart.FindStringSubmatch(q); m != nil {
		only = m[1]
		f.perHost++
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"status":"success","data":{"resultType":"matrix","result":[`)
	first := true
	for h := 0; h < f.hosts; h++ {
		host := fmt.Sprintf("gpu-host-%02d", h)
		if only != "" && host != only {
			continue
		}
		if strings.HasPrefix(q, "group by (") {
			if !first {
				io.WriteString(w, ",")
			}
			first = false
			fmt.Fprintf(w, `{"metric":{"Hostname":%q},"values":[[%d,"1"]]}`, host, end.Unix())
			continue
		}
		for g := 0; g < f.gpus; g++ {
			if !first {
				io.WriteString(w, ",")
			}
			first = false
			fmt.Fprintf(w, `{"metric":{"__name__":"gpu_util","UUID":"GPU-%02d-%d","Hostname":%q,"gpu":"%d"%s},"values":[`, h, g, host, g, f.label)
			for t, i := start, 0; !t.After(end); t, i = t.Add(step), i+1 {
				if i > 0 {
					io.WriteString(w, ",")
				}
				n := int(t.Sub(time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)) / step)
				fmt.Fprintf(w, `[%d,"%d"]`, t.Unix(), (h*7+g*3+n)%100)
			}
			io.WriteString(w, "]}")
		}
	}
	io.WriteString(w, "]}}")
}

// readCounter records the most bytes the client read of any one answer.
type readCounter struct {
	next http.RoundTripper
	mu   sync.Mutex
	max  int64
}

func (c *readCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil {
		resp.Body = &countedBody{ReadCloser: resp.Body, c: c}
	}
	return resp, err
}

type countedBody struct {
	io.ReadCloser
	c *readCounter
	n int64
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	b.c.mu.Lock()
	b.c.max = max(b.c.max, b.n)
	b.c.mu.Unlock()
	return n, err
}

// TestFetchDaySplitsLargeAnswers: answers over max_response_bytes are never
// read past the cap; the day is fetched in shorter ranges, then per host when
// one step of the fleet is over the cap, and every GPU-step arrives exactly
// once with its value; an answer that no split brings under the cap is an
// error naming the query and the cap. The whole day's answer of 16 GPUs at a
// 5 min step is about 16 × 288 × 18 B ≈ 83 KB; one step of all of them about
// 1.5 KB, one host's day about 10 KB (sizes worked out from the JSON above).
func TestFetchDaySplitsLargeAnswers(t *testing.T) {
	day := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	const steps = 288 // a day at 5 min
	long := `,"note":"` + strings.Repeat("x", 600) + `"`
	for _, tc := range []struct {
		name        string
		f           *fleet
		cap         int64
		wantPerHost bool
		wantErr     string
	}{
		{"shorter ranges", &fleet{hosts: 8, gpus: 2}, 16 << 10, false, ""},
		{"per host", &fleet{hosts: 8, gpus: 2}, 1 << 10, true, ""},
		{"one step of one GPU over the cap", &fleet{hosts: 2, gpus: 1, label: long}, 512, true,
			`query "gpu_util": answer too large: one step of one host's series is over max_response_bytes (512 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := fake(t, func(w http.ResponseWriter, r *http.Request, _ int) { tc.f.ServeHTTP(w, r) })
			rc := &readCounter{next: http.DefaultTransport}
			c, err := New(Source{URL: s.URL, Queries: Queries{Util: "gpu_util"}, Step: 5 * time.Minute,
				MaxResponseBytes: tc.cap, Transport: rc})
			if err != nil {
				t.Fatal(err)
			}
			d, err := c.FetchDay(context.Background(), day, day.Add(48*time.Hour))
			if rc.max > tc.cap+1 {
				t.Errorf("read %d bytes of one answer, cap %d", rc.max, tc.cap)
			}
			if tc.wantErr != "" {
				var fe *FetchError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want a FetchError containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.f.requests < 2 || (tc.f.perHost > 0) != tc.wantPerHost {
				t.Errorf("%d requests, %d per host: want a split, per host %v", tc.f.requests, tc.f.perHost, tc.wantPerHost)
			}
			var sink recSink
			if _, err := d.Replay(context.Background(), &sink); err != nil {
				t.Fatal(err)
			}
			if want := tc.f.hosts * tc.f.gpus * steps; d.Samples != want || len(sink.samples) != want {
				t.Fatalf("%d samples (%d replayed), want %d", d.Samples, len(sink.samples), want)
			}
			seen := map[string]bool{}
			for _, x := range sink.samples {
				var h, g int
				fmt.Sscanf(x.UUID, "GPU-%02d-%d", &h, &g)
				n := int(x.Time.Sub(day) / (5 * time.Minute))
				k := fmt.Sprintf("%s %d", x.UUID, n)
				if seen[k] {
					t.Fatalf("%s twice", k)
				}
				seen[k] = true
				if x.Util == nil || *x.Util != float64((h*7+g*3+n)%100) {
					t.Fatalf("%s: util %v, want %d", k, x.Util, (h*7+g*3+n)%100)
				}
			}
		})
	}
}
