package analysis

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/finops-oss/finops"
)

// The invariant (docs/METRICS.md §Unknown is not zero): a figure nobody
// measured is never shown as 0: it is null in JSON (coverage beside it),
// "unknown"/"—" on screen, blank in the workbook; a partly measured one
// carries "≥". Here, on the analysis side: every resource's, team's,
// task's, total's and trend week's idle cost (and utilization, and energy)
// reads Unmeasured exactly when none of its GPU time was monitored (and
// then is null in the JSON), PartlyMeasured exactly when some but not all
// was, and Measured otherwise. report/unknown_test.go checks the writers.

// coverMax is the most minutes one sample covers after its own (grid.go's
// maxCover): a minute within it after a sample may or may not count as
// monitored, so the expectations below never rest on those minutes.
const coverMax = 5

// fleetGPU is one billed GPU of a generated fleet: the minutes of the day
// it has samples in (sampled[m]), and whether they carry power.
type fleetGPU struct {
	sampled []bool
	power   bool
}

type fleetResource struct {
	id    string
	team  string
	price float64 // per GPU-hour
	gpus  []fleetGPU
	tasks [][2]int // [start, end) minutes; each holds every GPU
}

// genFleet draws a fleet of one day: resources of one or two GPUs, each GPU
// with no telemetry, telemetry over part of the day, or all of it, with or
// without power; tasks of the resource's team holding all its GPUs.
func genFleet(rng *rand.Rand) []fleetResource {
	teams := []string{"nlp", "cv", "search"}
	n := 1 + rng.Intn(5)
	out := make([]fleetResource, n)
	for i := range out {
		r := fleetResource{id: fmt.Sprintf("res-%d", i), team: teams[rng.Intn(len(teams))],
			price: float64(1+rng.Intn(40)) / 4}
		for range 1 + rng.Intn(2) {
			g := fleetGPU{sampled: make([]bool, minutesPerDay), power: rng.Intn(2) == 0}
			switch rng.Intn(3) {
			case 0: // the exporter died before the day: no telemetry
			case 1: // part of the day, on half-hour bounds, never all of it
				a := 30 * rng.Intn(47)
				b := a + 30*(1+rng.Intn(48-a/30-1))
				if a == 0 && b == minutesPerDay {
					b -= 30
				}
				for m := a; m < b; m++ {
					g.sampled[m] = true
				}
			default:
				for m := range g.sampled {
					g.sampled[m] = true
				}
			}
			r.gpus = append(r.gpus, g)
		}
		for range rng.Intn(3) {
			s := 30 * rng.Intn(47)
			e := s + 30*(1+rng.Intn(48-s/30-1))
			r.tasks = append(r.tasks, [2]int{s, min(e, minutesPerDay)})
		}
		out[i] = r
	}
	return out
}

// input is the fleet as an analysis input: hourly lines at its price, one
// series per GPU with samples (random utilization in runs of 10 minutes to
// 3 hours, power with some), task runs.
func (f fleetResource) input(rng *rand.Rand, in *Input, taskNo *int) {
	for h := range 24 {
		s := day0.Add(time.Duration(h) * time.Hour)
		l := gpuLine(f.id, finops.ModeHourly, fmt.Sprintf("%.2f", f.price*float64(len(f.gpus))), s, s.Add(time.Hour), len(f.gpus))
		l.Tags = map[string]string{"team": f.team}
		in.Lines = append(in.Lines, l)
	}
	for gi, g := range f.gpus {
		s := finops.GPUSeries{Key: fmt.Sprintf("%s-g%d", f.id, gi), Host: f.id, Index: gi, Interval: time.Minute}
		util, left := 0.0, 0
		for m, ok := range g.sampled {
			if left == 0 {
				util, left = float64(rng.Intn(101)), 10+rng.Intn(170)
				if rng.Intn(2) == 0 {
					util = float64(rng.Intn(10)) // idle, for idle cost
				}
			}
			left--
			if !ok {
				continue
			}
			at := day0.Unix()/60 + int64(m)
			if g.power {
				s.AddPower(at, util, 50+float64(rng.Intn(300)))
			} else {
				s.Add(at, util)
			}
		}
		if s.Len() > 0 {
			in.GPUs = append(in.GPUs, s)
		}
	}
	for _, t := range f.tasks {
		*taskNo++
		in.TaskRuns = append(in.TaskRuns, finops.TaskRun{Task: fmt.Sprintf("task-%d", *taskNo), Team: f.team, Resource: f.id,
			Start: day0.Add(time.Duration(t[0]) * time.Minute), End: day0.Add(time.Duration(t[1]) * time.Minute)})
	}
}

