package prom

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// bigAnswer writes a query_range answer of about size bytes as it goes (the
// server never holds it): series of gpus GPUs, each series its own pod, with
// points every minute from the query's start. long makes every series run
// on past the day (a server ignoring the 11,000-point limit, or one huge
// series); otherwise each series is a day, 1,440 points, and the answer has
// many of them, as a pod-churning fleet's has.
type bigAnswer struct {
	size  int64
	gpus  int
	long  bool
	label bool // one series whose "note" label is the whole answer
	one   bool // every series a GPU of its own with one point

	written atomic.Int64
}

func (b *bigAnswer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := formTime(r, "start")
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	var n int64
	var werr error
	write := func(s string) {
		if werr != nil {
			return
		}
		var k int
		k, werr = bw.WriteString(s)
		n += int64(k)
	}
	write(`{"status":"success","data":{"resultType":"matrix","result":[`)
	var buf []byte
	if b.label {
		write(`{"metric":{"UUID":"GPU-0","Hostname":"h","note":"`)
		chunk := strings.Repeat("x", 64<<10)
		for n < b.size && werr == nil {
			write(chunk)
		}
		write(`"},"values":[]}]}}`)
		_ = bw.Flush()
		b.written.Add(n)
		return
	}
	// A client that stops reading (a refused answer) ends the writing.
	for s := 0; n < b.size && werr == nil; s++ {
		if s > 0 {
			write(",")
		}
		write(fmt.Sprintf(`{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","UUID":"GPU-%d","Hostname":"h","gpu":"%d","pod":"pod-%d"},"values":[`,
			s%b.gpus, s%b.gpus, s))
		for p := 0; ; p++ {
			if p > 0 {
				write(",")
			}
			buf = append(buf[:0], '[')
			buf = strconv.AppendInt(buf, start.Unix()+int64(p)*60, 10)
			buf = append(buf, `,"`...)
			buf = strconv.AppendInt(buf, int64((s*7+p)%100), 10)
			buf = append(buf, `"]`...)
			write(string(buf))
			if b.one || !b.long && p == 1439 || b.long && n >= int64(s+1)*b.size/int64(b.gpus) || n >= b.size || werr != nil {
				break
			}
		}
		write("]}")
	}
	write(`]}}`)
	_ = bw.Flush()
	b.written.Add(n)
}

var vmHWM = regexp.MustCompile(`VmHWM:\s+(\d+) kB`)

