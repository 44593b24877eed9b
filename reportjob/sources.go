package reportjob

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/sanitize"
	"github.com/finops-oss/finops/store"
)

// Source is how one of this run's sources fared, for the data-quality box.
type Source struct {
	Name, Kind string
	Files      int
	Failed     int
	Err        error
	Partial    bool   // some of its data came (Prometheus: warnings, or some days failed)
	Detail     string // what came, when "N files" does not say it (Prometheus days)
}

// addSources puts this run's sources (when ingested is not nil) and the
// failed imports no later import made good into in's data-quality box, and
// returns the names of those missing or failed.
func addSources(in *analysis.Input, ingested []Source, failed []store.FailedImport, win analysis.Window) []string {
	var missing []string
	if ingested != nil {
		// The run's own sources say how this run's ingest went; the
		// database says which telemetry stopped, whatever this run read.
		stale := slices.DeleteFunc(slices.Clone(in.Sources), func(s analysis.SourceStatus) bool { return s.Status != "stale" })
		in.Sources = nil
		for _, s := range ingested {
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
			in.Sources = append(in.Sources, st)
		}
		in.Sources = append(in.Sources, stale...)
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
// format, and host when it has one.
func sourceGroup(s store.Source) string {
	if s.Host != "" {
		return s.Format + " " + s.Host
	}
	return s.Format
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
// stopped is still named, stale, in its data-quality box.
const staleLookback = 35 * 24 * time.Hour

// sourceStatuses groups the imported files that overlap the window by kind,
// format and host for the data-quality box.
func sourceStatuses(srcs []store.Source, win analysis.Window, staleAfter time.Duration) []analysis.SourceStatus {
	type group struct {
		files  int
		latest time.Time
		kind   string
	}
	groups := map[string]*group{}
	for _, s := range srcs {
		// Telemetry that stopped before the window is named too, as stale:
		// a source that died last week must not vanish from this week's
		// box while its GPUs read as unmonitored.
		stoppedBefore := s.Kind == "utilization" && !s.PeriodEnd.IsZero() && !s.PeriodEnd.After(win.Start) &&
			s.PeriodEnd.After(win.Start.Add(-staleLookback))
		if !inWindow(s, win) && !stoppedBefore {
			continue
		}
		name := sourceGroup(s)
		g := groups[name]
		if g == nil {
			g = &group{kind: s.Kind}
			groups[name] = g
		}
		g.files++
		if s.PeriodEnd.After(g.latest) {
			g.latest = s.PeriodEnd
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
		// Telemetry that stops long before the window ends is stale: its last
		// minutes would otherwise read as unmonitored without a word.
		if g.kind == "utilization" && g.latest.Before(win.End.Add(-staleAfter)) {
			st.Status = "stale"
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