// tally is what a set of GPU-minutes says about measurement: some surely
// monitored (a sample of its own), some surely not (no sample in the
// coverMax minutes before either).
type tally struct{ sure, none, minutes int }

func (t *tally) add(o tally) { t.sure += o.sure; t.none += o.none; t.minutes += o.minutes }

// count tallies GPU g over minutes [s, e), power samples only with power.
func (g fleetGPU) count(s, e int, power bool) tally {
	var t tally
	has := func(m int) bool { return g.sampled[m] && (!power || g.power) }
	for m := s; m < e; m++ {
		t.minutes++
		if has(m) {
			t.sure++
			continue
		}
		near := false
		for k := max(0, m-coverMax); k < m; k++ {
			near = near || has(k)
		}
		if !near {
			t.none++
		}
	}
	return t
}

// expect is the reading t implies, and whether it implies one: minutes a
// sample may or may not cover leave it undecided only when they are all
// there is to decide by.
func (t tally) expect() (Reading, bool) {
	switch {
	case t.minutes == 0:
		return Measured, true
	case t.sure == 0 && t.none == t.minutes:
		return Unmeasured, true
	case t.sure == t.minutes:
		return Measured, true
	case t.sure > 0 && t.none > 0:
		return PartlyMeasured, true
	}
	return 0, false
}

// jsonNull reports, for each key, whether v's JSON has it null.
func jsonNull(t *testing.T, v any, keys ...string) map[string]bool {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, k := range keys {
		x, ok := m[k]
		if !ok {
			t.Fatalf("%s: no key %q in %s", b, k, b)
		}
		out[k] = x == nil
	}
	return out
}

// TestUnknownIsNotZeroGenerated draws fleets where random GPUs have no,
// partial or full telemetry and checks, independently of the analysis's
// hours, that each figure's reading and its JSON null follow the minutes
// that were sampled; and that the teams' unallocated costs (the GPU time
// of their resources no task held, at its price) add up to the fleet's.
func TestUnknownIsNotZeroGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	checked := map[Reading]int{}
	for c := range 120 {
		fleet := genFleet(rng)
		in := &Input{Window: Window{Start: day0, End: day0.Add(24 * time.Hour), Label: "2026-11-02"},
			Lookback: Window{Start: day0, End: day0.Add(24 * time.Hour)}, Params: DefaultParams(), SkipTrends: true}
		tasks := 0
		for _, f := range fleet {
			f.input(rng, in, &tasks)
		}
		r, err := Analyze(in)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		uc := &unknownCase{t: t, c: c, checked: checked}
		ft := uc.checkResources(fleet, r)
		for _, tk := range r.Tasks {
			want, ok := ft.taskOf[tk.Task]
			if !ok {
				t.Fatalf("%s: unexpected task %s", uc.name("tasks"), tk.Task)
			}
			uc.check("task "+tk.Task, tk.IdleReading(), want, jsonNull(t, tk, "idle_cost"))
		}
		uc.check("allocated idle", AllocatedIdleReading(r.Tasks), ft.tasks, nil)
		uc.check("totals", r.Totals.IdleReading(), ft.fleet, jsonNull(t, r.Totals, "idle_cost", "avg_gpu_utilization", "allocated_idle_cost"))
		week := weekFigures("W", in.Window, r, 0.8)
		uc.check("trend week", week.IdleReading(), ft.fleet, jsonNull(t, week, "idle_cost"))
		uc.checkTrendResources(fleet, week)
		uc.checkTeams(r, week, ft)
	}
	t.Logf("readings checked: unmeasured %d, partly %d, measured %d", checked[Unmeasured], checked[PartlyMeasured], checked[Measured])
	// Not a vacuous pass: every reading was met many times.
	for _, m := range []Reading{Unmeasured, PartlyMeasured, Measured} {
		if checked[m] < 50 {
			t.Errorf("reading %d checked %d times over the cases, want at least 50: the generator misses it", m, checked[m])
		}
	}
}

