package rollup

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/report"
)

var week = analysis.Period{Start: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
	End: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), TimeZone: "UTC", Label: "2026-W48"}

// euShard, in USD: one resource of team nlp and one of team vision, half
// its 100 billed GPU-hours monitored.
//
//	cost 100.00 = gpu 90.00 + non-GPU 10.00; idle 20.00
//	nlp 60.00 (gpu-a), vision 40.00 (gpu-b: 30.00 GPU, 10.00 disk)
//	billed 100 h, active 30, idle 20, unmonitored 50: coverage 0.5
func euShard() analysis.Result {
	return analysis.Result{Period: week, Currency: "USD",
		Totals: analysis.Totals{Cost: 100, GPUCost: 90, NonGPUCost: 10, IdleCost: 20, UnallocatedCost: 20, GPUHoursBilled: 100,
			GPUHoursActive: 30, GPUHoursIdle: 20, GPUHoursUnmonitored: 50, UnmonitoredCost: 45, AvgGPUUtilization: 40},
		ByTeam: []analysis.TeamCost{
			{Team: "nlp", Cost: 60, GPUCost: 60, IdleCost: 20, GPUHoursBilled: 50, GPUHoursMonitored: 50},
			{Team: "vision", Cost: 40, GPUCost: 30, GPUHoursBilled: 50},
		},
		ByResource: []analysis.ResourceCost{
			{ResourceID: "gpu-a", Team: "nlp", GPUModel: "A100", GPUCount: 1, Cost: 60, IdleCost: 20, GPUHoursBilled: 50,
				GPUHoursActive: 30, GPUHoursIdle: 20, AvgUtilization: 40},
			{ResourceID: "gpu-b", Team: "vision", GPUModel: "L4", GPUCount: 1, Cost: 30, GPUHoursBilled: 50,
				GPUHoursUnmonitored: 50, UnmonitoredCost: 30},
		},
		IdleSpans: []analysis.IdleSpan{{ResourceID: "gpu-a", GPU: "0", Start: week.Start, End: week.Start.Add(20 * time.Hour),
			Hours: 20, Cost: 20}},
		Findings: []analysis.Finding{
			{Kind: analysis.FindingForgotten, Severity: "medium", ResourceID: "gpu-a", Team: "nlp", Money: 20, Text: "gpu-a idle 20 h"},
			{Kind: analysis.FindingNoTelemetry, Severity: "low", ResourceID: "gpu-b", Team: "vision", Money: 30, Text: "gpu-b unmonitored"},
		},
		DataQuality: analysis.DataQuality{Coverage: 0.5, MinCoverage: 0.4, UnmonitoredShare: 0.5,
			Sources: []analysis.SourceStatus{{Name: "lab", Kind: "utilization", Status: "ok"}}},
	}
}

// cnShard, in CNY: one resource of team nlp, 300 GPU-hours, no telemetry.
//
//	cost 500.00, all GPU; idle 0 (unknown: nothing monitored)
//	nlp 500.00 (gpu-c); billed 300 h, unmonitored 300: coverage 0
func cnShard() analysis.Result {
	return analysis.Result{Period: week, Currency: "CNY",
		Totals: analysis.Totals{Cost: 500, GPUCost: 500, GPUHoursBilled: 300, GPUHoursUnmonitored: 300, UnmonitoredCost: 500},
		ByTeam: []analysis.TeamCost{{Team: "nlp", Cost: 500, GPUCost: 500, GPUHoursBilled: 300}},
		ByResource: []analysis.ResourceCost{{ResourceID: "gpu-c", Team: "nlp", GPUModel: "H100", GPUCount: 1, Cost: 500,
			GPUHoursBilled: 300, GPUHoursUnmonitored: 300, UnmonitoredCost: 500}},
		Findings: []analysis.Finding{{Kind: analysis.FindingNoTelemetry, Severity: "high", ResourceID: "gpu-c", Team: "nlp",
			Money: 500, Text: "gpu-c unmonitored"}},
		DataQuality: analysis.DataQuality{Coverage: 0, MinCoverage: 0.4, UnmonitoredShare: 1},
	}
}

// summaryBytes is r as `finops report --format json` writes it.
func summaryBytes(t *testing.T, r analysis.Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, &r, report.Meta{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// edited is r's summary with edit applied to its decoded JSON object.
func edited(t *testing.T, r analysis.Result, edit func(map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(summaryBytes(t, r), &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeFile writes b to dir/name and returns its path.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// load writes each shard's summary under its name and reads them back
// through Load, as finops rollup does.
func load(t *testing.T, shards map[string][]byte, order ...string) ([]Shard, error) {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, n := range order {
		paths = append(paths, writeFile(t, dir, n+".json", shards[n]))
	}
	return Load(context.Background(), paths, nil)
}

func containsAll(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s %q: want %q in it", what, s, w)
		}
	}
}
