package reportjob

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/store"
)

// TestIngestWarnings: the stored warnings, then per file how many more it
// had than were kept (a: 25 in all, 2 kept → 23 more; b: all kept → none).
func TestIngestWarnings(t *testing.T) {
	got := ingestWarnings([]store.Warning{
		{URI: "a.csv", Line: 2, Msg: "long", FileTotal: 25},
		{URI: "a.csv", Line: 3, Msg: "long", FileTotal: 25},
		{URI: "b.csv", Line: 9, Msg: "long", FileTotal: 1},
	})
	want := []string{"a.csv:2: long", "a.csv:3: long", "b.csv:9: long", "a.csv: 23 more warnings like these"}
	if !slices.Equal(got, want) {
		t.Errorf("ingestWarnings = %q, want %q", got, want)
	}
}

// TestSourceStatusesStale: telemetry that ends longer than thresholds.stale_after
// before the window's end is "stale"; billing never is.
func TestSourceStatusesStale(t *testing.T) {
	end := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	win := analysis.Window{Start: end.AddDate(0, 0, -7), End: end}
	srcs := []store.Source{
		// Telemetry up to 30 h before the end; a bill up to 3 days before.
		{Format: "nvidia-smi", Kind: "utilization", Host: "gpu-a", PeriodStart: win.Start, PeriodEnd: end.Add(-30 * time.Hour)},
		{Format: "focus", Kind: "billing", PeriodStart: win.Start, PeriodEnd: end.Add(-72 * time.Hour)},
	}
	for _, tc := range []struct {
		staleAfter time.Duration
		want       map[string]string
	}{
		// 30 h old is past 24 h: stale; within 48 h: ok.
		{24 * time.Hour, map[string]string{"nvidia-smi gpu-a": "stale", "focus": "ok"}},
		{48 * time.Hour, map[string]string{"nvidia-smi gpu-a": "ok", "focus": "ok"}},
	} {
		got := map[string]string{}
		for _, s := range sourceStatuses(srcs, win, tc.staleAfter) {
			got[s.Name] = s.Status
		}
		if len(got) != len(tc.want) || got["nvidia-smi gpu-a"] != tc.want["nvidia-smi gpu-a"] || got["focus"] != tc.want["focus"] {
			t.Errorf("stale after %s: %v, want %v", tc.staleAfter, got, tc.want)
		}
	}
}

// TestAddSources: a run's own sources replace the database's in the
// data-quality box, the stale telemetry kept; a source that failed is
// missing, or partial when some of its files came; a failed import within
// 31 days before the window is named once (not when the run's own error
// names it) and counts as missing; addresses lose their passwords.
func TestAddSources(t *testing.T) {
	end := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	win := analysis.Window{Start: end.AddDate(0, 0, -7), End: end}
	db := []analysis.SourceStatus{
		{Name: "focus", Kind: "billing", Status: "ok"},
		{Name: "nvidia-smi gpu-a", Kind: "utilization", Status: "stale"},
	}
	recent := store.FailedImport{URI: "s3://u:secret@bucket/bad.csv", Error: "overlaps", At: win.Start.Add(-24 * time.Hour)}
	old := store.FailedImport{URI: "old.csv", Error: "bad", At: win.Start.Add(-32 * 24 * time.Hour)}
	named := store.FailedImport{URI: "named.csv", Error: "bad", At: win.Start}
	type status struct{ name, status, detail string }
	for _, tc := range []struct {
		name        string
		ingested    []Source
		failed      []store.FailedImport
		want        []status
		wantMissing []string
	}{
		{"no run: the database's sources", nil, nil,
			[]status{{"focus", "ok", ""}, {"nvidia-smi gpu-a", "stale", ""}}, nil},
		{"the run's sources, the stale one kept", []Source{
			{Name: "bills/", Kind: "billing", Files: 3},
			{Name: "prom", Kind: "utilization", Detail: "7 days"},
		}, nil, []status{{"bills/", "ok", "3 files"}, {"prom", "ok", "7 days"}, {"nvidia-smi gpu-a", "stale", ""}}, nil},
		{"missing and partial", []Source{
			{Name: "https://u:pw@host/x", Kind: "billing", Err: errors.New("fetch https://u:pw@host/x: 404")},
			// 3 files, 1 failed: some came.
			{Name: "logs/", Kind: "utilization", Files: 3, Failed: 1, Err: errors.New("logs/a.log: bad")},
			{Name: "prom", Kind: "utilization", Partial: true, Err: errors.New("2 days failed")},
		}, nil, []status{
			{"https://u:xxxxx@host/x", "missing", "fetch https://u:xxxxx@host/x: 404"},
			{"logs/", "partial", "logs/a.log: bad"},
			{"prom", "partial", "2 days failed"},
			{"nvidia-smi gpu-a", "stale", ""},
		}, []string{"https://u:xxxxx@host/x", "logs/", "prom"}},
		{"failed imports: the recent one, not the old one nor the one the run names", []Source{
			{Name: "bills/", Kind: "billing", Files: 2, Failed: 2, Err: errors.New("named.csv: bad")},
		}, []store.FailedImport{recent, old, named}, []status{
			{"bills/", "missing", "named.csv: bad"},
			{"nvidia-smi gpu-a", "stale", ""},
			{"s3://u:xxxxx@bucket/bad.csv", "failed", "did not import (2026-11-22T00:00:00Z): overlaps"},
		}, []string{"bills/", "s3://u:xxxxx@bucket/bad.csv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &analysis.Input{Sources: slices.Clone(db)}
			missing := addSources(in, tc.ingested, tc.failed, win)
			var got []status
			for _, s := range in.Sources {
				d := s.Detail
				if s.Name == "focus" || s.Name == "nvidia-smi gpu-a" {
					d = ""
				}
				got = append(got, status{s.Name, s.Status, d})
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("sources %q\nwant %q", got, tc.want)
			}
			if !slices.Equal(missing, tc.wantMissing) {
				t.Errorf("missing %q, want %q", missing, tc.wantMissing)
			}
		})
	}
}

// TestIncomplete: missing sources, then the analysis' incomplete data, make
// a PartialError; a whole report is nil.
func TestIncomplete(t *testing.T) {
	for _, tc := range []struct {
		name    string
		missing []string
		inc     []string
		want    string // "" for none
	}{
		{"whole", nil, nil, ""},
		{"missing", []string{"a", "b"}, []string{"coverage 40%"}, "report written, but 2 sources were missing or failed: a, b"},
		{"incomplete", nil, []string{"coverage 40%", "prom stale"}, "report written, but its data is incomplete: coverage 40%; prom stale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &analysis.Result{}
			res.DataQuality.Incomplete = tc.inc
			err := Incomplete(tc.missing, res)
			if tc.want == "" {
				if err != nil {
					t.Errorf("Incomplete: %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want || !errors.As(err, new(PartialError)) {
				t.Errorf("Incomplete: %v, want the PartialError %q", err, tc.want)
			}
		})
	}
}
