package rollup

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
)

// TestDecodeRefuses: a file that is not a summary of a schema this finops
// reads is refused by name, saying what to give instead.
func TestDecodeRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		body []byte
		want []string
	}{
		{"no schema_version", edited(t, euShard(), func(d map[string]any) { delete(d, "schema_version") }),
			[]string{"shard eu has no schema_version", "report the shard again"}},
		{"a newer schema", edited(t, euShard(), func(d map[string]any) { d["schema_version"] = "3" }),
			[]string{`shard eu has schema_version "3"`, `reads version "2" only`}},
		// Version 1 wrote 0 where version 2 writes null (unknown): its
		// zeros cannot be told from measured ones.
		{"the schema before unknown was null", edited(t, euShard(), func(d map[string]any) { d["schema_version"] = "1" }),
			[]string{`shard eu has schema_version "1"`, `reads version "2" only`}},
		{"a number for the schema", edited(t, euShard(), func(d map[string]any) { d["schema_version"] = 1 }),
			[]string{"shard eu has schema_version 1,"}},
		{"another program's JSON", []byte(`{"schema_version": "1", "items": []}`),
			[]string{"shard eu is not a finops JSON summary", `no "generator"`}},
		{"no totals", edited(t, euShard(), func(d map[string]any) { delete(d, "totals") }),
			[]string{"is not a finops JSON summary (no totals)"}},
		{"an array", []byte(`[1, 2]`), []string{"not a JSON object"}},
		{"not JSON", []byte("实例ID,GPU型号\n"), []string{"not a JSON object"}},
		{"a wrong type", edited(t, euShard(), func(d map[string]any) { d["by_team"] = "nlp" }),
			[]string{"is not a finops JSON summary (json: cannot unmarshal"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.body, "eu")
			if err == nil || !IsRefusal(err) {
				t.Fatalf("err %v: want a refusal", err)
			}
			containsAll(t, "error", err.Error(), c.want...)
		})
	}
}

// TestDecodeNamesWhatItDrops: keys this finops does not know (a newer
// finops' forecast, an advice id on each team) and the sections the rollup does
// not combine are named, never lost silently; empty ones are not.
func TestDecodeNamesWhatItDrops(t *testing.T) {
	r := euShard()
	r.Pools = []analysis.Pool{{Provider: "AutoDL", GPUModel: "A100", Resources: 1}}
	r.Watch = &analysis.WatchSummary{Saved: 5}
	b := edited(t, r, func(d map[string]any) {
		d["forecast"] = map[string]any{"weeks": []any{1, 2}}
		d["empty_new_section"] = []any{}
		d["by_team"].([]any)[1].(map[string]any)["advice_id"] = "adv-7"
		d["totals"].(map[string]any)["carbon_price"] = 0 // empty: nothing is lost
		d["data_quality"].(map[string]any)["exchange_rates"] = []any{map[string]any{"currency": "EUR", "rate": 1.1}}
	})
	s, err := Decode(b, "eu")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"by_team[].advice_id", "data_quality.exchange_rates", "forecast", "pools", "watch"}; !slices.Equal(s.Dropped, want) {
		t.Errorf("dropped %q, want %q", s.Dropped, want)
	}
	res, err := Combine(context.Background(), []Shard{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Shard eu: by_team[].advice_id, data_quality.exchange_rates, forecast, pools, watch not combined by the rollup (docs/ROLLUP.md): see that shard's own report"
	if !slices.Contains(res.DataQuality.Warnings, want) {
		t.Errorf("warnings %q: want %q", res.DataQuality.Warnings, want)
	}
	// A summary as finops writes it today loses nothing.
	if s, err := Decode(summaryBytes(t, euShard()), "eu"); err != nil || len(s.Dropped) != 0 {
		t.Errorf("today's summary: dropped %q, err %v", s.Dropped, err)
	}
}

// TestLoadNames: each shard is named by --name, in order, or by its file.
func TestLoadNames(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "finops-2026-W48.json", summaryBytes(t, euShard()))
	b := writeFile(t, t.TempDir(), "cn.json", summaryBytes(t, cnShard()))
	for _, c := range []struct {
		name   string
		names  []string
		want   []string
		refuse string
	}{
		{"file names", nil, []string{"finops-2026-W48", "cn"}, ""},
		{"flags", []string{"eu", "cn-north"}, []string{"eu", "cn-north"}, ""},
		{"one flag for two files", []string{"eu"}, nil, "--name is given 1 times for 2 files"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Load(context.Background(), []string{a, b}, c.names)
			if c.refuse != "" {
				if err == nil || !IsRefusal(err) {
					t.Fatalf("err %v: want a refusal", err)
				}
				containsAll(t, "error", err.Error(), c.refuse)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range got {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, c.want) {
				t.Errorf("names %q, want %q", names, c.want)
			}
		})
	}
	if _, err := Load(context.Background(), []string{dir + "/missing.json"}, nil); err == nil || !IsRefusal(err) {
		t.Errorf("a missing file: %v, want a refusal", err)
	}
	// Every shard's report is finops-<period>.json: two such files are
	// named by their folders, eu/ and cn/.
	root := t.TempDir()
	for _, sub := range []string{"eu", "cn"} {
		if err := os.Mkdir(filepath.Join(root, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	eu := writeFile(t, filepath.Join(root, "eu"), "finops-2026-W48.json", summaryBytes(t, euShard()))
	cn := writeFile(t, filepath.Join(root, "cn"), "finops-2026-W48.json", summaryBytes(t, cnShard()))
	got, err := Load(context.Background(), []string{eu, cn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Name != "eu" || got[1].Name != "cn" {
		t.Errorf("same-named files: names %q and %q, want their folders eu and cn", got[0].Name, got[1].Name)
	}
}
