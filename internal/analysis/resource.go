package analysis

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops"
)

// gpuResource is one billed GPU resource with what the analysis reads of its
// lines and the GPUs that serve it, in slot order.
type gpuResource struct {
	key           string // ResourceId, else ResourceName
	name          string
	provider      string
	region        string // Region of its latest line, for its grid intensity (energy.go)
	model         string
	mode          string // pricing mode of its latest line
	gpuCount      int    // the most GPUs any of its lines bills
	team          string
	interruptible bool
	lastTeam      string                // the "team" tag of its last line
	charges       []charge              // its lines with a cost, for rates
	months        []monthCharge         // its monthly lines of one month each, for contractMonthly
	lines         []*finops.BillingLine // its lines, for Now only (resourceGrouper.keepLines)
	slots         []*slot               // known GPUs, at most gpuCount
	silent        map[string]int        // GPUs task runs name that report no telemetry → their slot (runSlots)
	// billedEnd is the grid index after its last billed minute in the
	// window (0: none billed there), for staleness (stale.go).
	billedEnd int

	// while grouping: the latest line's start and id, and the lines per GPU model
	latestStart time.Time
	latestKey   string
	models      map[string]int
}

// charge is what rates reads of a GPU usage line with a cost: its minutes
// [m0, m1) and what each costs in the reporting currency. It is 32 bytes
// where the line is over 400, so a quarter's lines need not stay in memory
// for the rates of the resource the analysis reaches last.
type charge struct {
	m0, m1 int64
	per    float64
	gpus   int
}

type slot struct {
	series *finops.GPUSeries
	// loaded holds series' minutes while its resource is analysed when
	// series is an outline (Input.LoadSeries).
	loaded *finops.GPUSeries
	// parts are the MIG instances of the card series stands for, when the
	// slot is a MIG-partitioned card (cardSlots); their minutes make its
	// grid (cardGrid) and series has none. partsLoaded are their loaded
	// minutes, as loaded is series'.
	parts       []*finops.GPUSeries
	partsLoaded []*finops.GPUSeries
	grid        gpuGrid
}

// minutes is the series with its minutes: the loaded one, or series itself.
func (s *slot) minutes() *finops.GPUSeries {
	if s.loaded != nil {
		return s.loaded
	}
	return s.series
}

// partMinutes are the slot's MIG instances with their minutes.
func (s *slot) partMinutes() []*finops.GPUSeries {
	if s.partsLoaded != nil {
		return s.partsLoaded
	}
	return s.parts
}

// resourceKey names a line's resource: ResourceId, else ResourceName.
func resourceKey(l *finops.BillingLine) string {
	if l.ResourceID != "" {
		return l.ResourceID
	}
	return l.ResourceName
}

// resourceGrouper collects GPU usage lines per resource, one line at a
// time, in a stable order.
type resourceGrouper struct {
	conv      *converter // converts each line's cost for its charge
	keepLines bool       // keep each resource's lines (Now reads them)
	byKey     map[string]*gpuResource
	out       []*gpuResource
}

func newResourceGrouper(conv *converter, keepLines bool) *resourceGrouper {
	return &resourceGrouper{conv: conv, keepLines: keepLines, byKey: map[string]*gpuResource{}}
}

// add takes one line; it keeps l itself only with keepLines.
func (g *resourceGrouper) add(l *finops.BillingLine) {
	if !l.IsGPUUsage() {
		return
	}
	k := groupKey(l)
	if k == "" {
		k = "(no resource id) " + l.Provider + " " + l.GPUModel
	}
	r := g.byKey[k]
	if r == nil {
		r = &gpuResource{key: k, models: map[string]int{}}
		g.byKey[k] = r
		g.out = append(g.out, r)
	}
	if g.keepLines {
		r.lines = append(r.lines, l)
	}
	if l.GPUCount > r.gpuCount {
		r.gpuCount = l.GPUCount
	}
	if len(r.models) == 0 || !l.ChargeStart.Before(r.latestStart) {
		r.latestStart, r.latestKey = l.ChargeStart, resourceKey(l)
		r.name, r.provider, r.mode = l.ResourceName, l.Provider, l.PricingMode
		r.region = l.Region
	}
	r.models[l.GPUModel]++
	r.lastTeam = l.Tags["team"]
	if c, ok := l.Cost(); ok {
		m0, m1 := floorMinute(l.ChargeStart), ceilMinute(l.ChargeEnd)
		if m1 > m0 {
			cost := g.conv.amount(c, l.Currency).InexactFloat64()
			r.charges = append(r.charges, charge{m0: m0, m1: m1, per: cost / float64(m1-m0), gpus: l.GPUCount})
			if l.PricingMode == finops.ModeMonthly && oneMonth(l.ChargeStart, l.ChargeEnd) {
				r.months = append(r.months, monthCharge{m0: m0, m1: m1, cost: cost, gpus: l.GPUCount})
			}
		}
	}
}

