package deliver

import "github.com/finops-oss/finops/internal/analysis"

// nothingToTell reports whether a team's slice of the period (analysis.Result.ForTeam)
// has nothing to tell the team: no cost in the window nor in the period
// before it, no advice to act on, no finding, no advice done to report on,
// nothing the watch did, and no reason its numbers may be incomplete. Such a
// team gets neither an email nor a chat digest: teamPages, which both stages
// ask for a team's files, leaves it out, so the two cannot disagree.
func nothingToTell(slice *analysis.Result) bool {
	if len(slice.ByTeam) != 1 {
		return false
	}
	tc := slice.ByTeam[0]
	if tc.Cost != 0 || tc.PreviousCost != 0 || len(slice.Findings) > 0 || len(slice.DataQuality.Incomplete) > 0 {
		return false
	}
	for _, rec := range slice.Recommendations {
		if rec.Action != analysis.ActionKeep {
			return false
		}
	}
	if a := slice.Advice; a != nil && (a.Done > 0 || len(a.Realised) > 0) {
		return false
	}
	if w := slice.Watch; w != nil && (len(w.Alerts) > 0 || len(w.Actions) > 0) {
		return false
	}
	return true
}
