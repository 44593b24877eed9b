package prom

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/prometheus/common/model"
)

// fetchSpan queries [day, end) — day is any step-aligned start — into a Day
// named uri ("#partial" added when not complete). Its steps: each
// configured query's series gathered into one span (spanData.add), the
// steps each task held a GPU cut into runs (heldRuns), and the points
// checked, counted and hashed in GPU order (finishDay).
func (c *Client) fetchSpan(ctx context.Context, day, end time.Time, complete bool, uri string) (*Day, error) {
	d := &Day{Start: day, step: c.src.Step, interval: c.src.Step, Complete: complete}
	if !end.After(day) {
		d.URI = uri + "#partial"
		return d, nil
	}
	sd := &spanData{
		dayMs:  day.UnixMilli(),
		stepMs: c.src.Step.Milliseconds(),
		nSteps: int((end.Sub(day) + c.src.Step - 1) / c.src.Step),
		gpus:   map[string]*gpuDay{},
		held:   map[labelRun][]uint64{},
		tasks:  c.src.TaskLabels,
	}
	for _, q := range []spanQuery{{kUtil, c.q.Util, c.src.Queries.Util}, {kMemUsed, c.q.MemUsed, c.src.Queries.MemUsed},
		{kMemTotal, c.q.MemTotal, c.src.Queries.MemTotal}, {kPower, c.q.Power, c.src.Queries.Power}} {
		if strings.TrimSpace(q.expr) == "" {
			continue
		}
		warns, err := c.queryRange(ctx, q.expr, day, end, func(ss *model.SampleStream) { sd.add(q.k, ss) })
		if err == nil && sd.tooMany > 0 {
			err = fmt.Errorf("the answer names more than %d GPUs for one day (%d more series were left out): finops keeps a day of "+
				"each GPU in memory; narrow the query (a label matcher per cluster) and configure one source for each part", maxGPUsPerDay, sd.tooMany)
		}
		if err != nil {
			return nil, &FetchError{Source: c.src.Name, Day: day, Query: q.conf, Sent: q.expr, Err: err}
		}
		d.Warnings = append(d.Warnings, warns...)
	}
	c.finishDay(d, sd, heldRuns(sd.held, sd.nSteps, sd.dayMs, sd.stepMs), uri)
	return d, nil
}

// spanQuery is one measure's query: as sent (with its windows) and as
// configured (what an error quotes).
type spanQuery struct {
	k          metricKind
	expr, conf string
}

// spanData gathers a span's series: each GPU's points, and the steps at
// which each task label held each GPU. One GPU's series may split in two
// (`or` of two metrics), so task spans are cut only after the join.
type spanData struct {
	dayMs, stepMs int64
	nSteps        int
	gpus          map[string]*gpuDay
	held          map[labelRun][]uint64 // a bit per step: a pod-labelled series each
	tooMany       int                   // series of GPUs past maxGPUsPerDay
	tasks         dcgm.TaskLabels
}

// add takes one series of measure k into its GPU's points; a series that
// names no GPU, or a GPU past maxGPUsPerDay, is read and not kept.
func (sd *spanData) add(k metricKind, ss *model.SampleStream) {
	labels := make(map[string]string, len(ss.Metric))
	for name, v := range ss.Metric {
		labels[string(name)] = string(v)
	}
	g, ok := dcgm.Identify(labels)
	if !ok {
		return
	}
	key := g.Key()
	gd := sd.gpus[key]
	if gd == nil {
		if len(sd.gpus) >= maxGPUsPerDay {
			sd.tooMany++ // the rest of the answer is read, not kept
			return
		}
		gd = &gpuDay{gpu: g, points: newPoints(sd.nSteps)}
		sd.gpus[key] = gd
	}
	if gd.gpu.Name == "" {
		gd.gpu.Name = g.Name
	}
	var steps []uint64
	if k == kUtil && !sd.tasks.Empty() {
		steps = sd.taskSteps(labels, g, key)
	}
	for _, sp := range ss.Values {
		v := float64(sp.Value)
		// query_range answers at start + k × step; anything else is not ours.
		off := int64(sp.Timestamp) - sd.dayMs
		// A missing value (NaN: the exporter had none at that step)
		// is no data, never zero, and not a bad reading either: the
		// point keeps its other measures with no utilization. A
		// number out of range is judged below (finops.ValidUtil).
		if dcgm.Missing(v) || off < 0 || off%sd.stepMs != 0 || off/sd.stepMs >= int64(sd.nSteps) {
			continue
		}
		si := off / sd.stepMs
		gd.addValue(int(si), k, v)
		if steps != nil {
			steps[si/64] |= 1 << (si % 64) // the task holds the GPU for the steps its series has values
		}
	}
}

// taskSteps is the step bitmap of the task a utilization series' labels
// name on GPU g (nil when they name none), made on first use.
func (sd *spanData) taskSteps(labels map[string]string, g dcgm.GPU, key string) []uint64 {
	task, team, kind := sd.tasks.Of(labels)
	if task == "" {
		return nil
	}
	lr := labelRun{task: task, team: team, kind: kind, host: g.Host, key: key}
	steps := sd.held[lr]
	if steps == nil {
		steps = make([]uint64, (sd.nSteps+63)/64)
		sd.held[lr] = steps
	}
	return steps
}