// unknownCase is one generated case of TestUnknownIsNotZeroGenerated: its
// number, for messages, and the count of readings checked over all cases.
type unknownCase struct {
	t       *testing.T
	c       int
	checked map[Reading]int
}

func (uc *unknownCase) name(what string) string { return fmt.Sprintf("case %d: %s", uc.c, what) }

// check compares a figure's reading with the one its tally of sampled
// minutes decides (if it decides one), and each of its JSON fields' null
// with "nobody measured it".
func (uc *unknownCase) check(what string, got Reading, want tally, null map[string]bool) {
	t := uc.t
	t.Helper()
	exp, ok := want.expect()
	if !ok {
		return
	}
	uc.checked[exp]++
	if got != exp {
		t.Errorf("%s: reading %d, want %d (%+v)", uc.name(what), got, exp, want)
	}
	for k, isNull := range null {
		if isNull != (exp == Unmeasured) {
			t.Errorf("%s: %s null = %v, want null exactly when nobody measured it (%+v)", uc.name(what), k, isNull, want)
		}
	}
}

// unknownTallies are the tallies of sampled minutes computed from the
// generated fleet, independently of the analysis: the fleet's, all
// tasks', each task's and each team's, and each team's unallocated cost
// by hand.
type unknownTallies struct {
	fleet, tasks tally
	team         map[string]*tally
	teamUnalloc  map[string]float64
	taskOf       map[string]tally
}

// freeMinutes is the number of the day's minutes no task of f held.
func freeMinutes(f fleetResource) int {
	held := make([]bool, minutesPerDay)
	for _, tk := range f.tasks {
		for m := tk[0]; m < tk[1]; m++ {
			held[m] = true
		}
	}
	free := 0
	for _, h := range held {
		if !h {
			free++
		}
	}
	return free
}

// resourceTally is f's tally of sampled minutes over the day, of
// utilization (power false) or of power.
func resourceTally(f fleetResource, power bool) tally {
	var rt tally
	for _, g := range f.gpus {
		rt.add(g.count(0, minutesPerDay, power))
	}
	return rt
}

// checkResources checks each resource's row and energy against its
// tallies, and returns the tallies the later checks need.
func (uc *unknownCase) checkResources(fleet []fleetResource, r *Result) unknownTallies {
	t := uc.t
	t.Helper()
	byID := map[string]ResourceCost{}
	for _, rc := range r.ByResource {
		byID[rc.ResourceID] = rc
	}
	energy := map[string]EnergyUse{}
	if r.Energy != nil {
		for _, re := range r.Energy.ByResource {
			energy[re.ResourceID] = re.EnergyUse
		}
	}
	ft := unknownTallies{team: map[string]*tally{}, teamUnalloc: map[string]float64{}, taskOf: map[string]tally{}}
	n := 0
	for _, f := range fleet {
		free := freeMinutes(f)
		rt, pt := resourceTally(f, false), resourceTally(f, true)
		// Tasks of one resource may overlap: a minute held by two is
		// split between them, and either's reading rests on it alike.
		for _, tk := range f.tasks {
			n++
			var tt tally
			for _, g := range f.gpus {
				tt.add(g.count(tk[0], tk[1], false))
			}
			ft.taskOf[fmt.Sprintf("task-%d", n)] = tt
			ft.tasks.add(tt)
		}
		rc, ok := byID[f.id]
		if !ok {
			t.Fatalf("%s: no row", uc.name(f.id))
		}
		null := jsonNull(t, rc, "idle_cost", "avg_utilization")
		uc.check("resource "+f.id, rc.IdleReading(), rt, null)
		if e, ok := energy[f.id]; ok {
			uc.checkEnergy(f.id, e, pt)
		}
		ft.fleet.add(rt)
		if ft.team[f.team] == nil {
			ft.team[f.team] = &tally{}
		}
		ft.team[f.team].add(rt)
		// By hand: each GPU-minute no task held at price/60.
		ft.teamUnalloc[f.team] += float64(free*len(f.gpus)) * f.price / 60
	}
	return ft
}

