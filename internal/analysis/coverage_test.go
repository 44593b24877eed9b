package analysis

import (
	"reflect"
	"testing"

	"github.com/finops-oss/finops/internal/testnum"
)

// TestMarkCoverage: the reasons a report is incomplete, from its sources
// and its coverage against a minimum of 0.8.
func TestMarkCoverage(t *testing.T) {
	util := SourceStatus{Name: "smi", Kind: "utilization", Status: "ok"}
	bill := SourceStatus{Name: "aws", Kind: "billing", Status: "ok"}
	for _, tc := range []struct {
		name     string
		sources  []SourceStatus
		billed   float64 // GPU-hours
		unmon    float64
		coverage float64
		want     []string
	}{
		// (10 − 2) / 10 = 0.8: just enough.
		{"at the minimum", []SourceStatus{util, bill}, 10, 2, 0.8, nil},
		// (10 − 5) / 10 = 0.5 < 0.8: 50 % of 10.0, 80 % needed.
		{"too little", []SourceStatus{util}, 10, 5, 0.5,
			[]string{"Telemetry covers 50% of the 10.0 billed GPU-hours (at least 80% is needed): idle cost and " +
				"savings are at least what is shown, and may be more"}},
		// (10 − 10) / 10 = 0: idle unknown.
		{"none covered", []SourceStatus{util}, 10, 10, 0,
			// Advice reads the lookback's telemetry, so the sentence
			// claims nothing about it (issue 33: it said "no advice rests
			// on utilization" beside advice built on the lookback).
			[]string{"No telemetry covered any of the 10.0 billed GPU-hours: idle cost and utilization are unknown"}},
		// Billing only, by design: coverage 0 but complete.
		{"no telemetry source", []SourceStatus{bill}, 10, 10, 0, nil},
		// Nothing billed: no GPU-hour went unseen, coverage 1.
		{"nothing billed", []SourceStatus{util}, 0, 0, 1, nil},
		// A stale source comes first, with its detail; coverage 0.9 is enough.
		{"stale source", []SourceStatus{{Name: "smi", Kind: "utilization", Status: "stale", Detail: "last sample Nov 20"}, bill},
			10, 1, 0.9, []string{"Source smi is stale: last sample Nov 20"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dq := DataQuality{Sources: tc.sources, Incomplete: []string{"left from before"}}
			markCoverage(&dq, Totals{GPUHoursBilled: tc.billed, GPUHoursUnmonitored: tc.unmon}, 0.8, hasTelemetry(tc.sources))
			testnum.NearRel(t, "coverage", dq.Coverage, tc.coverage, 1e-6)
			if !reflect.DeepEqual(dq.Incomplete, tc.want) {
				t.Errorf("incomplete %q, want %q", dq.Incomplete, tc.want)
			}
		})
	}
}
