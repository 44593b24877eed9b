package rollup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/report"
)

// Shard is one finops' JSON summary, decoded, under the name the rollup
// shows it by.
type Shard struct {
	Name   string
	Path   string
	Result analysis.Result
	// Dropped names, as JSON paths ("energy", "by_team[].advice_id"),
	// the parts of the file that hold a value and that the rollup does
	// not carry into the combined result (docs/ROLLUP.md): the sections
	// it does not combine, and any key this finops does not know. They
	// become one warning.
	Dropped []string
	// SHA256 is the hash of the file's bytes: the same summary given
	// twice, under two names or through a link, is refused (checkDistinct).
	SHA256 [sha256.Size]byte
	// DatabaseID is the summary's source.database_id, the id of the
	// database it was reported from (store.DatabaseID); "" when it has
	// none (a rollup's, or an older finops'). Two summaries of one
	// database and period are refused (checkDistinct).
	DatabaseID string
}

// Error is a shard the rollup refuses: not a summary, a schema it cannot
// read, or shards that do not go together. cmd/finops makes it a usage
// error: the fix is in the files or flags given.
type Error struct{ msg string }

func (e *Error) Error() string { return "rollup: " + e.msg }

func refuse(format string, args ...any) error { return &Error{msg: fmt.Sprintf(format, args...)} }

// NameOf is the name a shard file gets without --name: its file name
// without the .json extension.
func NameOf(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".json")
}

// defaultNames names shard files given without --name: by file name, or,
// where two files share one (every shard's report is finops-<period>.json),
// by the folder each lies in (eu/finops-2026-W48.json is eu). Names that
// still collide are refused later (checkNames), asking for --name.
func defaultNames(paths []string) []string {
	names := make([]string, len(paths))
	count := map[string]int{}
	for i, p := range paths {
		names[i] = NameOf(p)
		count[names[i]]++
	}
	for i, p := range paths {
		if count[names[i]] < 2 {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			if dir := filepath.Base(filepath.Dir(abs)); dir != "" && dir != "/" && dir != "." {
				names[i] = dir
			}
		}
	}
	return names
}

// Read reads one shard file named name. The file must be a JSON summary of
// `finops report --format json` with a schema_version this finops writes
// (report.JSONSchemaVersion), a regular file of at most MaxShardBytes
// (readShardFile), with no key twice in one object and totals its parts
// add up to (checkParts).
func Read(ctx context.Context, path, name string) (Shard, error) {
	b, err := readShardFile(ctx, path, name)
	if err != nil {
		return Shard{}, err
	}
	s, err := Decode(b, name)
	if err != nil {
		return Shard{}, err
	}
	s.Path = path
	return s, nil
}

// Decode decodes one shard's summary bytes (Read without the file).
func Decode(b []byte, name string) (Shard, error) {
	notSummary := func(why string) error {
		return refuse("shard %s is not a finops JSON summary (%s): give the files `finops report --format json` writes", name, why)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil || top == nil {
		return Shard{}, notSummary("not a JSON object")
	}
	var gen struct {
		Name string `json:"name"`
	}
	if g, ok := top["generator"]; !ok || json.Unmarshal(g, &gen) != nil || gen.Name != "finops" {
		return Shard{}, notSummary(`no "generator": {"name": "finops"}`)
	}
	sv, ok := top["schema_version"]
	if !ok {
		return Shard{}, refuse("shard %s has no schema_version: it was not written by `finops report --format json` of a "+
			"finops this one can read; report the shard again with this finops", name)
	}
	var version string
	if err := json.Unmarshal(sv, &version); err != nil || version != report.JSONSchemaVersion {
		return Shard{}, refuse("shard %s has schema_version %s, and this finops reads version %q only: "+
			"report every shard with the same finops version as the rollup", name, strings.TrimSpace(string(sv)), report.JSONSchemaVersion)
	}
	// encoding/json keeps the last of two equal keys: a second "cost"
	// would stand in for the first unseen, so no key may appear twice.
	if err := checkDuplicateKeys(b); err != nil {
		return Shard{}, refuse("shard %s: %v: a summary finops writes has each key once; report the shard again "+
			"with `finops report --format json`", name, err)
	}
	for _, k := range []string{"period", "currency", "totals", "by_team", "by_resource", "data_quality"} {
		if _, ok := top[k]; !ok {
			return Shard{}, notSummary("no " + k)
		}
	}
	var r analysis.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return Shard{}, notSummary(err.Error())
	}
	var src struct {
		DatabaseID string `json:"database_id"`
	}
	if raw, ok := top["source"]; ok {
		if err := json.Unmarshal(raw, &src); err != nil {
			return Shard{}, notSummary("source: " + err.Error())
		}
	}
	if r.Currency == "" {
		return Shard{}, notSummary("no currency")
	}
	if !r.Period.Start.Before(r.Period.End) {
		return Shard{}, notSummary("its period does not end after it starts")
	}
	dropped, err := droppedKeys(b, carried(&r))
	if err != nil {
		return Shard{}, notSummary(err.Error())
	}
	if err := checkParts(name, &r); err != nil {
		return Shard{}, err
	}
	sort.Strings(dropped)
	return Shard{Name: name, Result: r, Dropped: slices.Compact(dropped), SHA256: sha256.Sum256(b),
		DatabaseID: src.DatabaseID}, nil
}

