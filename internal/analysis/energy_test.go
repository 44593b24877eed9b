package analysis

import (
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// inRegion sets every line's region.
func inRegion(lines []finops.BillingLine, region string) []finops.BillingLine {
	for i := range lines {
		lines[i].Region = region
	}
	return lines
}

func TestEnergy(t *testing.T) {
	// All day at 250 W: 1,440 min × 250 W / 60 / 1000 = 6 kWh.
	allDay := []finops.GPUSeries{poweredSeries("GPU-1", "gpu-1", day0, pseg{1440, 50, 250})}
	intensities := EnergyParams{Regions: map[string]float64{"EU-North-1": 30},
		Providers: map[string]float64{"aws": 380}, Default: new(436.0)}
	type want struct {
		kwh, coverage float64
		lowerBound    bool
		co2           *float64 // nil: unknown
		tasks, teams  map[string]float64
		taskCoverage  map[string]float64
	}
	cases := []struct {
		name   string
		lines  []finops.BillingLine
		gpus   []finops.GPUSeries
		runs   []finops.TaskRun
		energy EnergyParams
		want   *want // nil: Result.Energy is nil
	}{{
		// The task holds the GPU 08:00–10:00: 90 min at 300 W, 30 min at 150 W
		// = 300 × 1.5 h / 1000 + 150 × 0.5 h / 1000 = 0.45 + 0.075 = 0.525 kWh.
		// The other 1,320 minutes at 60 W = 60 × 22 h / 1000 = 1.32 kWh are
		// the resource's team's (unassigned): 1.845 kWh in all. No intensity
		// is configured: CO₂e unknown.
		name:  "task by hand, no intensity",
		lines: hourlyLines("gpu-1", "2.40", day0, 24),
		gpus: []finops.GPUSeries{poweredSeries("GPU-1", "gpu-1", day0,
			pseg{480, 5, 60}, pseg{90, 95, 300}, pseg{30, 40, 150}, pseg{840, 5, 60})},
		runs: []finops.TaskRun{{Task: "train", Team: "nlp", Resource: "gpu-1",
			Start: day0.Add(8 * time.Hour), End: day0.Add(10 * time.Hour)}},
		want: &want{kwh: 1.845, coverage: 1,
			tasks: map[string]float64{"train": 0.525}, taskCoverage: map[string]float64{"train": 1},
			teams: map[string]float64{"nlp": 0.525, unassigned: 1.32}},
	}, {
		// Power only from 12:00: 720 min × 200 W = 2.4 kWh of 1,440 billed
		// minutes, coverage 0.5, a lower bound. The task 11:00–13:00 has power
		// for 60 of its 120 minutes: 60 × 200 / 60,000 = 0.2 kWh, coverage 0.5;
		// the resource's team (unassigned) has the rest, 2.4 − 0.2 = 2.2 kWh.
		// A second resource, billed all day, reports nothing: 1,440 more billed
		// minutes without power, so the total's coverage is 720 / 2,880 = 0.25.
		// CO₂e by the default: 2.4 × 436 / 1000 = 1.0464 kg, a lower bound too.
		name:  "partial power coverage",
		lines: append(hourlyLines("gpu-1", "2.40", day0, 24), hourlyLines("gpu-2", "2.40", day0, 24)...),
		gpus:  []finops.GPUSeries{poweredSeries("GPU-1", "gpu-1", day0, pseg{720, 50, -1}, pseg{720, 50, 200})},
		runs: []finops.TaskRun{{Task: "eval", Team: "cv", Resource: "gpu-1",
			Start: day0.Add(11 * time.Hour), End: day0.Add(13 * time.Hour)}},
		energy: intensities,
		want: &want{kwh: 2.4, coverage: 0.25, lowerBound: true, co2: new(1.0464),
			tasks: map[string]float64{"eval": 0.2}, taskCoverage: map[string]float64{"eval": 0.5},
			teams: map[string]float64{"cv": 0.2, unassigned: 2.2}},
	}, {
		// The line's region eu-north-1 matches EU-North-1 (case aside) at 30
		// g/kWh, before the default; with PUE 1.5: 6 × 1.5 × 30 / 1000 = 0.27 kg.
		name:   "region intensity and PUE",
		lines:  inRegion(hourlyLines("gpu-1", "2.40", day0, 24), "eu-north-1"),
		gpus:   allDay,
		energy: EnergyParams{PUE: 1.5, Regions: intensities.Regions, Providers: intensities.Providers, Default: intensities.Default},
		want:   &want{kwh: 6, coverage: 1, co2: new(0.27), teams: map[string]float64{unassigned: 6}},
	}, {
		// A region with no intensity, provider TestCloud with none either:
		// the default, 6 × 436 / 1000 = 2.616 kg.
		name:   "default intensity",
		lines:  inRegion(hourlyLines("gpu-1", "2.40", day0, 24), "ap-south-9"),
		gpus:   allDay,
		energy: intensities,
		want:   &want{kwh: 6, coverage: 1, co2: new(2.616), teams: map[string]float64{unassigned: 6}},
	}, {
		// The provider's intensity when the region has none: 6 × 400 / 1000 = 2.4 kg.
		name:   "provider intensity",
		lines:  hourlyLines("gpu-1", "2.40", day0, 24),
		gpus:   allDay,
		energy: EnergyParams{Providers: map[string]float64{"testcloud": 400}},
		want:   &want{kwh: 6, coverage: 1, co2: new(2.4), teams: map[string]float64{unassigned: 6}},
	}, {
		// Utilization all day, no power reading: no energy at all.
		name:   "series without power",
		lines:  hourlyLines("gpu-1", "2.40", day0, 24),
		gpus:   []finops.GPUSeries{poweredSeries("GPU-1", "gpu-1", day0, pseg{1440, 50, -1})},
		energy: intensities,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := oneDay()
			in.Lines, in.GPUs, in.TaskRuns = c.lines, c.gpus, c.runs
			in.Params.Energy = c.energy
			r, err := Analyze(in)
			if err != nil {
				t.Fatal(err)
			}
			e := r.Energy
			if c.want == nil {
				if e != nil {
					t.Fatalf("energy = %+v, want none", *e)
				}
				return
			}
			if e == nil {
				t.Fatal("energy is nil")
			}
			w := c.want
			testnum.NearRel(t, "total kWh", kwhOr0(e.Total), w.kwh, 1e-6)
			testnum.NearRel(t, "total power coverage", e.Total.PowerCoverage, w.coverage, 1e-6)
			if e.Total.LowerBound != w.lowerBound {
				t.Errorf("lower bound = %v, want %v", e.Total.LowerBound, w.lowerBound)
			}
			switch {
			case w.co2 == nil && e.Total.CO2eKg != nil:
				t.Errorf("CO2e = %v kg, want unknown", *e.Total.CO2eKg)
			case w.co2 != nil && e.Total.CO2eKg == nil:
				t.Errorf("CO2e unknown, want %v kg", *w.co2)
			case w.co2 != nil:
				testnum.NearRel(t, "CO2e kg", *e.Total.CO2eKg, *w.co2, 1e-6)
			}
			tasks := map[string]TaskEnergy{}
			for _, te := range e.Tasks {
				tasks[te.Task] = te
			}
			if len(tasks) != len(w.tasks) {
				t.Errorf("tasks = %+v, want %v", e.Tasks, w.tasks)
			}
			for k, v := range w.tasks {
				testnum.NearRel(t, k+" kWh", kwhOr0(tasks[k].EnergyUse), v, 1e-6)
				testnum.NearRel(t, k+" power coverage", tasks[k].PowerCoverage, w.taskCoverage[k], 1e-6)
			}
			teams := map[string]float64{}
			for _, te := range e.ByTeam {
				teams[te.Team] = kwhOr0(te.EnergyUse)
			}
			for k, v := range w.teams {
				testnum.NearRel(t, k+" team kWh", teams[k], v, 1e-6)
			}
			sum := 0.0
			for _, re := range e.ByResource {
				sum += kwhOr0(re.EnergyUse)
			}
			testnum.NearRel(t, "Σ resources kWh", sum, w.kwh, 1e-6)
		})
	}
}

