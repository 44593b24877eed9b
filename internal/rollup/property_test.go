package rollup

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops/internal/analysis"
)

// genShard is a generated shard as whole minor units, the numbers the
// test's own sums use: its teams' costs, each the sum of its GPU
// resources' costs and a non-GPU amount (negative for a credit).
type genShard struct {
	fromUnit float64
	teams    map[string]int64
	gpu      int64
	total    int64
	res      analysis.Result
}

// generate builds a shard of 1–4 teams, each with 0–3 GPU resources, in
// currency (unit minor units to one), every amount whole minor units.
func generate(rng *rand.Rand, currency string, unit float64) genShard {
	names := []string{"nlp", "vision", "speech", "infra", "unassigned"}
	ids := []string{"gpu-a", "gpu-b", "gpu-c", "gpu-d", "gpu-e", "gpu-f"}
	g := genShard{teams: map[string]int64{}}
	r := analysis.Result{Period: week, Currency: currency}
	for {
		rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		g = genShard{teams: map[string]int64{}}
		r.ByTeam, r.ByResource = nil, nil
		for _, team := range names[:1+rng.Intn(4)] {
			var cost int64
			for range rng.Intn(4) {
				c := rng.Int63n(500_000)
				cost += c
				g.gpu += c
				r.ByResource = append(r.ByResource, analysis.ResourceCost{ResourceID: ids[rng.Intn(len(ids))], Team: team,
					Cost: float64(c) / unit})
			}
			cost += rng.Int63n(60_000) - 10_000 // non-GPU: a credit now and then
			g.teams[team] = cost
			g.total += cost
			r.ByTeam = append(r.ByTeam, analysis.TeamCost{Team: team, Cost: float64(cost) / unit})
		}
		if g.total >= 0 {
			break
		}
	}
	r.Totals = analysis.Totals{Cost: float64(g.total) / unit, GPUCost: float64(g.gpu) / unit,
		NonGPUCost: float64(g.total-g.gpu) / unit}
	g.res = r
	return g
}

// tamper moves one amount of the summary b (a total or a part) by ±k minor
// units, k ≥ 1, and says which.
func tamper(t *testing.T, rng *rand.Rand, b []byte, unit float64) ([]byte, string) {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	k := float64(1 + rng.Intn(3))
	if rng.Intn(4) == 0 {
		k = float64(1 + rng.Intn(100_000))
	}
	if rng.Intn(2) == 0 {
		k = -k
	}
	var fields []map[string]any
	var what []string
	for _, f := range []string{"cost", "gpu_cost", "non_gpu_cost"} {
		fields, what = append(fields, totals(d)), append(what, "totals."+f)
	}
	for i := range d["by_team"].([]any) {
		fields, what = append(fields, team(d, i)), append(what, fmt.Sprintf("by_team[%d].cost", i))
	}
	for i := range d["by_resource"].([]any) {
		fields, what = append(fields, resource(d, i)), append(what, fmt.Sprintf("by_resource[%d].cost", i))
	}
	i := rng.Intn(len(fields))
	key := what[i][strings.LastIndex(what[i], ".")+1:]
	v, _ := fields[i][key].(float64)
	fields[i][key] = (math.Round(v*unit) + k) / unit
	out, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return out, fmt.Sprintf("%s %+g minor units", what[i], k)
}

