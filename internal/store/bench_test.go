package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// BenchmarkImportBillingLines streams b.N billing lines through one Import
// (one transaction) and reports the throughput. It runs only with -bench:
//
//	go test ./internal/store -run '^$' -bench ImportBillingLines -benchtime 200000x
func BenchmarkImportBillingLines(b *testing.B) {
	ctx := context.Background()
	s := openTest(b)
	template := fixtureLines()[0] // every column set, 6 tags
	start := utc(2025, 3, 1, 0, 0, 0)
	parse := func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		l := *template
		for i := range b.N {
			l.Line = i + 2
			l.ChargeStart = start.Add(time.Duration(i) * time.Hour)
			l.ChargeEnd = l.ChargeStart.Add(time.Hour)
			if err := sink.Billing(&l); err != nil {
				return nil, err
			}
		}
		return &ingest.Summary{Format: ingest.FormatFOCUS, Kind: ingest.KindBilling, Rows: b.N}, nil
	}
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := s.Import(ctx, FileMeta{URI: "bench.csv", SHA256: shaOf(fmt.Sprint("bench", b.N))}, parse); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkImportFOCUS parses a FOCUS export (the rows of the FOCUS sample
// repeated, about 150 MB for 200,000 rows) and imports it in one
// transaction, as `finops ingest` does. bench/run.sh measures the same
// through the binary, against sqlite3 .import; this is the one to profile:
//
//	go test ./internal/store -run '^$' -bench ImportFOCUS -benchtime 1x -cpuprofile cpu.out
func BenchmarkImportFOCUS(b *testing.B) {
	const rows = 200000
	in := focusInput(b, rows)
	b.SetBytes(int64(len(in)))
	ctx := context.Background()
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		s := openTest(b)
		parse := func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
			return ingest.Parse(ctx, bytes.NewReader(in), ingest.Options{Name: "focus.csv"}, sink)
		}
		res, err := s.Import(ctx, FileMeta{URI: "focus.csv", SHA256: shaOf(fmt.Sprint("focus", i, time.Now().UnixNano()))}, parse)
		if err != nil {
			b.Fatal(err)
		}
		if res.Duplicate || res.Summary.Rows != rows {
			b.Fatalf("import: %+v, want %d rows", res, rows)
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "lines/s")
	// CPU seconds (user + system, all threads) are steadier than wall time on
	// a shared machine.
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// focusInput repeats the rows of the FOCUS sample (1,000 rows, 755 KB)
// into an export of rows rows, about 150 MB for 200,000.
func focusInput(b *testing.B, rows int) []byte {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ingest", "focus_sample.csv"))
	if err != nil {
		b.Fatal(err)
	}
	nl := bytes.IndexByte(raw, '\n')
	in := bytes.NewBuffer(make([]byte, 0, len(raw)/1000*(rows+1)))
	in.Write(raw[:nl+1])
	body := bytes.SplitAfter(raw[nl+1:], []byte("\n"))
	for i := 0; i < rows; i++ {
		in.Write(body[i%(len(body)-1)]) // the last element is empty
	}
	return in.Bytes()
}

// BenchmarkImportFleetSamples imports b.N samples of a 1,000-GPU fleet
// sampled every 5 minutes, in time order as an nvidia-smi log of the whole
// fleet delivers them: every sample is its own GPU-minute, and consecutive
// samples belong to different GPUs. bench/report.sh ingests the same shape
// (2,016,000 samples) through the binary; this is the one to profile:
//
//	go test ./internal/store -run '^$' -bench ImportFleetSamples -benchtime 2016000x -cpuprofile cpu.out
func BenchmarkImportFleetSamples(b *testing.B) {
	const gpus = 1000
	ctx := context.Background()
	s := openTest(b)
	start := utc(2026, 11, 9, 0, 0, 7)
	parse := func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		uuids := make([]string, gpus)
		for g := range uuids {
			uuids[g] = fmt.Sprintf("GPU-%08x-0000-4000-8000-%012x", g/4, g%4)
		}
		var x finops.GPUSample
		u, mem, pw := 50.0, 4000.0, 180.0
		x.Util, x.MemUsed, x.PowerWatt = &u, &mem, &pw
		for i := range b.N {
			g := i % gpus
			x.UUID, x.Host, x.Index = uuids[g], fmt.Sprintf("host-%03d", g/4), g%4
			x.Time = start.Add(time.Duration(i/gpus) * 5 * time.Minute)
			u = float64(i % 100)
			if err := sink.Sample(&x); err != nil {
				return nil, err
			}
		}
		return &ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization, Rows: b.N,
			SampleInterval: 5 * time.Minute}, nil
	}
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := s.Import(ctx, FileMeta{URI: "fleet.csv", SHA256: shaOf(fmt.Sprint("fleet", b.N))}, parse); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
