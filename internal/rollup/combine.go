package rollup

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops/internal/analysis"
)

// Options are what Combine needs besides the shards.
type Options struct {
	// Currency is the rollup's currency (the config's currency); "" takes
	// the shards' one currency, or else the one every rate converts into.
	Currency string
	// Rates convert the shards' currencies into Currency: --rate flags
	// and the config's fx (RatesFromFX).
	Rates []Rate
}

// Combine combines the shards into one result for the report writers, as
// docs/ROLLUP.md describes: totals summed, teams of one name merged,
// resources, tasks, recommendations, idle spans and findings concatenated
// (findings ranked by money again), data quality per shard, and the
// per-shard table (Result.Shards). It refuses shards of different periods,
// two shards of one name, and currencies it has no rate for.
func Combine(ctx context.Context, shards []Shard, opt Options) (*analysis.Result, error) {
	if len(shards) == 0 {
		return nil, refuse("no shard summaries: give the JSON files of `finops report --format json`")
	}
	// The same file twice is refused as such, before its two names are.
	if err := checkDistinct(shards); err != nil {
		return nil, err
	}
	if err := checkNames(shards); err != nil {
		return nil, err
	}
	if err := checkPeriods(shards); err != nil {
		return nil, err
	}
	to, rates, err := currencyOf(shards, opt)
	if err != nil {
		return nil, err
	}
	rs := make([]analysis.Result, len(shards))
	for i, s := range shards {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rs[i] = converted(s.Result, rates[i], to)
	}
	ids := resourceIDs(shards, rs)

	out := &analysis.Result{Period: shards[0].Result.Period, Currency: to}
	out.Totals = sumTotals(rs)
	var notes []string
	out.ByTeam, notes = mergeTeams(shards, rs)
	if n := previousCost(shards, out); n != "" {
		notes = append(notes, n)
	}
	for i, r := range rs {
		rename := func(id string) string { return cmp.Or(ids[i][id], id) }
		for _, rc := range r.ByResource {
			rc.ResourceID = rename(rc.ResourceID)
			out.ByResource = append(out.ByResource, rc)
		}
		out.Tasks = append(out.Tasks, r.Tasks...)
		for _, rec := range r.Recommendations {
			rec.ResourceID = rename(rec.ResourceID)
			out.Recommendations = append(out.Recommendations, rec)
		}
		for _, sp := range r.IdleSpans {
			sp.ResourceID = rename(sp.ResourceID)
			out.IdleSpans = append(out.IdleSpans, sp)
		}
		for _, f := range r.Findings {
			f.ResourceID = rename(f.ResourceID)
			out.Findings = append(out.Findings, f)
		}
	}
	// Each shard ranked its own; the money decides across them, a shard's
	// own order breaking ties.
	slices.SortStableFunc(out.Findings, func(a, b analysis.Finding) int { return cmp.Compare(b.Money, a.Money) })
	for i, s := range shards {
		if len(s.Dropped) > 0 {
			notes = append(notes, fmt.Sprintf("Shard %s: %s not combined by the rollup (docs/ROLLUP.md): see that shard's own report",
				s.Name, strings.Join(s.Dropped, ", ")))
		}
		if len(ids[i]) > 0 {
			var ren []string
			for old, id := range ids[i] {
				ren = append(ren, old+" → "+id)
			}
			sort.Strings(ren)
			notes = append(notes, fmt.Sprintf("Shard %s: resource IDs another shard also has are shown with the shard's name: %s",
				s.Name, strings.Join(ren, ", ")))
		}
	}
	out.DataQuality = dataQuality(shards, rs, ids, notes)
	out.Shards = shardTable(shards, rs)
	return out, nil
}

func checkNames(shards []Shard) error {
	seen := map[string]string{}
	for _, s := range shards {
		if strings.TrimSpace(s.Name) == "" {
			return refuse("shard %s has an empty name: give it one with --name", s.Path)
		}
		if p, ok := seen[s.Name]; ok {
			return refuse("two shards are named %q (%s and %s): name each with --name, once per file in the order of the files",
				s.Name, p, s.Path)
		}
		seen[s.Name] = s.Path
	}
	return nil
}

func checkPeriods(shards []Shard) error {
	first := shards[0]
	p := first.Result.Period
	for _, s := range shards[1:] {
		q := s.Result.Period
		if !q.Start.Equal(p.Start) || !q.End.Equal(p.End) {
			return refuse("shard %s covers %s and shard %s %s: a rollup combines one period; report every shard with the same "+
				"--week, or --from and --to, and in the same timezone", first.Name, periodText(p), s.Name, periodText(q))
		}
	}
	return nil
}

func periodText(p analysis.Period) string {
	return fmt.Sprintf("%s (%s to %s)", p.Label, p.Start.UTC().Format(time.RFC3339), p.End.UTC().Format(time.RFC3339))
}

