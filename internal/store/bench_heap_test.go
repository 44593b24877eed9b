package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/ingest"
)

// BenchmarkImportFOCUSPeakHeap imports FOCUS exports of 20,000 and 200,000
// rows (focusInput) and reports, for each, the Go heap's peak above what it
// held before the import, and how much more the larger one took: the part
// of `finops ingest`'s peak RSS that can grow with the file (the binary's
// pages, the runtime and SQLite's page cache do not). Issue #35's target is
// on the whole process — peak RSS for 200,000 rows at most 1.15× that for
// 20,000, which bench/run.sh measures — so the heap's own ratio, over a
// smaller base, is not it (docs/BENCHMARKS.md §Flat memory again). It runs
// at GOGC 200, as `finops ingest` does (importer.gcPercent):
//
//	go test ./internal/store -run '^$' -bench ImportFOCUSPeakHeap -benchtime 1x
func BenchmarkImportFOCUSPeakHeap(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	ctx := context.Background()
	var peaks [2]float64
	for b.Loop() {
		for i, rows := range []int{20000, 200000} {
			// The export is read from a file, as `finops ingest` reads it:
			// held in memory, its 150 MB would be live heap, and the
			// collector's goal four times that.
			path := filepath.Join(b.TempDir(), "focus.csv")
			if err := os.WriteFile(path, focusInput(b, rows), 0o600); err != nil {
				b.Fatal(err)
			}
			s := openTest(b)
			peak := watchHeap()
			parse := func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
				f, err := os.Open(path)
				if err != nil {
					return nil, err
				}
				defer f.Close()
				return ingest.Parse(ctx, bufio.NewReader(f), ingest.Options{Name: "focus.csv"}, sink)
			}
			res, err := s.Import(ctx, FileMeta{URI: "focus.csv", SHA256: shaOf(fmt.Sprint("heap", rows))}, parse)
			if err != nil {
				b.Fatal(err)
			}
			if res.Summary.Rows != rows {
				b.Fatalf("imported %d rows, want %d", res.Summary.Rows, rows)
			}
			peaks[i] = float64(peak()) / 1e6
		}
	}
	b.ReportMetric(peaks[0], "peak-MB-20k")
	b.ReportMetric(peaks[1], "peak-MB-200k")
	b.ReportMetric(peaks[1]-peaks[0], "growth-MB")
}

// watchHeap samples the heap every millisecond until the returned function
// is called, which returns the largest heap seen above the heap at the
// start (after a collection): objects, the unused part of their spans and
// free spans not yet returned to the system, which is what RSS holds.
func watchHeap() (peak func() uint64) {
	runtime.GC()
	debug.FreeOSMemory()
	names := []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes", "/memory/classes/heap/free:bytes"}
	samples := make([]metrics.Sample, len(names))
	for i, n := range names {
		samples[i].Name = n
	}
	read := func() uint64 {
		metrics.Read(samples)
		var sum uint64
		for _, s := range samples {
			sum += s.Value.Uint64()
		}
		return sum
	}
	base := read()
	var top uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			top = max(top, read())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		close(stop)
		wg.Wait()
		return max(top, base) - base
	}
}
