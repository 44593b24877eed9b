package reportjob

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/store"
)

// Source is how one of this run's sources fared, for the data-quality box.
type Source struct {
	Name, Kind string
	// Format and Host are the source's as configured ("" when detected or
	// unknown): with them a telemetry source is one row with what the
	// database knows of it (its GPUs, its last sample), not two.
	Format, Host string
	Files        int
	Failed       int
	Err          error
	Partial      bool   // some of its data came (Prometheus: warnings, or some days failed)
	Detail       string // what came, when "N files" does not say it (Prometheus days)
}

// addSources puts this run's sources (when ingested is not nil) and the
// failed imports no later import made good into in's data-quality box, and
// returns the names of those missing or failed.
func addSources(in *analysis.Input, ingested []Source, failed []store.FailedImport, win analysis.Window) []string {
	var missing []string
	if ingested != nil {
		// The run's own sources say how this run's ingest went; the
		// database's telemetry groups say what each served and when its data
		// ends, whatever this run read, for the analysis to judge staleness
		// (analysis/stale.go). A group that is one of the run's sources is
		// merged into its row: one source is one row of the box.
		db := slices.DeleteFunc(slices.Clone(in.Sources), func(s analysis.SourceStatus) bool { return s.Kind != "utilization" })
		merged := mergeGroups(db, ingested)
		in.Sources = nil
		for i, s := range ingested {
			// The data-quality box is uploaded and emailed: no address in
			// it may carry a password (sanitize.URLs).
			name := sanitize.URLs(s.Name)
			st := analysis.SourceStatus{Name: name, Kind: s.Kind, Status: "ok",
				Detail: fmt.Sprintf("%d files", s.Files)}
			if s.Detail != "" {
				st.Detail = s.Detail
			}
			if s.Err != nil {
				st.Status, st.Detail = "missing", sanitize.URLs(s.Err.Error())
				if s.Partial || s.Files > s.Failed && s.Failed > 0 {
					st.Status = "partial"
				}
				missing = append(missing, name)
			}
			if g, ok := merged[i]; ok {
				st.LastSample, st.GPUs = g.LastSample, g.GPUs
			}
			in.Sources = append(in.Sources, st)
		}
		named := map[string]bool{}
		for _, g := range merged {
			named[g.Name] = true
		}
		for _, g := range db {
			if !named[g.Name] {
				in.Sources = append(in.Sources, g)
			}
		}
	}
	for _, st := range failedStatuses(failed, win, ingested) {
		in.Sources = append(in.Sources, st)
		missing = append(missing, st.Name)
	}
	return missing
}

// failedLookback is how long before a report's window a failed import is
// still named in its data-quality box: a bill of last month that did not
// import still leaves this month's report without its lines.
const failedLookback = 31 * 24 * time.Hour

// failedStatuses words the failed imports no later import made good (a
// delivery with a bad file, a file refused for overlapping another) for
// the data-quality box; each makes the report partial (exit 3). A failure
// this run's own sources already name is not named twice.
func failedStatuses(failed []store.FailedImport, win analysis.Window, ingested []Source) []analysis.SourceStatus {
	var out []analysis.SourceStatus
	for _, f := range failed {
		if f.At.Before(win.Start.Add(-failedLookback)) {
			continue
		}
		named := false
		for _, s := range ingested {
			if s.Err != nil && strings.Contains(s.Err.Error(), f.URI) {
				named = true
			}
		}
		if named {
			continue
		}
		out = append(out, analysis.SourceStatus{Name: sanitize.URLs(f.URI), Kind: "billing", Status: "failed",
			Detail: sanitize.URLs(fmt.Sprintf("did not import (%s): %s", f.At.Format(time.RFC3339), f.Error))})
	}
	return out
}

// inWindow reports whether an imported file's data overlaps the window.
func inWindow(s store.Source, win analysis.Window) bool {
	return !s.PeriodStart.IsZero() && s.PeriodStart.Before(win.End) && s.PeriodEnd.After(win.Start)
}

// sourceGroup is the data-quality box's name for a file's source: its
// format, and host when it has one. A Prometheus server's days are named by
// the server (prometheus://<name>/<day>): "prometheus <name>", as the run
// names it (telemetry.ServerName), so each server is judged on its own.
func sourceGroup(s store.Source) string {
	if h := groupHost(s); h != "" {
		return s.Format + " " + h
	}
	return s.Format
}

// groupHost is a file's host, or the Prometheus server that gave it.
func groupHost(s store.Source) string {
	if s.Host != "" {
		return s.Host
	}
	if rest, ok := strings.CutPrefix(s.URI, "prometheus://"); ok {
		rest, _, _ = strings.Cut(rest, "#")
		if i := strings.Index(rest, "/watch/"); i >= 0 {
			return rest[:i]
		}
		if i := strings.LastIndex(rest, "/"); i > 0 {
			return rest[:i]
		}
	}
	return ""
}

