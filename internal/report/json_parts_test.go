package report

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
)

// TestJSONPartsAddUpGenerated: in the JSON summary the teams' costs add up
// to totals.cost, the resources' to totals.gpu_cost and gpu_cost +
// non_gpu_cost to cost, to the minor unit, as `finops rollup` checks
// (rollup.checkParts); and no part is more than one minor unit from its
// own rounding. Seeded random results: parts of fractional minor units
// (a GPU-minute's price is a fraction of a cent) whose exact sums are the
// totals, in currencies of 0, 2 and 3 decimals. The sums are checked in
// integers from the written numbers, not with the writer's arithmetic.
// Parts that disagree with their total by a minor unit or more are written
// as they are, not made to agree.
func TestJSONPartsAddUpGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	for n := range 500 {
		cur := []string{"USD", "JPY", "KWD", "CNY"}[rng.Intn(4)]
		unit := map[string]float64{"USD": 100, "JPY": 1, "KWD": 1000, "CNY": 100}[cur]
		r := &analysis.Result{Currency: cur}
		var gpu, cost float64
		for i := range rng.Intn(8) {
			v := rng.Float64() * 5000
			gpu += v
			r.ByResource = append(r.ByResource, analysis.ResourceCost{ResourceID: string(rune('a' + i)), Cost: v})
		}
		// The teams split the GPU cost and add non-GPU amounts (credits too).
		left := gpu
		for i := range 1 + rng.Intn(6) {
			share := left * rng.Float64()
			if i == 0 {
				share = left
			}
			left -= share
			v := share + rng.Float64()*300 - 50
			cost += v
			r.ByTeam = append(r.ByTeam, analysis.TeamCost{Team: string(rune('A' + i)), Cost: v})
		}
		r.ByTeam[0].Cost += left
		cost += left
		r.Totals = analysis.Totals{Cost: cost, GPUCost: gpu, NonGPUCost: cost - gpu}
		doc := written(t, r)
		m := func(v float64) int64 { return int64(math.Round(v * unit)) }
		var teams, resources int64
		for i, tc := range doc.ByTeam {
			teams += m(tc.Cost)
			if d := math.Abs(tc.Cost*unit - r.ByTeam[i].Cost*unit); d >= 1 {
				t.Fatalf("case %d: team %s written %v, its cost %v: %.3f minor units apart", n, tc.Team, tc.Cost, r.ByTeam[i].Cost, d)
			}
		}
		for i, rc := range doc.ByResource {
			resources += m(rc.Cost)
			if d := math.Abs(rc.Cost*unit - r.ByResource[i].Cost*unit); d >= 1 {
				t.Fatalf("case %d: resource %s written %v, its cost %v", n, rc.ResourceID, rc.Cost, r.ByResource[i].Cost)
			}
		}
		total, g, non := m(doc.Totals.Cost), m(doc.Totals.GPUCost), m(doc.Totals.NonGPUCost)
		if teams != total || (len(doc.ByResource) > 0 && resources != g) || g+non != total {
			t.Fatalf("case %d (%s): total %d, teams %d; gpu %d, resources %d; non-GPU %d", n, cur, total, teams, g, resources, non)
		}
	}
	// Teams two cents off the total (an analysis that lost a charge) stay
	// off: the writer rounds, it does not reconcile.
	r := &analysis.Result{Currency: "USD", Totals: analysis.Totals{Cost: 10.00, NonGPUCost: 10.00},
		ByTeam: []analysis.TeamCost{{Team: "a", Cost: 4.004}, {Team: "b", Cost: 5.976}}}
	doc := written(t, r)
	if doc.ByTeam[0].Cost != 4 || doc.ByTeam[1].Cost != 5.98 {
		t.Errorf("teams 4.004 and 5.976 of 10.00 (2 cents short): written %v and %v, want 4.00 and 5.98", doc.ByTeam[0].Cost, doc.ByTeam[1].Cost)
	}
}

func written(t *testing.T, r *analysis.Result) analysis.Result {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r, Meta{}); err != nil {
		t.Fatal(err)
	}
	var doc analysis.Result
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}
