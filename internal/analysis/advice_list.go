package analysis

import (
	"fmt"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/spelling"
)

// AdviceEntry is one piece of advice as `finops advice list` shows it.
type AdviceEntry struct {
	Recommendation
	Decision *AdviceDecision // its current decision; nil when none
	Open     bool            // no decision, or a snooze that has passed at the list's moment
}

// AdviceList pairs recommendations (as Analyze gives them without decisions)
// with their current decisions at t: the open advice, and with all the
// decided advice too. keep is never listed: it asks for nothing.
func AdviceList(recs []Recommendation, decisions []AdviceDecision, t time.Time, all bool) []AdviceEntry {
	byID := map[string]*AdviceDecision{}
	for i := range decisions {
		byID[decisions[i].ID] = &decisions[i]
	}
	var out []AdviceEntry
	for _, rec := range recs {
		if rec.ID == "" {
			rec.ID = AdviceID(rec.ResourceID, rec.Action)
		}
		if rec.ID == "" {
			continue
		}
		d := byID[rec.ID]
		e := AdviceEntry{Recommendation: rec, Decision: d, Open: AdviceOpen(d, t)}
		if e.Open || all {
			out = append(out, e)
		}
	}
	return out
}

// FindAdvice is the entry whose id is id (as typed: case and the "adv-"
// prefix do not matter). Unknown, it refuses naming the nearest id, else the
// open ones, so a typo is corrected without a second command.
func FindAdvice(entries []AdviceEntry, id string) (*AdviceEntry, error) {
	want := NormalizeAdviceID(id)
	var ids, open []string
	for i := range entries {
		if entries[i].ID == want {
			return &entries[i], nil
		}
		ids = append(ids, entries[i].ID)
		if entries[i].Open {
			open = append(open, entries[i].ID)
		}
	}
	if near := spelling.Nearest(want, ids); near != "" {
		return nil, fmt.Errorf("analysis: no advice %q in this window: did you mean %s?", id, near)
	}
	if len(open) == 0 {
		return nil, fmt.Errorf("analysis: no advice %q in this window, and none is open: see `finops advice list --all`", id)
	}
	return nil, fmt.Errorf("analysis: no advice %q in this window; open advice: %s", id, strings.Join(open, ", "))
}
