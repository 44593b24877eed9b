package report

import (
	"strconv"
	"strings"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
)

// findingTitle is what a finding is called. A recommendation finding is
// titled by its advice ("Stop when idle", "Switch to hourly"), not by the
// generic "Rent-mode change": stopping a machine changes no rent mode.
func findingTitle(f analysis.Finding, recs []analysis.Recommendation) string {
	if f.Kind == analysis.FindingRecommendation {
		for _, rec := range recs {
			if rec.ResourceID == f.ResourceID && rec.Action != analysis.ActionKeep {
				return actionText(rec.Action)
			}
		}
	}
	return findingKindText(f.Kind)
}

// findingView is one line of the findings list: a finding, or several
// no-telemetry findings of similar resources folded into one.
type findingView struct {
	analysis.Finding
	Title     string
	Resources []string // the folded resources' short ids, in rank order
	Overlap   string   // why its money is not to be added to another line's
	group     string   // provider and GPU model of folded resources
}

// minNoTelemetryGroup is how many no-telemetry findings of one provider and
// GPU model become one line.
const minNoTelemetryGroup = 2

// findingViews lists r's findings as the page and the email show them: ranked
// as the analysis ranked them; no-telemetry findings of resources of one
// provider and GPU model folded into one line at the first one's place, with
// their money summed; and a resource's waste in the window and its monthly
// saving each saying that they overlap, since both count the same idle hours.
func findingViews(r *analysis.Result) []findingView {
	kindOf := map[string]string{} // resource → provider and model
	for _, rc := range r.ByResource {
		kindOf[rc.ResourceID] = rc.Provider + " " + rc.GPUModel
	}
	groupSize := map[string]int{}
	for _, f := range r.Findings {
		if f.Kind == analysis.FindingNoTelemetry && f.ResourceID != "" {
			groupSize[kindOf[f.ResourceID]]++
		}
	}

	var out []findingView
	groupAt := map[string]int{} // group → index in out
	for _, f := range r.Findings {
		v := findingView{Finding: f, Title: findingTitle(f, r.Recommendations)}
		if f.Kind == analysis.FindingNoTelemetry && f.ResourceID != "" {
			if g := kindOf[f.ResourceID]; groupSize[g] >= minNoTelemetryGroup {
				short := analysis.ShortResourceID(f.ResourceID)
				if i, ok := groupAt[g]; ok {
					out[i].Money += f.Money
					out[i].Resources = append(out[i].Resources, short)
					if severityRank(f.Severity) < severityRank(out[i].Severity) {
						out[i].Severity = f.Severity
					}
					continue
				}
				groupAt[g] = len(out)
				v.Resources, v.group = []string{short}, g
				v.Team = ""
			}
		}
		out = append(out, v)
	}
	for i := range out {
		if n := len(out[i].Resources); n > 0 {
			out[i].ResourceID = ""
			out[i].Text = strconv.Itoa(n) + " " + strings.TrimSpace(out[i].group) + " resources have no utilization data (" +
				listShort(out[i].Resources, 5) + "): " +
				amount.Rounded(r.Currency, out[i].Money) + " of GPU time cannot be judged; add their hosts to the telemetry sources"
		}
	}
	markOverlaps(out)
	return out
}

// markOverlaps notes, on each finding about a resource's idle time in the
// window and on that resource's monthly-saving finding, that the two count
// the same idle hours: the saving is what stopping that waste is worth a
// month, not more money on top of it.
func markOverlaps(vs []findingView) {
	for i := range vs {
		if vs[i].Kind != analysis.FindingRecommendation || vs[i].ResourceID == "" {
			continue
		}
		for j := range vs {
			if !idleKind(vs[j].Kind) || vs[j].ResourceID != vs[i].ResourceID {
				continue
			}
			vs[i].Overlap = "Overlaps " + lineRef(j, vs[j].Title) + ": the same idle hours; this is what removing them saves a month."
			vs[j].Overlap = "Overlaps " + lineRef(i, vs[i].Title) + ": that monthly saving comes from these idle hours; do not add the two."
		}
	}
}

// idleKind reports whether a finding's money is idle GPU time in the window.
func idleKind(kind string) bool {
	switch kind {
	case analysis.FindingForgotten, analysis.FindingAllocatedIdle, analysis.FindingUnallocated:
		return true
	}
	return false
}

func lineRef(i int, title string) string {
	return "#" + strconv.Itoa(i+1) + " (" + title + ")"
}

// listShort lists up to max names, then "and N more".
func listShort(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:max], ", ") + " and " + strconv.Itoa(len(names)-max) + " more"
}

// resource names what a finding is about for a title: "3 resources" for a
// folded group, else the resource's short id ("" for a team's finding).
func (v findingView) resource() string {
	if n := len(v.Resources); n > 0 {
		return strconv.Itoa(n) + " resources"
	}
	return analysis.ShortResourceID(v.ResourceID)
}