// TestRollupCountsEachShardOnceGenerated: the invariant "a shard counts
// once and only as what its parts add up to", on seeded random sets of
// shards. Each set is 1–5 distinct generated shards, written as
// `finops report --format json` writes them; then, at random, a shard is
// given again (the same path, a link, or a copy under another name) and
// one amount of a shard (a total or a part) is moved by a minor unit or
// more. The rollup must refuse exactly when a shard is given twice or
// moved, naming it; otherwise its total and each team's cost must equal,
// to the minor unit, the sums the test keeps in integers from the
// generated amounts.
func TestRollupCountsEachShardOnceGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(32))
	currencies := []genCurrency{{"USD", 100}, {"JPY", 1}, {"KWD", 1000}}
	var refusedDup, refusedTamper, combined, converted int
	for n := range 400 {
		cur := currencies[rng.Intn(len(currencies))]
		// A third of the sets have their odd shards in another currency, at
		// a rate of R/10⁴ (0.0001 to 100) into cur.
		other, rateR := cur, int64(10_000)
		if rng.Intn(3) == 0 {
			other = currencies[(slices.Index(currencies, cur)+1+rng.Intn(2))%len(currencies)]
			rateR = 1 + rng.Int63n(1_000_000)
		}
		opt := Options{Currency: cur.code}
		if other != cur {
			opt.Rates = []Rate{{From: other.code, To: cur.code, Value: decimal.New(rateR, -4)}}
		}
		dir := t.TempDir()
		var paths, names []string
		var tampered []string // names of the moved shards, in order
		var gens []genShard
		for i := range 1 + rng.Intn(5) {
			in := cur
			if i%2 == 1 {
				in = other
			}
			g := generate(rng, in.code, in.unit)
			g.fromUnit = in.unit
			gens = append(gens, g)
			b := summaryBytes(t, g.res)
			name := fmt.Sprintf("s%d", i)
			if rng.Intn(6) == 0 {
				var what string
				b, what = tamper(t, rng, b, in.unit)
				tampered = append(tampered, name+": "+what)
			}
			paths = append(paths, writeFile(t, dir, name+".json", b))
			names = append(names, name)
		}
		var dup string
		if rng.Intn(4) == 0 {
			paths, names, dup = addDuplicate(t, rng, dir, n, paths, names)
		}

		shards, err := Load(context.Background(), paths, names)
		var res *analysis.Result
		if err == nil {
			res, err = Combine(context.Background(), shards, opt)
		}
		switch {
		case len(tampered) > 0:
			first := firstMoved(tampered, names, dup)
			if err == nil || !IsRefusal(err) || !strings.Contains(err.Error(), "shard "+first+": ") {
				t.Fatalf("case %d: %v moved: err %v, want a refusal naming shard %s", n, tampered, err, first)
			}
			refusedTamper++
		case dup != "":
			if err == nil || !IsRefusal(err) || !strings.Contains(err.Error(), "are the same summary") ||
				!strings.Contains(err.Error(), dup+" (") || !strings.Contains(err.Error(), "again (") {
				t.Fatalf("case %d: shard %s given again: err %v, want a refusal naming %s and again", n, dup, err, dup)
			}
			refusedDup++
		default:
			if err != nil {
				t.Fatalf("case %d: distinct, untouched shards: %v", n, err)
			}
			checkCombined(t, n, res, gens, cur, other, rateR)
			if other != cur {
				converted++
			}
			combined++
		}
	}
	// The generator must reach every branch, or the test proves less than
	// it says.
	if refusedDup < 30 || refusedTamper < 30 || combined < 100 || converted < 30 {
		t.Errorf("cases: %d refused as given twice, %d as moved, %d combined (%d converted): too few of one kind",
			refusedDup, refusedTamper, combined, converted)
	}
	t.Logf("cases: %d refused as given twice, %d as moved, %d combined (%d converted)", refusedDup, refusedTamper, combined, converted)
}

// genCurrency is a currency of the generated shards and its minor units.
type genCurrency struct {
	code string
	unit float64
}

