package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/finops-oss/finops/ingest"
)

// BenchmarkImportBillingLines streams b.N billing lines through one Import
// (one transaction) and reports the throughput. It runs only with -bench:
//
//	go test ./store -run '^$' -bench ImportBillingLines -benchtime 200000x
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
