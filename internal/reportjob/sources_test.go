package reportjob

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/store"
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

// TestSourceStatuses: the imported files grouped for the data-quality box,
// every group ok (whether telemetry is stale is the analysis's to say, per
// resource against billing: analysis/stale.go); a telemetry group carries
// its last sample (the latest end of its files) and the union of its files'
// GPUs; a Prometheus server's days are one group named as the run names the
// server; telemetry that stopped within 35 days before the window is kept,
// older is not.
func TestSourceStatuses(t *testing.T) {
	end := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	win := analysis.Window{Start: end.AddDate(0, 0, -7), End: end}
	srcs := []store.Source{
		{ID: 1, Format: "nvidia-smi", Kind: "utilization", Host: "gpu-a", PeriodStart: win.Start, PeriodEnd: end.Add(-30 * time.Hour)},
		{ID: 2, Format: "nvidia-smi", Kind: "utilization", Host: "gpu-a", PeriodStart: win.Start.Add(-24 * time.Hour), PeriodEnd: win.Start.Add(time.Hour)},
		{ID: 3, Format: "focus", Kind: "billing", PeriodStart: win.Start, PeriodEnd: end.Add(-72 * time.Hour)},
		{ID: 4, Format: "prometheus", Kind: "utilization", URI: "prometheus://lab/2026-11-24", PeriodStart: win.Start.Add(24 * time.Hour), PeriodEnd: win.Start.Add(48 * time.Hour)},
		{ID: 5, Format: "prometheus", Kind: "utilization", URI: "prometheus://lab/watch/2026-11-25T10:00:00Z#partial", PeriodStart: win.Start.Add(50 * time.Hour), PeriodEnd: win.Start.Add(51 * time.Hour)},
		// Stopped 10 days before the window: kept; 40 days: gone.
		{ID: 6, Format: "dcgm", Kind: "utilization", Host: "old", PeriodStart: win.Start.AddDate(0, 0, -11), PeriodEnd: win.Start.AddDate(0, 0, -10)},
		{ID: 7, Format: "dcgm", Kind: "utilization", Host: "older", PeriodStart: win.Start.AddDate(0, 0, -41), PeriodEnd: win.Start.AddDate(0, 0, -40)},
	}
	gpus := map[int64][]string{1: {"GPU-1", "GPU-2"}, 2: {"GPU-2", "GPU-3"}, 4: {"GPU-P"}, 5: {"GPU-Q"}, 6: {"GPU-O"}, 7: {"GPU-X"}}
	type row struct {
		name, status string
		last         time.Time
		gpus         []string
	}
	want := []row{
		{"dcgm old", "ok", win.Start.AddDate(0, 0, -10), []string{"GPU-O"}},
		{"focus", "ok", time.Time{}, nil},
		{"nvidia-smi gpu-a", "ok", end.Add(-30 * time.Hour), []string{"GPU-1", "GPU-2", "GPU-3"}},
		{"prometheus lab", "ok", win.Start.Add(51 * time.Hour), []string{"GPU-P", "GPU-Q"}},
	}
	var got []row
	for _, s := range sourceStatuses(srcs, gpus, win) {
		got = append(got, row{s.Name, s.Status, s.LastSample, s.GPUs})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sourceStatuses:\n got %v\nwant %v", got, want)
	}
}

// TestAddSourcesOneRow: a configured telemetry source this run read is one
// row of the box, with what the database knows of it (its last sample, its
// GPUs), not the run's glob "ok" and the database's host "stale" beside it
// (issue #33); a group no source or several sources could be stays a row
// of its own.
func TestAddSourcesOneRow(t *testing.T) {
	end := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	win := analysis.Window{Start: end.AddDate(0, 0, -7), End: end}
	last := end.Add(-50 * time.Hour)
	db := []analysis.SourceStatus{
		{Name: "focus", Kind: "billing", Status: "ok"},
		{Name: "nvidia-smi gpu-a", Kind: "utilization", Status: "ok", LastSample: last, GPUs: []string{"GPU-1"}},
		{Name: "prometheus lab", Kind: "utilization", Status: "ok", LastSample: end, GPUs: []string{"GPU-P"}},
		{Name: "dcgm gpu-b", Kind: "utilization", Status: "ok", LastSample: end, GPUs: []string{"GPU-B"}},
		{Name: "nvidia-smi gpu-c", Kind: "utilization", Status: "ok", LastSample: end, GPUs: []string{"GPU-C"}},
	}
	in := &analysis.Input{Sources: slices.Clone(db)}
	addSources(in, []Source{
		{Name: "logs/a/*.csv", Kind: "utilization", Format: "nvidia-smi", Host: "gpu-a", Files: 3},
		{Name: "prometheus lab", Kind: "utilization", Detail: "7 days"},
		// Another format on gpu-b's host: not its source.
		{Name: "logs/b/*.csv", Kind: "utilization", Format: "nvidia-smi", Host: "gpu-b", Files: 1},
		// Two sources on gpu-c: no guess.
		{Name: "logs/c1/*.csv", Kind: "utilization", Host: "gpu-c", Files: 1},
		{Name: "logs/c2/*.csv", Kind: "utilization", Host: "gpu-c", Files: 1},
	}, nil, win)
	var names []string
	for _, s := range in.Sources {
		names = append(names, s.Name)
		if s.Name == "logs/a/*.csv" && (!s.LastSample.Equal(last) || !slices.Equal(s.GPUs, []string{"GPU-1"}) ||
			s.Detail != "3 files") {
			t.Errorf("logs/a/*.csv is not merged with its group: %+v", s)
		}
	}
	want := []string{"logs/a/*.csv", "prometheus lab", "logs/b/*.csv", "logs/c1/*.csv", "logs/c2/*.csv", "dcgm gpu-b", "nvidia-smi gpu-c"}
	if !slices.Equal(names, want) {
		t.Errorf("rows %q\nwant %q", names, want)
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

// TestTeamMissing: of a run's missing sources, a team's report (and its exit
// code) keeps those its slice's box still names not ok: another team's
// failed exporter left the slice, a billing failure stayed in every one.
func TestTeamMissing(t *testing.T) {
	slice := &analysis.Result{}
	slice.DataQuality.Sources = []analysis.SourceStatus{
		{Name: "bills/", Kind: "billing", Status: "missing"},
		{Name: "logs/nlp/*.csv", Kind: "utilization", Status: "ok"},
	}
	got := TeamMissing([]string{"bills/", "logs/cv/*.csv", "logs/nlp/*.csv"}, slice)
	if want := []string{"bills/"}; !slices.Equal(got, want) {
		t.Errorf("TeamMissing = %q, want %q", got, want)
	}
}