// currencyOf is the rollup's currency and, per shard, the rate from its
// currency into it.
func currencyOf(shards []Shard, opt Options) (string, []decimal.Decimal, error) {
	byCur := map[string][]string{}
	var curs []string
	for _, s := range shards {
		c := strings.ToUpper(s.Result.Currency)
		if _, ok := byCur[c]; !ok {
			curs = append(curs, c)
		}
		byCur[c] = append(byCur[c], s.Name)
	}
	sort.Strings(curs)
	table := rateTable(opt.Rates)
	to := strings.ToUpper(opt.Currency)
	if to == "" && len(curs) == 1 {
		to = curs[0]
	}
	if to == "" {
		var targets []string
		for _, r := range opt.Rates {
			if !slices.Contains(targets, r.To) {
				targets = append(targets, r.To)
			}
		}
		if len(targets) == 1 {
			to = targets[0]
		}
	}
	if to == "" {
		var parts []string
		for _, c := range curs {
			parts = append(parts, c+": "+strings.Join(byCur[c], ", "))
		}
		return "", nil, refuse("the shards are in %d currencies (%s) and no exchange rate was given: give one per currency "+
			"into the one to report in, e.g. --rate %s/%s=<%s per %s>, or set currency: %s and fx: {%s: <%s per %s>} in the config",
			len(curs), strings.Join(parts, "; "), curs[1], curs[0], curs[0], curs[1], curs[0], curs[1], curs[0], curs[1])
	}
	rates := make([]decimal.Decimal, len(shards))
	for i, s := range shards {
		from := strings.ToUpper(s.Result.Currency)
		r, ok := table.find(from, to)
		if !ok {
			return "", nil, refuse("shard %s is in %s and the rollup in %s, and no rate from %s to %s was given: "+
				"add --rate %s/%s=<%s per %s>, or fx: {%s: <%s per %s>} with currency: %s in the config",
				s.Name, from, to, from, to, from, to, to, from, from, to, from, to)
		}
		rates[i] = r
	}
	return to, rates, nil
}

// resourceIDs is, per shard, the new ID of each resource whose ID another
// shard's resource also has: "<shard>/<id>". IDs no two shards share keep
// their name.
func resourceIDs(shards []Shard, rs []analysis.Result) []map[string]string {
	owners := map[string][]int{}
	for i, r := range rs {
		for _, rc := range r.ByResource {
			if o := owners[rc.ResourceID]; len(o) == 0 || o[len(o)-1] != i {
				owners[rc.ResourceID] = append(o, i)
			}
		}
	}
	taken := map[string]bool{}
	for id := range owners {
		taken[id] = true
	}
	out := make([]map[string]string, len(rs))
	for i, r := range rs {
		out[i] = map[string]string{}
		for _, rc := range r.ByResource {
			id := rc.ResourceID
			if len(owners[id]) < 2 || out[i][id] != "" {
				continue
			}
			n := shards[i].Name + "/" + id
			for k := 2; taken[n]; k++ {
				n = fmt.Sprintf("%s/%s~%d", shards[i].Name, id, k)
			}
			taken[n] = true
			out[i][id] = n
		}
	}
	return out
}

func sumTotals(rs []analysis.Result) analysis.Totals {
	var t analysis.Totals
	var monitored, utilHours float64
	for _, r := range rs {
		s := r.Totals
		t.Cost += s.Cost
		t.GPUCost += s.GPUCost
		t.NonGPUCost += s.NonGPUCost
		t.OtherCharges += s.OtherCharges
		t.GPUHoursBilled += s.GPUHoursBilled
		t.GPUHoursActive += s.GPUHoursActive
		t.GPUHoursIdle += s.GPUHoursIdle
		t.GPUHoursUnmonitored += s.GPUHoursUnmonitored
		t.IdleCost += s.IdleCost
		t.UnmonitoredCost += s.UnmonitoredCost
		t.UnallocatedCost += s.UnallocatedCost
		t.AllocatedIdleCost += s.AllocatedIdleCost
		t.UnusedCommitmentCost += s.UnusedCommitmentCost
		t.MonthlySavings += s.MonthlySavings
		t.PreviousCost += s.PreviousCost
		m := s.GPUHoursActive + s.GPUHoursIdle
		monitored += m
		utilHours += s.AvgGPUUtilization * m
	}
	// The analysis' mean over monitored GPU-hours (slice.go), weighted the same.
	if monitored > 0 {
		t.AvgGPUUtilization = utilHours / monitored
	}
	return t
}

