package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

// TestSourceGPUs: the GPUs each telemetry file reported, by source id, for
// the files whose data ends at or after since: a file of two GPUs names
// both (by their keys: UUID, else host/index), one that ended before since
// is left out, and a billing file has none.
func TestSourceGPUs(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	t0 := time.Date(2026, 11, 9, 1, 0, 0, 0, time.UTC)
	smi := func(uri string, at time.Time, samples ...*finops.GPUSample) int64 {
		t.Helper()
		sum := &ingest.Summary{Format: ingest.FormatNvidiaSMI, Kind: ingest.KindUtilization, Rows: len(samples),
			PeriodStart: at, PeriodEnd: at.Add(time.Minute)}
		res, err := s.Import(ctx, FileMeta{URI: uri, SHA256: shaOf(uri)}, feed(sum, nil, samples, nil))
		if err != nil {
			t.Fatal(err)
		}
		return res.SourceID
	}
	sample := func(host string, idx int, uuid string, at time.Time) *finops.GPUSample {
		return &finops.GPUSample{Host: host, Index: idx, UUID: uuid, Time: at, Util: new(50.0)}
	}
	recent := smi("recent.csv", t0, sample("gpu-cv", 0, "GPU-B", t0), sample("gpu-cv", 1, "", t0), sample("gpu-cv", 2, "GPU-A", t0))
	old := t0.AddDate(0, 0, -40)
	smi("old.csv", old, sample("gpu-old", 0, "GPU-X", old))
	got, err := s.SourceGPUs(ctx, t0.AddDate(0, 0, -35))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[int64][]string{recent: {"GPU-A", "GPU-B", "gpu-cv/1"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("SourceGPUs = %v, want %v", got, want)
	}
}