// mergeGroups pairs the database's telemetry groups with this run's
// sources (index into ingested → its group): the same name (a Prometheus
// server), or the same host, and format where the source names one. A
// pairing is made only where it is one to one: a source whose files the
// database keeps under several groups (or a group several sources could
// have written) stays as it is, two rows rather than a guess.
func mergeGroups(db []analysis.SourceStatus, ingested []Source) map[int]analysis.SourceStatus {
	match := func(g analysis.SourceStatus, s Source) bool {
		if s.Kind != "" && s.Kind != "utilization" {
			return false
		}
		if g.Name == s.Name {
			return true
		}
		format, host, _ := strings.Cut(g.Name, " ") // sourceGroup: "format host"
		return s.Host != "" && strings.EqualFold(host, s.Host) && (s.Format == "" || s.Format == format)
	}
	out := map[int]analysis.SourceStatus{}
	for _, g := range db {
		var idx []int
		for i, s := range ingested {
			if match(g, s) {
				idx = append(idx, i)
			}
		}
		if len(idx) != 1 {
			continue
		}
		groups := 0
		for _, h := range db {
			if match(h, ingested[idx[0]]) {
				groups++
			}
		}
		if groups == 1 {
			out[idx[0]] = g
		}
	}
	return out
}

// droppedSamples sums, per source, the telemetry readings ingest dropped
// from the files overlapping the window.
func droppedSamples(srcs []store.Source, win analysis.Window) []analysis.DroppedSamples {
	by := map[string]int{}
	for _, s := range srcs {
		if s.SamplesDropped > 0 && inWindow(s, win) {
			by[sourceGroup(s)] += s.SamplesDropped
		}
	}
	var out []analysis.DroppedSamples
	for _, n := range slices.Sorted(maps.Keys(by)) {
		out = append(out, analysis.DroppedSamples{Source: n, Samples: by[n]})
	}
	return out
}

// ingestWarnings words the stored warnings of the window's files for the
// data-quality box, and how many more each file had than were kept (the same
// files: store.Warnings chose them).
func ingestWarnings(warns []store.Warning) []string {
	var out []string
	kept, total := map[string]int{}, map[string]int{}
	var uris []string
	for _, w := range warns {
		out = append(out, w.String())
		if kept[w.URI] == 0 {
			uris = append(uris, w.URI)
		}
		kept[w.URI]++
		total[w.URI] = w.FileTotal
	}
	for _, u := range uris {
		if more := total[u] - kept[u]; more > 0 {
			out = append(out, fmt.Sprintf("%s: %d more warnings like these", u, more))
		}
	}
	return out
}

// staleLookback is how long before a report's window a telemetry source that
// stopped is still in its data-quality box, for the analysis to judge it
// stale where what it served is still billed.
const staleLookback = 35 * 24 * time.Hour

// staleSince is the earliest end of a telemetry file sourceStatuses reads.
func staleSince(win analysis.Window) time.Time { return win.Start.Add(-staleLookback) }

// sourceStatuses groups the imported files that overlap the window by kind,
// format and host for the data-quality box. Each telemetry group carries its
// last sample and the GPUs its files reported (gpus: store.SourceGPUs by
// source id): whether it is stale is the analysis's to say, per resource
// against billing (analysis/stale.go), so every group starts ok.
func sourceStatuses(srcs []store.Source, gpus map[int64][]string, win analysis.Window) []analysis.SourceStatus {
	type group struct {
		files  int
		latest time.Time
		kind   string
		gpus   map[string]bool
	}
	groups := map[string]*group{}
	for _, s := range srcs {
		// Telemetry that stopped before the window is named too: a source
		// that died last week must not vanish from this week's box while
		// the GPUs it served are billed and read as unmonitored.
		stoppedBefore := s.Kind == "utilization" && !s.PeriodEnd.IsZero() && !s.PeriodEnd.After(win.Start) &&
			s.PeriodEnd.After(staleSince(win))
		if !inWindow(s, win) && !stoppedBefore {
			continue
		}
		name := sourceGroup(s)
		g := groups[name]
		if g == nil {
			g = &group{kind: s.Kind, gpus: map[string]bool{}}
			groups[name] = g
		}
		g.files++
		if s.PeriodEnd.After(g.latest) {
			g.latest = s.PeriodEnd
		}
		for _, k := range gpus[s.ID] {
			g.gpus[k] = true
		}
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []analysis.SourceStatus
	for _, n := range names {
		g := groups[n]
		st := analysis.SourceStatus{Name: n, Kind: g.kind, Status: "ok",
			Detail: fmt.Sprintf("%d files, data until %s", g.files, g.latest.Format(time.RFC3339))}
		if g.kind == "utilization" {
			st.LastSample, st.GPUs = g.latest, slices.Sorted(maps.Keys(g.gpus))
		}
		out = append(out, st)
	}
	return out
}

// periodChanges words the deliveries that replaced an earlier one of their
// billing period and lost money or charges (store.PeriodChange) for the
// data-quality box: a drop beyond maxDrop (thresholds.max_restatement_drop)
// as a partial source, which makes the report incomplete (exit 3), a
// smaller one as a warning. A run that only grew is the normal month to
// date and is not named.
func periodChanges(changes []store.PeriodChange, maxDrop float64) (warnings []string, partial []analysis.SourceStatus) {
	for _, c := range changes {
		if !c.Dropped() {
			continue
		}
		// The run, not a file: a run's unchanged file keeps the name it
		// was first imported under, an older run's path.
		name := sanitize.URLs("run " + c.New + " of " + c.Period)
		if c.Beyond(maxDrop) {
			partial = append(partial, analysis.SourceStatus{Name: name, Kind: "billing", Status: "partial",
				Detail: sanitize.URLs(fmt.Sprintf("%s — more than thresholds.max_restatement_drop (%.0f %%) below the run it replaced",
					c, 100*maxDrop))})
			continue
		}
		warnings = append(warnings, name+": "+sanitize.URLs(c.String()))
	}
	return warnings, partial
}
