package prom

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/ingest/prom/promtest"
)

// omFile writes a promtest.OpenMetrics history to a file as it is built, so
// a week of a large fleet (about a gigabyte of text) never sits in memory.
type omFile struct {
	om promtest.OpenMetrics
	w  *bufio.Writer
	n  int
}

func (f *omFile) Family(name string) { f.om.Family(name) }

func (f *omFile) Sample(labels []string, at time.Time, v string) {
	f.om.Sample(labels, at, v)
	if f.n++; f.n%4096 == 0 {
		_ = f.om.Flush(f.w) // a write error surfaces at the final Flush
	}
}

// countingBody counts the bytes of an answer as the client reads them.
type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// TestFetchWeekPeakHeap: memory follows concurrent_days, not the length of
// the period. A fleet's days are fetched from a real Prometheus (backfilled
// with promtool); at each kept day the heap is collected and its live bytes
// read, when the most days are held (the one kept and those in flight). The
// bound is computed, not measured: a day of one GPU is 1,440 steps of 40
// bytes (point: four float64 and a bit set, padded), so concurrent days hold
// about concurrent × gpus × 57,600 bytes; the test allows two days more for
// what else a fetch holds (the series being decoded, the per-GPU maps, the
// transport's buffers). Fetching every day at once (the bound broken) holds
// all of them and fails it.
//
// By default a small fleet (40 GPUs, 8 days: seconds). FINOPS_BENCH_PROM=1
// runs the benchmark of docs/BENCHMARKS.md §Prometheus: a week of 1,000
// GPUs, fetched with concurrent_days 1 and 4, with wall time, peak heap in
// use (sampled) and answer sizes logged (-v).
func TestFetchWeekPeakHeap(t *testing.T) {
	gpus, days, runs := 40, 8, []int{2}
	if os.Getenv("FINOPS_BENCH_PROM") == "1" {
		gpus, days, runs = 1000, 7, []int{1, 4}
	}
	promtest.Binaries(t)
	f, err := os.Create(filepath.Join(t.TempDir(), "week.om"))
	if err != nil {
		t.Fatal(err)
	}
	out := &omFile{w: bufio.NewWriterSize(f, 1<<20)}
	// Utilization only: memory and power double the backfill and add
	// nothing to what is measured (each query is streamed alike).
	begin := time.Now()
	fleetUtilization(out, gpus, days)
	if err := out.om.Flush(out.w); err != nil {
		t.Fatal(err)
	}
	if _, err := out.w.WriteString("# EOF\n"); err != nil {
		t.Fatal(err)
	}
	if err := out.w.Flush(); err != nil {
		t.Fatal(err)
	}
	info, _ := f.Stat()
	f.Close()
	t.Logf("history: %d GPUs × %d days, %d MB of OpenMetrics written in %v", gpus, days, info.Size()>>20, time.Since(begin).Round(time.Second))
	begin = time.Now()
	srv := promtest.StartFile(t, f.Name())
	t.Logf("promtool backfill and start: %v", time.Since(begin).Round(time.Second))
	_ = os.Remove(f.Name())

	var want []time.Time
	for d := range days {
		want = append(want, day0.AddDate(0, 0, d))
	}
	perDay := int64(gpus) * 1440 * 40
	const fixedOverhead = 1 << 20
	for _, concurrent := range runs {
		var answered, requests atomic.Int64
		c, err := New(Source{Name: "week", URL: srv.URL, Queries: Queries{Util: "DCGM_FI_DEV_GPU_UTIL"}, ConcurrentDays: concurrent,
			Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				resp, err := http.DefaultTransport.RoundTrip(r)
				if err == nil {
					requests.Add(1)
					resp.Body = countingBody{resp.Body, &answered}
				}
				return resp, err
			})})
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		peakHeap := sampleHeapInuse()
		var live uint64
		samples := 0
		begin := time.Now()
		err = c.FetchDays(t.Context(), want, day0.AddDate(0, 0, days+1), func(d *Day) error {
			samples += d.Samples
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			live = max(live, ms.HeapAlloc-min(ms.HeapAlloc, base.HeapAlloc))
			// The day being kept counts: without this the collector
			// sees it as dead (nothing reads it after the GC).
			runtime.KeepAlive(d)
			return nil
		})
		took := time.Since(begin)
		peak := peakHeap()
		if err != nil {
			t.Fatal(err)
		}
		if samples != gpus*days*1440 {
			t.Errorf("concurrent_days %d: %d samples, want %d", concurrent, samples, gpus*days*1440)
		}
		t.Logf("concurrent_days %d: %v, %d samples; live heap at most %.1f MB above the start (bound %.1f MB), peak heap in use %.1f MB; "+
			"%d requests, %.1f MB of answers (%.0f bytes a GPU-day)", concurrent, took.Round(10*time.Millisecond), samples,
			float64(live)/1e6, float64(int64(concurrent+2)*perDay+fixedOverhead)/1e6, float64(peak)/1e6,
			requests.Load(), float64(answered.Load())/1e6, float64(answered.Load())/float64(gpus*days))
		// Days in flight and the one kept, plus what does not grow with the
		// data: the HTTP transport's buffers and the goroutines' stacks
		// (once measured 16 KB over the days alone under load). Keeping all
		// eight days would be twice the bound.
		if bound := uint64(int64(concurrent+2)*perDay + fixedOverhead); live > bound {
			t.Errorf("concurrent_days %d: %d bytes live while keeping a day, over %d (%d days of %d GPUs)",
				concurrent, live, bound, concurrent+2, gpus)
		}
	}
}

// sampleHeapInuse samples the heap in use every 20 ms, live data and the
// garbage not yet collected, until the function it returns is called; that
// returns the peak seen.
func sampleHeapInuse() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			peak.Store(max(peak.Load(), ms.HeapInuse))
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}