// resources are the resources of the lines added, sorted by key.
func (g *resourceGrouper) resources() []*gpuResource {
	for _, r := range g.out {
		if r.latestKey != "" {
			r.key = r.latestKey // as the latest line spells it (Azure ids change case)
		}
		if r.mode == "" {
			r.mode = finops.ModeHourly
		}
		best := 0
		for _, m := range sortedKeys(r.models) {
			if r.models[m] > best {
				r.model, best = m, r.models[m]
			}
		}
		r.models = nil
	}
	out := g.out
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// groupGPUResources collects the GPU usage lines of lines per resource,
// keeping them (what Now needs).
func groupGPUResources(lines []finops.BillingLine, conv *converter) []*gpuResource {
	g := newResourceGrouper(conv, true)
	for i := range lines {
		g.add(&lines[i])
	}
	return g.resources()
}

// claimConfigured claims the unclaimed series a resource's config entry
// names: its GPUs (by key or UUID) first, then every GPU of its hosts.
func claimConfigured(series []finops.GPUSeries, claimed []bool, c Resource) []int {
	var picks []int
	for _, k := range c.GPUs {
		for i := range series {
			if !claimed[i] && (series[i].Key == k || series[i].UUID == k) {
				picks, claimed[i] = append(picks, i), true
			}
		}
	}
	for _, h := range c.Hosts {
		for i := range series {
			if !claimed[i] && strings.EqualFold(series[i].Host, h) {
				picks, claimed[i] = append(picks, i), true
			}
		}
	}
	return picks
}

// sortPicks orders a resource's series by host, GPU index and key, so
// that its slots do not depend on the order telemetry arrived in.
func sortPicks(series []finops.GPUSeries, picks []int) {
	sort.SliceStable(picks, func(a, b int) bool {
		sa, sb := &series[picks[a]], &series[picks[b]]
		if sa.Host != sb.Host {
			return sa.Host < sb.Host
		}
		if sa.Index != sb.Index {
			return sa.Index < sb.Index
		}
		return sa.Key < sb.Key
	})
}

// matchGPUs assigns telemetry series to resources: GPUs named in the config,
// then all GPUs of the configured hosts, then — for resources with no
// configuration — GPUs whose host (or its first DNS label: gpu-a.lab.internal)
// equals the resource id, its last path segment or its name (resourceAliases),
// when exactly one such resource names it. The config entry of a resource is
// found the same way (resourceConfig.lookup).
// It returns the series no resource claimed and the hosts left unmatched
// because several resources could be theirs.
func matchGPUs(resources []*gpuResource, cfg *resourceConfig, series []finops.GPUSeries) (unmatched []*finops.GPUSeries, overfull, ambiguous []string) {
	claimed := make([]bool, len(series))
	auto := autoHosts(resources, cfg, series)
	// The series each resource is the only automatic owner of, in order.
	owned := map[*gpuResource][]int{}
	for i := range series {
		if owners := auto[strings.ToLower(series[i].Host)]; len(owners) == 1 {
			owned[owners[0]] = append(owned[owners[0]], i)
		}
	}
	for _, r := range resources {
		c, configured := cfg.lookup(r.key, r.name)
		// An entry that only sets the team leaves the matching automatic.
		configured = configured && (len(c.GPUs) > 0 || len(c.Hosts) > 0)
		var picks []int
		if configured {
			picks = claimConfigured(series, claimed, c)
		} else {
			for _, i := range owned[r] {
				if !claimed[i] {
					picks, claimed[i] = append(picks, i), true
				}
			}
		}
		sortPicks(series, picks)
		// A card's MIG instances are one billed card (mig_card.go), unless
		// the bill bills the slices themselves.
		slots := cardSlots(series, picks, !billsSlices(r.model))
		if len(slots) > r.gpuCount {
			overfull = append(overfull, r.key)
			for _, sl := range slots[r.gpuCount:] {
				for _, g := range append([]*finops.GPUSeries{sl.series}, sl.parts...) {
					if i := indexOf(series, g); i >= 0 {
						claimed[i] = false
					}
				}
			}
			slots = slots[:r.gpuCount]
		}
		r.slots = append(r.slots, slots...)
	}
	for i := range series {
		if !claimed[i] {
			unmatched = append(unmatched, &series[i])
		}
	}
	for _, h := range sortedKeys(auto) {
		if len(auto[h]) > 1 {
			var names []string
			for _, r := range auto[h] {
				names = append(names, r.key)
			}
			ambiguous = append(ambiguous, fmt.Sprintf("%s (%s)", h, strings.Join(names, ", ")))
		}
	}
	return unmatched, overfull, ambiguous
}

// autoHosts maps each telemetry host (lower case) to the unconfigured
// resources one of whose aliases it equals, whole or by its first DNS label,
// in the order of resources. A host the config gives to a resource is nobody
// else's. The aliases are indexed once: comparing every host with every
// resource took seconds at 10,000 GPUs.
func autoHosts(resources []*gpuResource, cfg *resourceConfig, series []finops.GPUSeries) map[string][]*gpuResource {
	out := map[string][]*gpuResource{}
	for _, h := range cfg.hosts() {
		out[h] = nil
	}
	byAlias := map[string][]int{} // alias → indexes into resources, ascending
	for i, r := range resources {
		if c, ok := cfg.lookup(r.key, r.name); ok && (len(c.GPUs) > 0 || len(c.Hosts) > 0) {
			continue
		}
		for _, n := range resourceAliases(r.key, r.name) {
			byAlias[n] = append(byAlias[n], i)
		}
	}
	var idx []int
	for i := range series {
		h := strings.ToLower(series[i].Host)
		if h == "" {
			continue
		}
		if _, done := out[h]; done {
			continue
		}
		short, _, _ := strings.Cut(h, ".")
		idx = append(idx[:0], byAlias[h]...)
		if short != h {
			idx = append(idx, byAlias[short]...)
		}
		slices.Sort(idx)
		var owners []*gpuResource
		for j, r := range idx {
			if j == 0 || r != idx[j-1] { // a resource whose aliases give h and its short name
				owners = append(owners, resources[r])
			}
		}
		out[h] = owners
	}
	return out
}
