package plan

import (
	"fmt"
	"strings"

	"github.com/finops-oss/finops/internal/gpu"
)

// currency is the budget currency: the file's, else finops.yaml's, else the
// one currency every price row is in.
func (f *File) currency(opt Options) string {
	if c := strings.ToUpper(strings.TrimSpace(f.Currency)); c != "" {
		return c
	}
	if c := strings.ToUpper(strings.TrimSpace(opt.Currency)); c != "" {
		return c
	}
	cur := ""
	for _, rows := range [][]Price{f.Prices, opt.Prices} {
		for _, pr := range rows {
			c := strings.ToUpper(strings.TrimSpace(pr.Currency))
			if c == "" {
				continue
			}
			if cur != "" && c != cur {
				return "" // mixed: priceTable says so
			}
			cur = c
		}
	}
	return cur
}

// priceTable checks the file's prices, adds finops.yaml's where the file has
// no row for that provider and GPU, and converts every price to the budget
// currency.
func (f *File) priceTable(p *problems, r *resolved, opt Options) []priceRow {
	idx := gpuIndex(r.gpus)
	fx := map[string]float64{}
	for k, v := range opt.FX {
		fx[strings.ToUpper(k)] = v
	}
	for k, v := range f.FX {
		if !positive(v) {
			p.add("fx", -1, k, "want a positive rate: 1 %s = how many %s", k, r.currency)
			continue
		}
		fx[strings.ToUpper(k)] = v
	}
	rate := func(c string) (float64, bool) {
		c = strings.ToUpper(strings.TrimSpace(c))
		if c == "" || c == r.currency {
			return 1, true
		}
		v, ok := fx[c]
		return v, ok
	}
	var out []priceRow
	seen := map[string]int{}
	for i, pr := range f.Prices {
		bad := false
		if strings.TrimSpace(pr.Provider) == "" {
			p.add("prices", i, "provider", "required: who rents it, e.g. AutoDL")
			bad = true
		}
		j, ok := idx[gpu.Key(pr.GPUModel)]
		switch {
		case strings.TrimSpace(pr.GPUModel) == "":
			p.add("prices", i, "gpu_model", "required: the GPU model priced, e.g. A100-80GB")
			bad = true
		case !ok:
			p.add("prices", i, "gpu_model", "%q is not in the GPU table; use one of %s, or add it under gpus:", pr.GPUModel, gpuNames(r.gpus))
			bad = true
		}
		if pr.Hourly == nil && pr.Monthly == nil && pr.Spot == nil {
			p.add("prices", i, "hourly", "give at least one of hourly, monthly, spot")
			bad = true
		}
		for _, fld := range []struct {
			name string
			v    *float64
		}{{"hourly", pr.Hourly}, {"monthly", pr.Monthly}, {"spot", pr.Spot}} {
			if fld.v != nil && !nonNegative(*fld.v) {
				p.add("prices", i, fld.name, "want a price of 0 or more")
				bad = true
			}
		}
		x, ok := rate(pr.Currency)
		if !ok {
			if r.currency == "" {
				p.add("prices", i, "currency", "prices are in several currencies; set currency: at the top of the file (and fx: rates)")
			} else {
				p.add("prices", i, "currency", "%s has no rate to %s; add it under fx:, e.g. fx: {%s: 7.1}", strings.ToUpper(pr.Currency), r.currency, strings.ToUpper(pr.Currency))
			}
			bad = true
		}
		if bad {
			continue
		}
		key := strings.ToLower(strings.TrimSpace(pr.Provider)) + "\x00" + r.gpus[j].Model
		if k, dup := seen[key]; dup {
			p.add("prices", i, "gpu_model", "%s %s is already priced by prices[%d]; keep one row per provider and GPU", pr.Provider, r.gpus[j].Model, k)
			continue
		}
		seen[key] = i
		pr.GPUModel = r.gpus[j].Model
		out = append(out, priceRow{Price: pr, gpu: j, fx: x, origin: "scenario file"})
	}
	for _, pr := range opt.Prices {
		j, ok := idx[gpu.Key(pr.GPUModel)]
		if !ok {
			r.warnings = append(r.warnings, fmt.Sprintf("finops.yaml prices a %s (%s), which is not in the planner's GPU table; add it under gpus: to plan with it", pr.GPUModel, pr.Provider))
			continue
		}
		key := strings.ToLower(strings.TrimSpace(pr.Provider)) + "\x00" + r.gpus[j].Model
		if _, dup := seen[key]; dup {
			continue
		}
		x, ok := rate(pr.Currency)
		if !ok {
			r.warnings = append(r.warnings, fmt.Sprintf("finops.yaml's price for %s %s is in %s, which has no rate to %q; skipped", pr.Provider, pr.GPUModel, pr.Currency, r.currency))
			continue
		}
		seen[key] = -1
		pr.GPUModel = r.gpus[j].Model
		out = append(out, priceRow{Price: pr, gpu: j, fx: x, origin: "finops.yaml"})
	}
	if len(out) == 0 {
		r.warnings = append(r.warnings, "no prices: add a prices: list to the scenario file or to finops.yaml to get a budget")
	}
	return out
}

func gpuNames(gs []GPU) string {
	names := make([]string, len(gs))
	for i, g := range gs {
		names[i] = g.Model
	}
	return strings.Join(names, ", ")
}
