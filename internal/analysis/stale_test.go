package analysis

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/testnum"
)

// cst is China Standard Time, where the weekday rental below is billed.
var cst = time.FixedZone("CST", 8*3600)

// weekdayBox is the released box of issue #33: an hourly RTX 4090 rented on
// weekdays 09:00–19:00 China time (01:00–11:00 UTC) in the week of Monday
// 2026-11-09 (CST), one line per hour at ¥2, and nvidia-smi samples every
// minute of every billed hour (01:00–10:59 UTC): its logs end when its
// billing ends, Friday 2026-11-13 10:59 UTC. extra are more lines.
func weekdayBox(id string, extra ...finops.BillingLine) ([]finops.BillingLine, finops.GPUSeries) {
	mon := time.Date(2026, 11, 9, 9, 0, 0, 0, cst)
	var lines []finops.BillingLine
	s := finops.GPUSeries{Key: "GPU-" + id, Host: id, Interval: time.Minute}
	for d := range 5 {
		start := mon.AddDate(0, 0, d)
		for _, l := range hourlyLines(id, "2", start, 10) {
			l.GPUModel = "RTX 4090"
			lines = append(lines, l)
		}
		for m := range 600 {
			s.Add(start.Add(time.Duration(m)*time.Minute).Unix()/60, 50)
		}
	}
	return append(lines, extra...), s
}

// staleWeek is the week of weekdayBox (Monday 00:00 to Monday 00:00 CST) with
// three teams: cv owns the 4090 box, nlp an A100 and search an L40S that both
// run and report all week (their sources' data ends at the window's end),
// and the bill. boxLines are lines added to the 4090's.
func staleWeek(boxLines ...finops.BillingLine) *Input {
	start := time.Date(2026, 11, 9, 0, 0, 0, 0, cst)
	end := start.AddDate(0, 0, 7)
	lines, box := weekdayBox("cv-4090", boxLines...)
	gpus := []finops.GPUSeries{box}
	var sources []SourceStatus
	for _, r := range []string{"nlp-a100", "search-l40s"} {
		lines = append(lines, gpuLine(r, finops.ModeHourly, "336", start, end, 1))
		gpus = append(gpus, series("GPU-"+r, r, start, seg{7 * 1440, 80}))
		sources = append(sources, SourceStatus{Name: "nvidia-smi " + r, Kind: "utilization", Status: "ok",
			LastSample: end.Add(-time.Minute), GPUs: []string{"GPU-" + r}})
	}
	sources = append(sources,
		SourceStatus{Name: "nvidia-smi cv-4090", Kind: "utilization", Status: "ok",
			Detail: "5 files, data until 2026-11-13T10:59:00Z", LastSample: time.Date(2026, 11, 13, 10, 59, 0, 0, time.UTC),
			GPUs: []string{"GPU-cv-4090"}},
		SourceStatus{Name: "bill.csv", Kind: "billing", Status: "ok"})
	p := DefaultParams()
	p.Location = cst
	return &Input{Window: Window{Start: start, End: end, Label: "2026-W46"}, Lines: lines, GPUs: gpus,
		Resources: []Resource{{ID: "cv-4090", Team: "cv"}, {ID: "nlp-a100", Team: "nlp"}, {ID: "search-l40s", Team: "search"}},
		Teams:     []Team{{Name: "cv"}, {Name: "nlp"}, {Name: "search"}}, Sources: sources, Params: p, SkipTrends: true}
}