// mergeTeams sums the teams of one name across shards, and says which
// names were merged: the same name in two business units may be two teams.
func mergeTeams(shards []Shard, rs []analysis.Result) ([]analysis.TeamCost, []string) {
	var order []string
	byName := map[string]*analysis.TeamCost{}
	in := map[string][]string{}
	budgets := map[string]int{}
	for i, r := range rs {
		for _, tc := range r.ByTeam {
			m, ok := byName[tc.Team]
			if !ok {
				m = &analysis.TeamCost{Team: tc.Team}
				byName[tc.Team] = m
				order = append(order, tc.Team)
			}
			in[tc.Team] = append(in[tc.Team], shards[i].Name)
			m.Cost += tc.Cost
			m.GPUCost += tc.GPUCost
			m.IdleCost += tc.IdleCost
			m.PreviousCost += tc.PreviousCost
			m.MonthToDate += tc.MonthToDate
			m.MonthForecast += tc.MonthForecast
			m.GPUHoursBilled += tc.GPUHoursBilled
			m.GPUHoursMonitored += tc.GPUHoursMonitored
			if tc.Budget != nil {
				budgets[tc.Team]++
				b := *tc.Budget
				if m.Budget != nil {
					b += *m.Budget
				}
				m.Budget = &b
			}
		}
	}
	var out []analysis.TeamCost
	var notes []string
	for _, name := range order {
		m := byName[name]
		if n := len(in[name]); n > 1 {
			notes = append(notes, fmt.Sprintf("Team %s appears in shards %s: its costs are summed as one team. "+
				"If they are different teams, rename one in its shard's config.", name, strings.Join(in[name], ", ")))
			// Each shard's budget is its own part of the team's; with
			// only some shards budgeting it, the sum would understate it.
			if b := budgets[name]; b > 0 && b < n {
				m.Budget = nil
				notes = append(notes, fmt.Sprintf("Team %s has a budget in only %d of its %d shards: no budget is shown for it.", name, b, n))
			}
		}
		out = append(out, *m)
	}
	slices.SortStableFunc(out, func(a, b analysis.TeamCost) int {
		return cmp.Or(cmp.Compare(b.Cost, a.Cost), cmp.Compare(a.Team, b.Team))
	})
	return out, notes
}

// previousCost keeps the previous period's cost only when every shard has
// one: a sum over some shards would read as a fall in spend. It says what
// it left out, or "".
func previousCost(shards []Shard, out *analysis.Result) string {
	var without []string
	for _, s := range shards {
		if s.Result.Totals.PreviousCost == 0 {
			without = append(without, s.Name)
		}
	}
	if len(without) == 0 || len(without) == len(shards) {
		return ""
	}
	out.Totals.PreviousCost = 0
	for i := range out.ByTeam {
		out.ByTeam[i].PreviousCost = 0
	}
	return fmt.Sprintf("No previous-period cost is shown for the organisation or its teams: shards %s have none "+
		"(not analysed, or nothing billed then).", strings.Join(without, ", "))
}

// dataQuality is the shards' data quality side by side, each line naming
// its shard, with the rollup's own notes first.
func dataQuality(shards []Shard, rs []analysis.Result, ids []map[string]string, notes []string) analysis.DataQuality {
	var dq analysis.DataQuality
	var billed, covered, unmonitored float64
	var clipped []string
	dq.Warnings = append(dq.Warnings, notes...)
	for i, s := range shards {
		q := rs[i].DataQuality
		t := rs[i].Totals
		billed += t.GPUHoursBilled
		covered += q.Coverage * t.GPUHoursBilled
		unmonitored += t.GPUHoursUnmonitored
		dq.RowsRejected += q.RowsRejected
		dq.MinCoverage = math.Max(dq.MinCoverage, q.MinCoverage)
		for _, src := range q.Sources {
			src.Name = s.Name + ": " + src.Name
			dq.Sources = append(dq.Sources, src)
		}
		for _, r := range q.Incomplete {
			dq.Incomplete = append(dq.Incomplete, "Shard "+s.Name+": "+r)
		}
		for _, w := range q.Warnings {
			dq.Warnings = append(dq.Warnings, "Shard "+s.Name+": "+w)
		}
		if q.Clipped != "" {
			clipped = append(clipped, "Shard "+s.Name+": "+q.Clipped)
		}
		dq.UnmatchedGPUs = append(dq.UnmatchedGPUs, q.UnmatchedGPUs...)
		for _, id := range q.UnmatchedResources {
			dq.UnmatchedResources = append(dq.UnmatchedResources, cmp.Or(ids[i][id], id))
		}
		for _, d := range q.SamplesDropped {
			d.Source = s.Name + ": " + d.Source
			dq.SamplesDropped = append(dq.SamplesDropped, d)
		}
	}
	dq.Clipped = strings.Join(clipped, "; ")
	// The fleet's coverage is the shards' weighted by their billed
	// GPU-hours: monitored ÷ billed over the whole fleet.
	dq.Coverage = 1
	if billed > 0 {
		dq.Coverage = covered / billed
		dq.UnmonitoredShare = unmonitored / billed
	}
	return dq
}

func shardTable(shards []Shard, rs []analysis.Result) []analysis.Shard {
	out := make([]analysis.Shard, len(shards))
	for i, s := range shards {
		t, q := rs[i].Totals, rs[i].DataQuality
		out[i] = analysis.Shard{Name: s.Name, Period: s.Result.Period.Label, Currency: strings.ToUpper(s.Result.Currency),
			Cost: t.Cost, GPUHoursBilled: t.GPUHoursBilled, GPUHoursMonitored: q.Coverage * t.GPUHoursBilled,
			Coverage: q.Coverage, Incomplete: len(q.Incomplete) > 0}
	}
	return out
}