// checkEnergy checks a resource's energy against its power tally: null
// exactly when no power was read, and no CO₂e of an unknown energy.
func (uc *unknownCase) checkEnergy(id string, e EnergyUse, pt tally) {
	t := uc.t
	t.Helper()
	exp, decided := pt.expect()
	if decided && (e.KWh == nil) != (exp == Unmeasured) {
		t.Errorf("%s: energy %v with power tally %+v: want null exactly when no power was read", uc.name(id), e.KWh, pt)
	}
	if decided && e.Reading() != exp {
		t.Errorf("%s: energy reading %d, want %d", uc.name(id), e.Reading(), exp)
	}
	if e.KWh == nil && e.CO2eKg != nil {
		t.Errorf("%s: CO₂e %v kg of an unknown energy", uc.name(id), *e.CO2eKg)
	}
}

// checkTrendResources checks each resource of the trend week against its
// tally of sampled minutes.
func (uc *unknownCase) checkTrendResources(fleet []fleetResource, week TrendWeek) {
	uc.t.Helper()
	for _, tr := range week.Resources {
		for _, f := range fleet {
			if f.id != tr.ResourceID {
				continue
			}
			uc.check("trend resource "+f.id, tr.IdleReading(), resourceTally(f, false), jsonNull(uc.t, tr, "idle_cost"))
		}
	}
}

// checkTeams checks each team's row, trend row and slice against its
// tally, its unallocated cost against the one by hand, and that the teams'
// unallocated costs add up to the fleet's.
func (uc *unknownCase) checkTeams(r *Result, week TrendWeek, ft unknownTallies) {
	t := uc.t
	t.Helper()
	sum := 0.0
	for _, tc := range r.ByTeam {
		want := ft.team[tc.Team]
		if want == nil {
			want = &tally{}
		}
		uc.check("team "+tc.Team, tc.IdleReading(), *want, jsonNull(t, tc, "idle_cost"))
		for _, tt := range week.Teams {
			if tt.Team == tc.Team {
				uc.check("trend team "+tc.Team, tt.IdleReading(), *want, jsonNull(t, tt, "idle_cost"))
			}
		}
		s := r.ForTeam(tc.Team)
		uc.check("slice "+tc.Team, s.Totals.IdleReading(), *want, jsonNull(t, s.Totals, "idle_cost", "avg_gpu_utilization"))
		if math.Abs(s.Totals.UnallocatedCost-ft.teamUnalloc[tc.Team]) > 1e-6 {
			t.Errorf("%s: unallocated %.6f, want %.6f by hand", uc.name("team "+tc.Team), s.Totals.UnallocatedCost, ft.teamUnalloc[tc.Team])
		}
		sum += s.Totals.UnallocatedCost
	}
	if math.Abs(sum-r.Totals.UnallocatedCost) > 1e-6 {
		t.Errorf("%s: the teams' unallocated add up to %.6f, the fleet's is %.6f", uc.name("unallocated"), sum, r.Totals.UnallocatedCost)
	}
}
