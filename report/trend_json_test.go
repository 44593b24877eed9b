package report

import (
	"testing"
)

// TestTrendJSON: the history is written as "trend", valid against the
// schema, money rounded to cents, the movers' shares left alone, and an
// absent history writes no key.
func TestTrendJSON(t *testing.T) {
	sch := reportSchema(t)
	r := trendResult(t)
	r.Trend.TotalMover.Change = 1010.004 // rounds to 1010
	m, raw := decodeJSON(t, r)
	if err := validateJSON(sch, raw); err != nil {
		t.Fatalf("trend does not match the schema: %v", err)
	}
	tr, ok := m["trend"].(map[string]any)
	if !ok {
		t.Fatalf("no trend object in %s", raw)
	}
	weeks := tr["weeks"].([]any)
	if len(weeks) != 5 {
		t.Fatalf("%d weeks, want 5", len(weeks))
	}
	last := weeks[4].(map[string]any)
	if last["label"] != "2026-W47" || last["cost"] != 4500.0 || last["anomaly"] != "above_range" {
		t.Errorf("last week %v, want 2026-W47 costing 4500, above range", last)
	}
	if first := weeks[0].(map[string]any); first["idle_lower_bound"] != true || first["anomaly"] != "not_enough_history" {
		t.Errorf("first week %v, want its idle a lower bound, not enough history", first)
	}
	tm := tr["total_mover"].(map[string]any)
	// 1010 / 3490 = 0.28939828...: a share, not rounded to cents.
	if tm["change"] != 1010.0 || tm["change_pct"].(float64) < 0.289398 || tm["change_pct"].(float64) > 0.289399 {
		t.Errorf("total mover %v, want change 1010, change_pct 0.2893983", tm)
	}
	if got := tr["absent_weeks"].([]any); len(got) != 3 {
		t.Errorf("absent weeks %v, want W40–W42", got)
	}
	if r.Trend.TotalMover.Change != 1010.004 {
		t.Error("WriteJSON changed the caller's result")
	}

	// Not enough history: the movers are null and empty lists, still valid.
	r = trendResult(t)
	r.Trend.EnoughHistory, r.Trend.TotalMover, r.Trend.TeamMovers, r.Trend.ResourceMovers, r.Trend.TopMovers = false, nil, nil, nil, nil
	m, raw = decodeJSON(t, r)
	if err := validateJSON(sch, raw); err != nil {
		t.Fatalf("trend without movers does not match the schema: %v", err)
	}
	tr = m["trend"].(map[string]any)
	if tr["total_mover"] != nil || len(tr["top_movers"].([]any)) != 0 {
		t.Errorf("movers without history: %v and %v, want null and []", tr["total_mover"], tr["top_movers"])
	}

	m, _ = decodeJSON(t, emptyResult())
	if _, ok := m["trend"]; ok {
		t.Error("a result without history writes a trend key")
	}
}