// staleReasons are the names of the sources a list of reasons calls stale.
func staleReasons(reasons []string) []string {
	var out []string
	for _, r := range reasons {
		if name, ok := strings.CutPrefix(r, "Source "); ok {
			if n, _, ok := strings.Cut(name, " is stale"); ok {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestReleasedBoxNotStale: issue #33's released box. Its logs end on Friday
// 10:59 UTC with its bill (last billed minute 10:59, billed until 11:00):
// 11:00 is not after 10:59 + 1 min (its interval) + 24 h (stale_after), so
// its source is ok though the window runs two days and 13 hours longer; every
// billed minute was monitored (50 h of 50, nlp's and search's 168 of 168):
// nothing is incomplete, in the fleet's result nor in any team's. Billed one
// hour past the limit (Saturday 11:00–12:00 UTC: 12:00 is after Saturday
// 11:00) the source is stale, and only cv's slice and the fleet say so; billed
// up to the limit exactly (Saturday 10:00–11:00) it is not.
func TestReleasedBoxNotStale(t *testing.T) {
	sat := time.Date(2026, 11, 14, 0, 0, 0, 0, time.UTC)
	line := func(from, to int) finops.BillingLine {
		l := gpuLine("cv-4090", finops.ModeHourly, "2", sat.Add(time.Duration(from)*time.Hour), sat.Add(time.Duration(to)*time.Hour), 1)
		l.GPUModel = "RTX 4090"
		return l
	}
	// Billed: cv 5 × 10 h, nlp and search 168 h each = 386 GPU-hours, all
	// monitored; a Saturday hour more is 387, of which 386 monitored.
	for _, tc := range []struct {
		name     string
		extra    []finops.BillingLine
		stale    bool
		coverage float64
	}{
		{"released with its bill", nil, false, 1},
		{"billed up to last sample + interval + stale_after", []finops.BillingLine{line(10, 11)}, false, 386.0 / 387},
		{"billed an hour past it", []finops.BillingLine{line(11, 12)}, true, 386.0 / 387},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Analyze(staleWeek(tc.extra...))
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			if tc.stale {
				want = []string{"nvidia-smi cv-4090"}
			}
			if got := staleReasons(res.DataQuality.Incomplete); !slices.Equal(got, want) {
				t.Errorf("fleet: stale %q, want %q (incomplete %q)", got, want, res.DataQuality.Incomplete)
			}
			if !tc.stale && len(res.DataQuality.Incomplete) > 0 {
				t.Errorf("fleet: incomplete %q, want nothing", res.DataQuality.Incomplete)
			}
			testnum.NearRel(t, "coverage", res.DataQuality.Coverage, tc.coverage, 1e-6)
			for _, team := range []string{"cv", "nlp", "search"} {
				slice := res.ForTeam(team)
				if slice == nil {
					t.Fatalf("team %s has no slice", team)
				}
				var w []string
				if tc.stale && team == "cv" {
					w = want
				}
				if got := staleReasons(slice.DataQuality.Incomplete); !slices.Equal(got, w) {
					t.Errorf("team %s: stale %q, want %q", team, got, w)
				}
				if len(w) == 0 && len(slice.DataQuality.Incomplete) > 0 {
					t.Errorf("team %s: incomplete %q, want nothing", team, slice.DataQuality.Incomplete)
				}
				// Nothing of another team's: no row of a source that is not
				// ok and not the team's.
				for _, s := range slice.DataQuality.Sources {
					if s.Status != "ok" && team != "cv" {
						t.Errorf("team %s: the box shows %s %s", team, s.Name, s.Status)
					}
				}
			}
		})
	}
}

// TestStaleNotPastNow: the running week's report, made on Saturday 10:30
// UTC, of the box billed from Saturday 00:00 to the window's end (Sunday
// 16:00 UTC) on a contract: billed until 10:30 so far, which is not after
// Friday 10:59 + 1 min + 24 h = Saturday 11:00, so its source is ok; the
// same report with no moment given counts the contract's future and calls
// it stale, and so does one made at 11:30.
func TestStaleNotPastNow(t *testing.T) {
	sat := time.Date(2026, 11, 14, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		now   time.Time
		stale bool
	}{
		{"made on Saturday 10:30", sat.Add(10*time.Hour + 30*time.Minute), false},
		{"made on Saturday 11:30", sat.Add(11*time.Hour + 30*time.Minute), true},
		{"no moment given", time.Time{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			contract := gpuLine("cv-4090", finops.ModeMonthly, "100", sat, time.Date(2026, 11, 15, 16, 0, 0, 0, time.UTC), 1)
			contract.GPUModel = "RTX 4090"
			in := staleWeek(contract)
			in.Now = tc.now
			res, err := Analyze(in)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			if tc.stale {
				want = []string{"nvidia-smi cv-4090"}
			}
			if got := staleReasons(res.DataQuality.Incomplete); !slices.Equal(got, want) {
				t.Errorf("stale %q, want %q", got, want)
			}
		})
	}
}

// TestSourceFailureTeams: a source that is not ok reaches the teams it
// touches. A billing delivery that did not import may hold anyone's money:
// every team's slice names it. A telemetry source this run found missing
// names the teams of the resources its GPUs serve that are billed in the
// window (nlp only), and one whose GPUs are unknown every team.
func TestSourceFailureTeams(t *testing.T) {
	in := staleWeek()
	in.Sources = append(in.Sources,
		SourceStatus{Name: "bad.csv", Kind: "billing", Status: "failed", Detail: "did not import"},
		SourceStatus{Name: "logs/nlp", Kind: "utilization", Status: "missing", GPUs: []string{"GPU-nlp-a100"},
			LastSample: in.Window.End},
		SourceStatus{Name: "prom", Kind: "utilization", Status: "partial"})
	res, err := Analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	reasons := func(r *Result) []string {
		var out []string
		for _, s := range r.DataQuality.Incomplete {
			name, _, _ := strings.Cut(strings.TrimPrefix(s, "Source "), " is ")
			out = append(out, name)
		}
		return out
	}
	if got, want := reasons(res), []string{"bad.csv", "logs/nlp", "prom"}; !slices.Equal(got, want) {
		t.Errorf("fleet: %q, want %q", got, want)
	}
	for team, want := range map[string][]string{
		"cv":     {"bad.csv", "prom"},
		"nlp":    {"bad.csv", "logs/nlp", "prom"},
		"search": {"bad.csv", "prom"},
	} {
		if got := reasons(res.ForTeam(team)); !slices.Equal(got, want) {
			t.Errorf("team %s: %q, want %q", team, got, want)
		}
	}
}

// TestStaleGenerated checks, over random fleets, both invariants against a
// direct computation written here: a telemetry source is reported stale iff
// some resource one of its GPUs serves is billed in the window after the
// source's last sample + that GPU's sampling interval + stale_after; and each
// team's slice names as stale exactly the sources that are so for one of
// that team's resources (the fleet's names them all).
//
// Each case: a 7-day window; 1–6 resources r<i>, one GPU g<i> each, a team
// of four, a sampling interval of 30 s, 1 or 5 minutes, and 0–3 hourly lines
// on whole minutes anywhere from 2 days before to 1 day after the window
// (overlapping or not); 1–4 sources, each reporting a random subset of the
// GPUs and of two GPUs no resource bills, with a last sample anywhere from 3
// days before the window to its end, or, for half of them, 0–6 minutes
// before one of its resources' billedUntil − stale_after, where the
// interval decides; stale_after 1, 6 or 24 hours.
// billedUntil is the end of a resource's last billed minute in the window:
// the latest min(line end, window end) of its lines that overlap it.
func TestStaleGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	start := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(0, 0, 7)
	minute := func(from time.Time, lo, hi int) time.Time { // a whole minute in [from+lo, from+hi) minutes
		return from.Add(time.Duration(lo+rng.Intn(hi-lo)) * time.Minute)
	}
	teams := []string{"a", "b", "c", "d"}
	intervals := []time.Duration{30 * time.Second, time.Minute, 5 * time.Minute}
	staleCases, freshCases := 0, 0
	for c := range 300 {
		n := 1 + rng.Intn(6)
		p := DefaultParams()
		p.StaleAfter = []time.Duration{time.Hour, 6 * time.Hour, 24 * time.Hour}[rng.Intn(3)]
		in := &Input{Window: Window{Start: start, End: end}, Params: p, SkipTrends: true}
		for _, tm := range teams {
			in.Teams = append(in.Teams, Team{Name: tm})
		}
		team := map[string]string{}            // GPU → its resource's team
		interval := map[string]time.Duration{} // GPU → its sampling interval
		billedUntil := map[string]time.Time{}  // GPU → its resource's, zero when not billed in the window
		var gpuKeys []string
		for i := range n {
			id, g := fmt.Sprintf("r%d", i), fmt.Sprintf("g%d", i)
			gpuKeys = append(gpuKeys, g)
			team[g] = teams[rng.Intn(len(teams))]
			interval[g] = intervals[rng.Intn(len(intervals))]
			in.Resources = append(in.Resources, Resource{ID: id, GPUs: []string{g}, Team: team[g]})
			s := finops.GPUSeries{Key: g, Host: "h" + g, Interval: interval[g]}
			s.Add(start.Unix()/60, 50)
			in.GPUs = append(in.GPUs, s)
			for range rng.Intn(4) {
				from := minute(start, -2*1440, 8*1440)
				to := from.Add(time.Duration(1+rng.Intn(3*1440)) * time.Minute)
				in.Lines = append(in.Lines, gpuLine(id, finops.ModeHourly, "10", from, to, 1))
				if from.Before(end) && to.After(start) {
					if u := minTime(to, end); u.After(billedUntil[g]) {
						billedUntil[g] = u
					}
				}
			}
		}
		wantFleet := map[string]bool{}
		wantTeam := map[string]map[string]bool{}
		for j := range 1 + rng.Intn(4) {
			src := SourceStatus{Name: fmt.Sprintf("smi s%d", j), Kind: "utilization", Status: "ok",
				LastSample: minute(start, -3*1440, 7*1440+1)}
			for _, g := range append(slices.Clone(gpuKeys), "orphan-1", "orphan-2") {
				if rng.Intn(2) == 0 {
					src.GPUs = append(src.GPUs, g)
				}
			}
			// Half the sources end right at the edge of one of their
			// resources: billed until u, last sample u − stale_after − 0…6
			// minutes, so that the sampling interval (½, 1 or 5 minutes)
			// decides.
			if len(src.GPUs) > 0 && rng.Intn(2) == 0 {
				if u := billedUntil[src.GPUs[rng.Intn(len(src.GPUs))]]; !u.IsZero() {
					src.LastSample = minute(u.Add(-p.StaleAfter), -6, 1)
				}
			}
			for _, g := range src.GPUs {
				if u := billedUntil[g]; !u.IsZero() && u.After(src.LastSample.Add(interval[g]+p.StaleAfter)) {
					wantFleet[src.Name] = true
					if wantTeam[team[g]] == nil {
						wantTeam[team[g]] = map[string]bool{}
					}
					wantTeam[team[g]][src.Name] = true
				}
			}
			in.Sources = append(in.Sources, src)
		}
		res, err := Analyze(in)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		sorted := func(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
		if got, want := staleReasons(res.DataQuality.Incomplete), sorted(wantFleet); !slices.Equal(got, want) {
			t.Fatalf("case %d: fleet stale %q, want %q\ninput sources %+v\nbilled until %v", c, got, want, in.Sources, billedUntil)
		}
		for _, tc := range res.ByTeam {
			got := staleReasons(res.ForTeam(tc.Team).DataQuality.Incomplete)
			if want := sorted(wantTeam[tc.Team]); !slices.Equal(got, want) {
				t.Fatalf("case %d: team %s stale %q, want %q", c, tc.Team, got, want)
			}
		}
		if len(wantFleet) > 0 {
			staleCases++
		} else {
			freshCases++
		}
	}
	// The generator must reach both sides of the rule, or the test says little.
	if staleCases < 50 || freshCases < 50 {
		t.Errorf("%d cases with a stale source, %d without: the generator misses a side", staleCases, freshCases)
	}
}