// addDuplicate gives one of the shards again, at a random place: the same
// path, a link to it, or a copy of its bytes under another name. dup is
// the name of the shard given twice.
func addDuplicate(t *testing.T, rng *rand.Rand, dir string, n int, paths, names []string) ([]string, []string, string) {
	t.Helper()
	i := rng.Intn(len(paths))
	again := paths[i]
	switch rng.Intn(3) {
	case 1:
		again = filepath.Join(dir, fmt.Sprintf("link%d.json", n))
		if err := os.Symlink(paths[i], again); err != nil {
			t.Fatal(err)
		}
	case 2:
		b, err := os.ReadFile(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		again = writeFile(t, t.TempDir(), "renamed.json", b)
	}
	at := rng.Intn(len(paths) + 1)
	paths = append(paths[:at], append([]string{again}, paths[at:]...)...)
	names = append(names[:at], append([]string{"again"}, names[at:]...)...)
	dup := names[i]
	if at <= i {
		dup = names[i+1]
	}
	return paths, names, dup
}

// firstMoved is the shard a refusal of moved shards names: Load reads the
// files in order, so the first moved shard, or the copy of a moved shard
// if it comes first.
func firstMoved(tampered, names []string, dup string) string {
	moved := map[string]bool{}
	for _, m := range tampered {
		moved[m[:strings.Index(m, ":")]] = true
	}
	first := ""
	for _, name := range names {
		if moved[name] || name == "again" && moved[dup] {
			first = name
			break
		}
	}
	return first
}

// checkCombined checks a rollup of distinct, untouched shards: its total
// and each team's cost are the shards' parts converted in integers, and
// its own summary reads back as a shard.
func checkCombined(t *testing.T, n int, res *analysis.Result, gens []genShard, cur, other genCurrency, rateR int64) {
	t.Helper()
	// Each team's cost in cur's minor units, converted here in
	// integers: [lo, hi] is one value, or the two at an exact half,
	// where a float may round either way.
	type span struct{ lo, hi int64 }
	var total span
	teams := map[string]span{}
	for i, g := range gens {
		for name, c := range g.teams {
			lo, hi := c, c
			if i%2 == 1 && other != cur {
				lo, hi = convertMinor(c, int64(g.fromUnit), int64(cur.unit), rateR)
			}
			teams[name] = span{teams[name].lo + lo, teams[name].hi + hi}
			total = span{total.lo + lo, total.hi + hi}
		}
	}
	got := int64(math.Round(res.Totals.Cost * cur.unit))
	if got < total.lo || got > total.hi {
		t.Fatalf("case %d: rollup total %d minor units, want %d..%d (the shards' parts' sum)", n, got, total.lo, total.hi)
	}
	if len(res.ByTeam) != len(teams) {
		t.Fatalf("case %d: %d teams, want %d", n, len(res.ByTeam), len(teams))
	}
	var sum int64
	for _, tc := range res.ByTeam {
		g := int64(math.Round(tc.Cost * cur.unit))
		if w := teams[tc.Team]; g < w.lo || g > w.hi {
			t.Fatalf("case %d: team %s %d minor units, want %d..%d", n, tc.Team, g, w.lo, w.hi)
		}
		sum += g
	}
	// The rollup counts as what its parts add up to too: its own
	// summary is a shard a rollup reads.
	if sum != got {
		t.Fatalf("case %d: the rollup's teams add up to %d minor units, its total is %d", n, sum, got)
	}
	if _, err := Decode(summaryBytes(t, *res), "org"); err != nil {
		t.Fatalf("case %d: the rollup's own summary: %v", n, err)
	}
}

// convertMinor is c minor units of a currency of fromUnit minor units to
// one, at R/10⁴, in minor units of a currency of toUnit, rounded to the
// nearest; at an exact half, lo and hi are the two nearest.
func convertMinor(c, fromUnit, toUnit, r int64) (lo, hi int64) {
	num, den := c*r*toUnit, fromUnit*10_000
	q := num / den
	if num%den != 0 && num < 0 {
		q-- // floor, not truncation
	}
	rem := num - q*den // 0 ≤ rem < den
	switch {
	case 2*rem < den:
		return q, q
	case 2*rem > den:
		return q + 1, q + 1
	}
	return q, q + 1
}
