// Package demo synthesizes a realistic small GPU fleet's billing exports,
// nvidia-smi logs and tasks file, plus the finops.yaml that reads them.
//
// The fleet tells the stories the weekly report must show:
//
//   - autodl-a100x2: two A100-80GB on a monthly AutoDL rental, busy only during
//     one ~3-day LoRA run a week and idle (but billed) the rest of the time,
//     including the whole weekend of the report week;
//   - autodl-4090-01: an hourly RTX 4090, on 09:00–19:00 every day but busy
//     only 10:00–18:00 (an idle head and tail);
//   - autodl-l40s-batch: an hourly L40S running interruptible batch inference,
//     busy the whole time it is on (a spot candidate);
//   - i-0a10g00000000001: an AWS g5.xlarge (1×A10G) from a FOCUS 1.0 export,
//     serving a chat API by day and idling at night, plus non-GPU charges
//     (S3, EBS, a tax row and a credit).
//
// Generation is deterministic for a given seed and `now`; nothing reads the
// clock.
package demo

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/finops-oss/finops/internal/config"
)

// Zone of the AutoDL hosts, their billing export and the report.
const Zone = "Asia/Shanghai"

// HistoryDays is how much history is generated: the report week and the three
// weeks before it (the recommendation lookback).
const HistoryDays = 28

// Fleet is what Generate wrote and the config that reads it.
type Fleet struct {
	Config  *config.Config // billing, telemetry and tasks sources point at the generated files (absolute paths)
	Week    Window         // the report week
	History Window         // [Week.End − 28 days, Week.End): the span all data covers
	Files   []string       // every file written (absolute paths), finops.yaml last
}

// Window is a half-open span [Start, End) with a label such as "2026-W47".
type Window struct {
	Start, End time.Time
	Label      string
}

// LastCompleteISOWeek is the last ISO week (Monday 00:00 to Monday 00:00 in
// loc) that has ended at or before now. On a Monday at 11:00 it is the week
// that ended 11 hours ago; at Monday 00:00 exactly it is the week ending then.
func LastCompleteISOWeek(now time.Time, loc *time.Location) Window {
	if loc == nil {
		loc = time.UTC
	}
	t := now.In(loc)
	midnight := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	sinceMonday := (int(midnight.Weekday()) + 6) % 7
	thisMonday := midnight.AddDate(0, 0, -sinceMonday)
	start := thisMonday.AddDate(0, 0, -7)
	y, w := start.ISOWeek()
	return Window{Start: start, End: thisMonday, Label: fmt.Sprintf("%04d-W%02d", y, w)}
}

// shanghai loads Asia/Shanghai; without a zone database it falls back to the
// fixed UTC+8 offset, which is the same zone (China has had no DST since 1991).
func shanghai() *time.Location {
	if loc, err := time.LoadLocation(Zone); err == nil {
		return loc
	}
	return time.FixedZone("CST", 8*3600)
}

// Random streams: one generator per part, so a change to one part does not
// reshuffle the others.
const (
	streamConst     = 0x9e3779b97f4a7c15
	streamPlan      = 1
	streamAutoDL    = 2
	streamFOCUS     = 3
	streamTasks     = 4
	streamTelemetry = 16 // + host number
)

func newRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^streamConst^(stream*0xbf58476d1ce4e5b9)))
}

// gen holds what every part of the generation shares.
type gen struct {
	dir   string // absolute
	seed  uint64
	loc   *time.Location
	week  Window
	hist  Window
	runs  []span // the A100 LoRA runs, one a week, oldest first
	a100  []span // AutoDL monthly rental periods of autodl-a100x2
	files []string
}

type span struct{ start, end time.Time }

func (s span) contains(t time.Time) bool { return !t.Before(s.start) && t.Before(s.end) }

// Generate writes the demo fleet's files under dir (created if needed) and
// returns the config that reads them. A previous demo in dir is overwritten:
// old nvidia-smi-*.csv files in its telemetry folders are removed first.
func Generate(dir string, now time.Time, seed uint64) (*Fleet, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	g := &gen{dir: abs, seed: seed, loc: shanghai()}
	g.week = LastCompleteISOWeek(now, g.loc)
	hs := g.week.End.AddDate(0, 0, -HistoryDays)
	g.hist = Window{Start: hs, End: g.week.End,
		Label: hs.Format("2006-01-02") + "_" + g.week.End.Format("2006-01-02")}
	g.plan()

	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	steps := []func() error{g.writeAutoDL, g.writeFOCUS, g.writeTasks, g.writeTelemetry}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
	}
	cfg := g.config()
	if err := g.writeConfig(cfg); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	return &Fleet{Config: cfg, Week: g.week, History: g.hist, Files: slices.Clone(g.files)}, nil
}

// plan fixes the A100 rental periods and the weekly LoRA runs.
func (g *gen) plan() {
	r := newRand(g.seed, streamPlan)

	// Monthly rental: the first 30-day period began 5–12 days before the
	// history, mid-afternoon; periods are chained until the history is covered.
	start := g.hist.Start.AddDate(0, 0, -(5 + r.IntN(8))).
		Add(time.Duration(13+r.IntN(4))*time.Hour + time.Duration(r.IntN(60))*time.Minute)
	for start.Before(g.hist.End) {
		end := start.AddDate(0, 0, 30)
		g.a100 = append(g.a100, span{start, end})
		start = end
	}

	// One LoRA run a week. Earlier weeks: 2.5–3.5 days starting on a Monday,
	// Tuesday or Thursday (each week a different day), between 08:00 and 15:00.
	days := []int{0, 1, 3}
	perm := r.Perm(len(days))
	for k := range 3 {
		weekStart := g.hist.Start.AddDate(0, 0, 7*k)
		s := weekStart.AddDate(0, 0, days[perm[k]]).Add(time.Duration(8+r.IntN(8)) * time.Hour)
		e := s.Add(time.Duration(60*60+r.IntN(24*60+1)) * time.Minute)
		if last := weekStart.AddDate(0, 0, 7).Add(-2 * time.Hour); e.After(last) {
			e = last
		}
		g.runs = append(g.runs, span{s, e})
	}
	// The report week: Wednesday 09:00 to Friday 21:00, then an idle weekend.
	ws := g.week.Start
	g.runs = append(g.runs, span{ws.AddDate(0, 0, 2).Add(9 * time.Hour), ws.AddDate(0, 0, 4).Add(21 * time.Hour)})
}

// days returns the local midnights of the history's days.
func (g *gen) days() []time.Time {
	var out []time.Time
	for d := g.hist.Start; d.Before(g.hist.End); d = d.AddDate(0, 0, 1) {
		out = append(out, d)
	}
	return out
}

func (g *gen) path(rel ...string) string {
	return filepath.Join(append([]string{g.dir}, rel...)...)
}

// create opens a file for writing under dir, creating its folder, and
// records it in Files.
func (g *gen) create(rel ...string) (*os.File, error) {
	p := g.path(rel...)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(p)
	if err != nil {
		return nil, err
	}
	g.files = append(g.files, p)
	return f, nil
}