// TestEnergyForTeam: a team's slice carries its own energy as its total.
func TestEnergyForTeam(t *testing.T) {
	// As "task by hand": nlp's task drew 0.525 kWh.
	in := oneDay()
	in.GPUs = []finops.GPUSeries{poweredSeries("GPU-1", "gpu-1", day0,
		pseg{480, 5, 60}, pseg{90, 95, 300}, pseg{30, 40, 150}, pseg{840, 5, 60})}
	in.TaskRuns = []finops.TaskRun{{Task: "train", Team: "nlp", Resource: "gpu-1",
		Start: day0.Add(8 * time.Hour), End: day0.Add(10 * time.Hour)}}
	r, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	s := r.ForTeam("nlp")
	if s == nil || s.Energy == nil {
		t.Fatal("nlp's slice has no energy")
	}
	testnum.NearRel(t, "nlp kWh", kwhOr0(s.Energy.Total), 0.525, 1e-6)
	if len(s.Energy.Tasks) != 1 || len(s.Energy.ByResource) != 0 {
		t.Errorf("nlp's slice: tasks %+v, resources %+v; want train only", s.Energy.Tasks, s.Energy.ByResource)
	}
}

// kwhOr0 is u's energy, 0 where no power reading measured it (nil): for
// the sums these tests compare, where an unmeasured part adds nothing.
func kwhOr0(u EnergyUse) float64 {
	if u.KWh == nil {
		return 0
	}
	return *u.KWh
}