// addValue sets measure k of step i's point to v, or averages v in when
// another series of the GPU already gave one.
func (gd *gpuDay) addValue(i int, k metricKind, v float64) {
	p := gd.points.at(i)
	if bit := uint8(1) << k; p.has&bit == 0 {
		p.vals[k] = v
		p.has |= bit
		return
	}
	if k == kUtil && !(finops.ValidUtil(p.vals[k]) && finops.ValidUtil(v)) {
		return
	}
	// A second series of the GPU at this step: its pod labels changed
	// within the minute (a pod's last sample at 10:17:07, the next pod's
	// or the unlabelled series' first at 10:17:37). The minute is the mean
	// of all its samples (metrics.md §Utilization), not the first series'
	// alone: the series' means are averaged, which is that mean when each
	// holds as many samples (one each at a handover of 30 s scrapes). An
	// out-of-range utilization is not averaged into a valid one: the first
	// is kept, and judged below.
	if gd.shared == nil {
		gd.shared = map[int]int{}
	}
	key := i*4 + int(k)
	c := float64(1 + gd.shared[key])
	p.vals[k] = (p.vals[k]*c + v) / (c + 1)
	gd.shared[key]++
}

// heldRuns cuts each task label's step bitmap into its runs of held steps.
func heldRuns(held map[labelRun][]uint64, nSteps int, dayMs, stepMs int64) []labelRun {
	var runs []labelRun
	for lr, steps := range held {
		open := false
		for i := range nSteps {
			on := steps[i/64]>>(i%64)&1 == 1
			ms := dayMs + int64(i)*stepMs
			switch {
			case on && !open:
				lr.start, open = ms, true
			case !on && open:
				runs = append(runs, lr)
				open = false
			}
			if on {
				lr.last = ms
			}
		}
		if open {
			runs = append(runs, lr)
		}
	}
	return runs
}

// finishDay hands sd's GPUs to d in key order, drops invalid utilization,
// sets the sample interval and the task runs, and hashes the source, the
// queries, every point and run and the URI, so that the same answer twice
// is stored once.
func (c *Client) finishDay(d *Day, sd *spanData, runs []labelRun, uri string) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%+v\n%s\n%s\n", c.src.URL, c.src.Name, c.q, c.src.Step, d.Start.Format(time.RFC3339))
	keys := make([]string, 0, len(sd.gpus))
	for k := range sd.gpus {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	samples := 0
	// Spacings between a GPU's consecutive points, in steps: how many of each.
	spacings := map[int]int{}
	for _, k := range keys {
		gd := sd.gpus[k]
		gd.model, gd.slice = ingest.GPUModel(c.src.Catalog, gd.gpu.Name)
		d.gpus = append(d.gpus, gd)
		samples += sd.hashPoints(h, d, k, gd, spacings)
	}
	d.interval = time.Duration(medianSpacing(spacings)) * c.src.Step
	d.runs = mergeRuns(runs, c.src.Step)
	for _, r := range d.runs {
		fmt.Fprintf(h, "run %s %s %s %s %v %d %d\n", r.Task, r.Team, r.Kind, r.Resource, r.GPUs, r.Start.UnixMilli(), r.End.UnixMilli())
	}
	d.Samples, d.Runs = samples, len(d.runs)
	d.URI = uri
	if !d.Complete || len(d.Warnings) > 0 {
		d.Complete = false
		d.URI += "#partial"
	}
	// The URI is hashed too: a complete day whose data a partial fetch
	// already stored is still recorded as complete, and not fetched again.
	fmt.Fprintln(h, d.URI)
	d.SHA256 = hex.EncodeToString(h.Sum(nil))
}

// hashPoints drops gd's points whose utilization is no sample (counted in
// d.Dropped), counts the spacings between the rest and hashes them; it
// returns how many it kept.
func (sd *spanData) hashPoints(h hash.Hash, d *Day, k string, gd *gpuDay, spacings map[int]int) int {
	samples, prev := 0, -1
	for i, p := range gd.points.all() {
		if p.has == 0 {
			continue
		}
		if p.has&(1<<kUtil) != 0 && !finops.ValidUtil(p.vals[kUtil]) {
			p.has = 0 // no sample, as from every source
			d.Dropped++
			continue
		}
		if prev >= 0 {
			spacings[i-prev]++
		}
		prev = i
		samples++
		fmt.Fprintf(h, "%s %d", k, sd.dayMs+int64(i)*sd.stepMs)
		for m := range p.vals {
			if p.has&(1<<m) != 0 {
				fmt.Fprintf(h, " %s", strconv.FormatFloat(p.vals[m], 'g', -1, 64))
			} else {
				fmt.Fprint(h, " -")
			}
		}
		fmt.Fprintln(h)
	}
	return samples
}