// carried is what Combine carries of r into the rollup. Where Combine
// rebuilds a struct (totals, teams, data quality) the fields it combines are
// copied one by one, so a field added to one of them later is not carried
// until Combine combines it; the lists Combine concatenates are carried
// whole (TestRollupConvertsEveryAmount guards their money). Sections it
// does not combine (pools, watch, allocation, chargeback, energy, a
// rollup's own shards, and whatever is added to Result later) are left out.
func carried(r *analysis.Result) analysis.Result {
	t, q := r.Totals, r.DataQuality
	teams := make([]analysis.TeamCost, len(r.ByTeam))
	for i, tc := range r.ByTeam {
		teams[i] = analysis.TeamCost{Team: tc.Team, Cost: tc.Cost, GPUCost: tc.GPUCost, IdleCost: tc.IdleCost, Budget: tc.Budget,
			PreviousCost: tc.PreviousCost, MonthToDate: tc.MonthToDate, MonthForecast: tc.MonthForecast,
			GPUHoursBilled: tc.GPUHoursBilled, GPUHoursMonitored: tc.GPUHoursMonitored}
	}
	return analysis.Result{Period: r.Period, Currency: r.Currency,
		Totals: analysis.Totals{Cost: t.Cost, GPUCost: t.GPUCost, NonGPUCost: t.NonGPUCost, OtherCharges: t.OtherCharges,
			GPUHoursBilled: t.GPUHoursBilled, GPUHoursActive: t.GPUHoursActive, GPUHoursIdle: t.GPUHoursIdle,
			GPUHoursUnmonitored: t.GPUHoursUnmonitored, IdleCost: t.IdleCost, UnmonitoredCost: t.UnmonitoredCost,
			UnallocatedCost: t.UnallocatedCost, AllocatedIdleCost: t.AllocatedIdleCost, UnusedCommitmentCost: t.UnusedCommitmentCost,
			AvgGPUUtilization: t.AvgGPUUtilization, MonthlySavings: t.MonthlySavings, PreviousCost: t.PreviousCost},
		ByTeam: teams, ByResource: r.ByResource, Tasks: r.Tasks, Recommendations: r.Recommendations, IdleSpans: r.IdleSpans,
		Findings: r.Findings,
		DataQuality: analysis.DataQuality{Sources: q.Sources, RowsRejected: q.RowsRejected, UnmonitoredShare: q.UnmonitoredShare,
			Coverage: q.Coverage, MinCoverage: q.MinCoverage, Incomplete: q.Incomplete, Warnings: q.Warnings, Clipped: q.Clipped,
			UnmatchedGPUs: q.UnmatchedGPUs, UnmatchedResources: q.UnmatchedResources, SamplesDropped: q.SamplesDropped},
	}
}

// droppedKeys lists the keys of the file, as JSON paths ("energy",
// "by_team[].advice_id"), that hold a value (not null, 0, "", [] or {}) and
// that kept, what the rollup carries, does not: the sections it does not
// combine, and what a newer finops added that this one's analysis.Result
// does not have. Decoding and combining drop them; the rollup names them.
func droppedKeys(b []byte, kept analysis.Result) ([]string, error) {
	var raw any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	enc, err := json.Marshal(&kept)
	if err != nil {
		return nil, err
	}
	var k any
	dec = json.NewDecoder(bytes.NewReader(enc))
	dec.UseNumber()
	if err := dec.Decode(&k); err != nil {
		return nil, err
	}
	// What the file is (its schema and generator) Decode has checked, and
	// where it came from (source) Combine has.
	if m, ok := raw.(map[string]any); ok {
		delete(m, "schema_version")
		delete(m, "generator")
		delete(m, "source")
	}
	var out []string
	walkUnknown("", raw, k, &out)
	return out, nil
}

func walkUnknown(path string, raw, kept any, out *[]string) {
	switch rv := raw.(type) {
	case map[string]any:
		kv, _ := kept.(map[string]any)
		for k, v := range rv {
			if empty(v) {
				continue
			}
			p := k
			if path != "" {
				p = path + "." + k
			}
			sub, ok := kv[k]
			if !ok || empty(sub) {
				*out = append(*out, p)
				continue
			}
			walkUnknown(p, v, sub, out)
		}
	case []any:
		kv, _ := kept.([]any)
		for i := range min(len(rv), len(kv)) {
			walkUnknown(path+"[]", rv[i], kv[i], out)
		}
	}
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// IsRefusal reports whether err is the rollup refusing its input.
func IsRefusal(err error) bool { return errors.As(err, new(*Error)) }

// Load reads the shard files, each named by names in order (the --name
// flags: one per file, or none, and then each is named by its file).
func Load(ctx context.Context, paths, names []string) ([]Shard, error) {
	if len(paths) == 0 {
		return nil, refuse("no shard summaries: give the JSON files of `finops report --format json`")
	}
	if len(names) != 0 && len(names) != len(paths) {
		return nil, refuse("--name is given %d times for %d files: give one per file, in the order of the files, or none "+
			"(each shard is then named by its file)", len(names), len(paths))
	}
	out := make([]Shard, 0, len(paths))
	defaults := defaultNames(paths)
	for i, p := range paths {
		name := defaults[i]
		if len(names) > 0 {
			name = strings.TrimSpace(names[i])
		}
		s, err := Read(ctx, p, name)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