// TestFetchLargeAnswerPeakRSS: a query_range answer is decoded as a stream,
// so a 200 MB answer costs what a series being decoded and the day being
// built cost, not what the answer is (client_golang read it whole: 1.4 GB;
// decoding each series whole still took 2.68 GB for one long series). A
// local server writes ~200 MB answers as it goes (a real Prometheus cannot
// be made to send one cheaply); a child process fetches the day under the
// default cap, above them, and reports its peak RSS (VmHWM), which must stay under 150 MB.
// Two shapes: many day-long series of 8 GPUs (a pod per series), and a few
// series each far longer than the day (the points past the day are read and
// dropped).
func TestFetchLargeAnswerPeakRSS(t *testing.T) {
	if u := os.Getenv("FINOPS_PROM_RSS_URL"); u != "" {
		fetchLargeAnswerChild(t, u)
		return
	}
	if testing.Short() {
		t.Skip("streams 2 × 200 MB through a child process")
	}
	for _, shape := range []struct {
		name  string
		ans   *bigAnswer
		maxMB int64 // peak RSS bound; 0: 150 MB
	}{
		{"many series", &bigAnswer{size: 200 << 20, gpus: 8}, 0},
		{"one long series", &bigAnswer{size: 200 << 20, gpus: 1, long: true}, 0},
		{"one long label", &bigAnswer{size: 200 << 20, gpus: 1, label: true}, 0},
		// 20 MB of distinct GPUs seen once each (about 147,000): a dense
		// day per GPU allocated 17.7 GB of heap for 281,000 such GPUs. In
		// blocks of 32 steps each costs one block (about 2.2 KB with its
		// labels and index), and past 50,000 GPUs (maxGPUsPerDay) the day
		// is refused: 50,000 GPUs' blocks at most, ~80 MB live, whatever
		// the answer's size — 20 MB or three times that, the same bound.
		{"many GPUs seen once", &bigAnswer{size: 20 << 20, gpus: 1 << 30, one: true}, 300},
		{"many GPUs seen once, 60 MB", &bigAnswer{size: 60 << 20, gpus: 1 << 30, one: true}, 300},
	} {
		t.Run(shape.name, func(t *testing.T) {
			srv := httptest.NewServer(shape.ans)
			defer srv.Close()
			cmd := exec.Command(os.Args[0], "-test.run=^TestFetchLargeAnswerPeakRSS$", "-test.v")
			cmd.Env = append(os.Environ(), "FINOPS_PROM_RSS_URL="+srv.URL)
			begin := time.Now()
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			m := regexp.MustCompile(`samples=(\d+) gpus=(\d+) heap_peak_mb=(\d+) err="(.*)" VmHWM:\s+(\d+) kB`).FindSubmatch(out)
			if m == nil {
				t.Fatalf("child printed no result:\n%s", out)
			}
			samples, _ := strconv.Atoi(string(m[1]))
			gpus, _ := strconv.Atoi(string(m[2]))
			kb, _ := strconv.ParseInt(string(m[5]), 10, 64)
			t.Logf("%s: %.0f MB of answer, %d samples of %d GPUs, peak heap in use %s MB, peak RSS %.1f MB, %v",
				shape.name, float64(shape.ans.written.Load())/(1<<20), samples, gpus, m[3], float64(kb)/1024,
				time.Since(begin).Round(100*time.Millisecond))
			if w := shape.ans.written.Load(); w < 200<<20 && !shape.ans.label && !shape.ans.one {
				t.Errorf("the server wrote %d bytes, want 200 MiB", w)
			}
			if shape.ans.label {
				// One label is one value: it cannot be streamed, and is
				// refused past maxValueBytes rather than held.
				if want := "over 1048576 bytes"; !strings.Contains(string(m[4]), want) {
					t.Errorf("error %q, want %q", m[4], want)
				}
			} else if shape.ans.one {
				if want := "names more than 50000 GPUs for one day"; !strings.Contains(string(m[4]), want) {
					t.Errorf("error %q, want %q", m[4], want)
				}
			} else if samples != shape.ans.gpus*1440 || gpus != shape.ans.gpus || len(m[4]) > 0 {
				t.Errorf("%d samples of %d GPUs (error %q), want %d of %d", samples, gpus, m[4], shape.ans.gpus*1440, shape.ans.gpus)
			}
			bound := shape.maxMB
			if bound == 0 {
				bound = 150
			}
			if kb > bound<<10 {
				t.Errorf("peak RSS %d kB decoding a %.0f MB answer, want under %d MB", kb, float64(shape.ans.written.Load())/(1<<20), bound)
			}
		})
	}
}

// fetchLargeAnswerChild fetches one day from url under the default cap (256
// MiB: the answer is read whole, never split) and prints what it got, its peak heap
// in use (sampled) and its peak RSS.
func fetchLargeAnswerChild(t *testing.T, url string) {
	c, err := New(Source{Name: "big", URL: url, Queries: Queries{Util: "DCGM_FI_DEV_GPU_UTIL"}})
	if err != nil {
		t.Fatal(err)
	}
	peakHeap := sampleHeapInuse()
	d, err := c.FetchDay(t.Context(), day0, day0.AddDate(0, 0, 2))
	peak := peakHeap()
	msg := ""
	if err != nil {
		d, msg = &Day{}, strings.ReplaceAll(err.Error(), `"`, "'")
	}
	status, _ := os.ReadFile("/proc/self/status")
	fmt.Printf("samples=%d gpus=%d heap_peak_mb=%d err=\"%s\" %s\n", d.Samples, len(d.gpus), peak>>20, msg,
		strings.TrimSpace(vmHWM.FindString(string(status))))
}
