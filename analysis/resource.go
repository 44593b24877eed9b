package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/finops-oss/finops"
)

// gpuResource is one billed GPU resource with its lines and the GPUs that
// serve it, in slot order.
type gpuResource struct {
	key           string // ResourceId, else ResourceName
	name          string
	provider      string
	model         string
	mode          string // pricing mode of its latest line
	gpuCount      int    // the most GPUs any of its lines bills
	team          string
	interruptible bool
	lines         []*finops.BillingLine
	slots         []*slot        // known GPUs, at most gpuCount
	silent        map[string]int // GPUs task runs name that report no telemetry → their slot (runSlots)
}

type slot struct {
	series *finops.GPUSeries
	// loaded holds series' minutes while its resource is analysed when
	// series is an outline (Input.LoadSeries).
	loaded *finops.GPUSeries
	grid   gpuGrid
}

// minutes is the series with its minutes: the loaded one, or series itself.
func (s *slot) minutes() *finops.GPUSeries {
	if s.loaded != nil {
		return s.loaded
	}
	return s.series
}

func (s *slot) key() string { return s.series.Key }

// resourceKey names a line's resource: ResourceId, else ResourceName.
func resourceKey(l *finops.BillingLine) string {
	if l.ResourceID != "" {
		return l.ResourceID
	}
	return l.ResourceName
}

// groupGPUResources collects GPU usage lines per resource, in a stable order.
func groupGPUResources(lines []finops.BillingLine) []*gpuResource {
	byKey := map[string]*gpuResource{}
	var out []*gpuResource
	for i := range lines {
		l := &lines[i]
		if !l.IsGPUUsage() {
			continue
		}
		k := groupKey(l)
		if k == "" {
			k = "(no resource id) " + l.Provider + " " + l.GPUModel
		}
		r := byKey[k]
		if r == nil {
			r = &gpuResource{key: k}
			byKey[k] = r
			out = append(out, r)
		}
		r.lines = append(r.lines, l)
		if l.GPUCount > r.gpuCount {
			r.gpuCount = l.GPUCount
		}
	}
	for _, r := range out {
		latest := r.lines[0]
		models := map[string]int{}
		for _, l := range r.lines {
			if !l.ChargeStart.Before(latest.ChargeStart) {
				latest = l
			}
			models[l.GPUModel]++
		}
		r.name, r.provider, r.mode = latest.ResourceName, latest.Provider, latest.PricingMode
		if k := resourceKey(latest); k != "" {
			r.key = k // as the latest line spells it (Azure ids change case)
		}
		if r.mode == "" {
			r.mode = finops.ModeHourly
		}
		best := 0
		for _, m := range sortedKeys(models) {
			if models[m] > best {
				r.model, best = m, models[m]
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
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
	for _, r := range resources {
		c, configured := cfg.lookup(r.key, r.name)
		// An entry that only sets the team leaves the matching automatic.
		configured = configured && (len(c.GPUs) > 0 || len(c.Hosts) > 0)
		var picks []int
		if configured {
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
		} else {
			for i := range series {
				if owners := auto[strings.ToLower(series[i].Host)]; !claimed[i] && len(owners) == 1 && owners[0] == r {
					picks, claimed[i] = append(picks, i), true
				}
			}
		}
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
		if len(picks) > r.gpuCount {
			overfull = append(overfull, r.key)
			for _, i := range picks[r.gpuCount:] {
				claimed[i] = false
			}
			picks = picks[:r.gpuCount]
		}
		for _, i := range picks {
			r.slots = append(r.slots, &slot{series: &series[i]})
		}
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
// resources one of whose aliases it equals, whole or by its first DNS label. A
// host the config gives to a resource is nobody else's.
func autoHosts(resources []*gpuResource, cfg *resourceConfig, series []finops.GPUSeries) map[string][]*gpuResource {
	out := map[string][]*gpuResource{}
	for _, h := range cfg.hosts() {
		out[h] = nil
	}
	for i := range series {
		h := strings.ToLower(series[i].Host)
		if h == "" {
			continue
		}
		if _, done := out[h]; done {
			continue
		}
		short, _, _ := strings.Cut(h, ".")
		var owners []*gpuResource
		for _, r := range resources {
			if c, ok := cfg.lookup(r.key, r.name); ok && (len(c.GPUs) > 0 || len(c.Hosts) > 0) {
				continue
			}
			for _, n := range resourceAliases(r.key, r.name) {
				if n == h || n == short {
					owners = append(owners, r)
					break
				}
			}
		}
		out[h] = owners
	}
	return out
}
