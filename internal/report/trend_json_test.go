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

// TestEachMoneyVisitsTheTrend: the rollup converts a shard's currency with
// EachMoney, as the JSON rounds; the weekly history is in its walk, its unit
// costs as costs per unit, and the caller's history is left alone.
func TestEachMoneyVisitsTheTrend(t *testing.T) {
	r := trendResult(t)
	before := r.Trend
	var perUnit []float64
	EachMoney(r, func(v *float64, unit bool) {
		if unit {
			perUnit = append(perUnit, *v)
		}
		*v *= 2
	})
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		// W47: 4160 + 340 = 4500, doubled 9000; idle 750 + 80 = 830, doubled 1660.
		{"W47 cost", r.Trend.Weeks[4].Cost, 9000},
		{"W47 idle cost", r.Trend.Weeks[4].IdleCost, 1660},
		// ml-train's 3 runs: 3000 doubled 6000, 1000 a run doubled 2000.
		{"ml-train's runs", r.Trend.Weeks[4].Teams[0].UnitCosts[0].Cost, 6000},
		{"ml-train per run", r.Trend.Weeks[4].Teams[0].UnitCosts[0].UnitCost, 2000},
		{"gpu-a100-1 idle in W47", r.Trend.Weeks[4].Resources[0].IdleCost, 1500},
		// total mover: mean 3490 doubled 6980, change 1010 doubled 2020.
		{"total mover mean", r.Trend.TotalMover.Mean, 6980},
		{"total mover change", r.Trend.TotalMover.Change, 2020},
		{"top mover cost", r.Trend.TopMovers[0].Cost, 8320},
		// a share is not money: 1010 / 3490 either way.
		{"total mover change pct", *r.Trend.TotalMover.ChangePct, 1010.0 / 3490},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	// Only W47's one unit cost (1000 a run) is a cost per unit of the history;
	// the task's (handResult) comes before it.
	if len(perUnit) == 0 || perUnit[len(perUnit)-1] != 1000 {
		t.Errorf("costs per unit visited %v, want the history's 1000 a run last", perUnit)
	}
	if before.Weeks[4].Cost != 4500 || before.Weeks[4].Teams[0].UnitCosts[0].UnitCost != 1000 || before.TotalMover.Mean != 3490 {
		t.Error("EachMoney changed the history it was given, not a copy")
	}
}
