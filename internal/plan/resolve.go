package plan

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/finops-oss/finops/internal/gpu"
)

// The scenario kinds.
const (
	KindInference = "inference"
	KindLoRA      = "lora"
	KindQLoRA     = "qlora"
	KindFull      = "full-finetune"
	KindPretrain  = "pretrain"
	KindData      = "data"
)

const kindNames = "inference, lora, qlora, full-finetune, pretrain, data"

// The rental modes, as in finops.yaml's price catalog.
const (
	ModeHourly  = "hourly"
	ModeMonthly = "monthly"
	ModeSpot    = "spot"
)

// How a scenario's memory spreads over several cards.
const (
	ParallelReplicate = "replicate" // every card holds the whole estimate (data parallel)
	ParallelShard     = "shard"     // the estimate is split over the cards (ZeRO-3, FSDP, tensor parallel)
)

// Defaults of metrics.md §Planner, and the choices this package made where it
// is silent (docs/PLANNER.md says why).
const (
	defaultMFU            = 0.35
	defaultBuffer         = 0.25
	defaultRisk           = 1.3
	defaultRiskHigh       = 1.5
	defaultSpotInflation  = 1.15
	defaultOverhead       = 1.2  // inference and data jobs: EleutherAI's 1.2 × (docs/PLANNER.md)
	defaultTrainOverhead  = 1.05 // training: calibrated on the QLoRA paper and LLaMA-Factory's table
	defaultCUDAContextGiB = 1.0
	defaultUsableVRAM     = 0.9
	defaultMonthlyMinDays = 30.0
	defaultTrainSeqLen    = 2048 // LLaMA-Factory's cutoff_len default
	defaultLoRARank       = 8    // LLaMA-Factory's and PEFT's default rank
	qloraQuantOverhead    = 1.05 // 4-bit blocks carry scales and zero points: +5%
)

// Assumptions are the method's constants as this plan used them.
type Assumptions struct {
	MFU               float64 `json:"mfu"`
	ConcurrencyBuffer float64 `json:"concurrency_buffer"`
	Risk              float64 `json:"risk"`
	RiskHigh          float64 `json:"risk_high"`
	SpotInflation     float64 `json:"spot_inflation"`
	Overhead          float64 `json:"overhead"`
	TrainingOverhead  float64 `json:"training_overhead"`
	CUDAContextGiB    float64 `json:"cuda_context_gib"`
	UsableVRAM        float64 `json:"usable_vram"`
	MonthlyMinDays    float64 `json:"monthly_min_days"`
}

// overheadFor is the memory overhead factor of a kind of work: a training
// job's terms already hold its state and activations, so less is left to the
// framework than in EleutherAI's inference rule of thumb.
func (a Assumptions) overheadFor(kind string) float64 {
	switch kind {
	case KindLoRA, KindQLoRA, KindFull, KindPretrain:
		return a.TrainingOverhead
	}
	return a.Overhead
}

// Options are what the caller adds to the scenario file.
type Options struct {
	// Prices from finops.yaml; a row counts only where the scenario file has
	// none for the same provider and GPU model, so the file can override it.
	Prices []Price
	// Currency and FX from finops.yaml, used when the file gives none.
	Currency string
	FX       map[string]float64
	// Only plans the scenarios with these names (all when empty).
	Only []string
}

// spec is a scenario with every default filled in and every field checked.
type spec struct {
	index     int
	name      string
	kind      string
	notes     string
	model     Model
	modelFrom string
	defaulted []string // fields the planner filled in

	dtype, kvDtype Dtype
	seqLen         float64
	batch          int
	checkpointing  bool
	loraRank       int
	loraTargets    string
	trainable      float64 // given N_trainable; 0 means compute it
	activations    *float64
	memory         *float64 // bytes
	parallelism    string   // auto, replicate, shard

	work      string // compute, hours, gpu_hours, serving, reservation
	tokens    float64
	tokensHow string
	runs      int
	hours     float64
	gpuHours  float64
	mfu       float64

	requestsPerDay, inputTokens, outputTokens float64
	throughput                                float64 // 0: estimate
	servingHours                              float64

	deadlineDays, spanDays float64 // 0: none; spanDays falls back to the file's span_days
	spanGiven              bool    // span_days set on the scenario itself
	interruptible          bool

	gpuModel          string // canonical, "" when free
	gpus, maxGPUs     int    // 0: free / no cap
	provider, pricing string

	buffer, risk, riskHigh float64
}

// priceRow is a catalog row in the plan's currency.
type priceRow struct {
	Price
	gpu    int // index into the GPU table
	fx     float64
	origin string // "scenario file" or "finops.yaml"
}

// resolved is a scenario file made ready to compute.
type resolved struct {
	currency string
	a        Assumptions
	gpus     []GPU
	prices   []priceRow
	specs    []*spec
	warnings []string
}

// problems collects Problems with their place in the file.
type problems struct {
	f    *File
	list []Problem
}

func (p *problems) add(section string, i int, field, format string, args ...any) {
	where := section
	if i >= 0 {
		where = p.f.describe(section, i)
	}
	p.list = append(p.list, Problem{Line: p.f.loc.line(section, i, field), Where: where, Field: field,
		Msg: fmt.Sprintf(format, args...)})
}

// describe names list entry i of a section from the decoded file.
func (f *File) describe(section string, i int) string {
	get := func(key string) string {
		switch {
		case section == "scenarios" && key == "name":
			return f.Scenarios[i].Name
		case section == "models" && key == "name":
			return f.Models[i].Name
		case section == "gpus" && key == "model":
			return f.GPUs[i].Model
		case section == "prices" && key == "provider":
			return f.Prices[i].Provider
		case section == "prices" && key == "gpu_model":
			return f.Prices[i].GPUModel
		}
		return ""
	}
	return describeEntry(section, i, get)
}

// resolve checks the whole file and fills in defaults. It reports every
// problem at once.
func (f *File) resolve(opt Options) (*resolved, error) {
	p := &problems{f: f}
	r := &resolved{}
	r.a = f.assumptions(p)
	r.gpus = f.gpuTable(p)
	models := f.modelTable(p)
	r.currency = f.currency(opt)
	r.prices = f.priceTable(p, r, opt)

	span := 0.0
	if f.SpanDays != nil {
		if *f.SpanDays <= 0 {
			p.add("span_days", -1, "", "want a positive number of days, e.g. 91 for a quarter")
		}
		span = *f.SpanDays
	}
	want := map[string]bool{}
	for _, n := range opt.Only {
		want[n] = true
	}
	seen := map[string]int{}
	for i := range f.Scenarios {
		s := f.resolveScenario(p, i, r, models, span)
		if s == nil {
			continue
		}
		if j, dup := seen[s.name]; dup {
			p.add("scenarios", i, "name", "the name is already used by scenarios[%d]; give each scenario its own name", j)
			continue
		}
		seen[s.name] = i
		if len(want) == 0 || want[s.name] {
			r.specs = append(r.specs, s)
		}
	}
	for _, n := range opt.Only {
		if _, ok := seen[n]; !ok && len(p.list) == 0 {
			names := make([]string, 0, len(seen))
			for k := range seen {
				names = append(names, k)
			}
			sort.Strings(names)
			return nil, fmt.Errorf("plan: %s: no scenario named %q (have %s)", f.name, n, strings.Join(names, ", "))
		}
	}
	if len(p.list) > 0 {
		return nil, &FileError{File: f.name, Problems: p.list}
	}
	return r, nil
}

// assumptions reads the defaults: block.
func (f *File) assumptions(p *problems) Assumptions {
	d := f.Defaults
	a := Assumptions{MFU: defaultMFU, ConcurrencyBuffer: defaultBuffer, Risk: defaultRisk, RiskHigh: defaultRiskHigh,
		SpotInflation: defaultSpotInflation, Overhead: defaultOverhead, TrainingOverhead: defaultTrainOverhead, CUDAContextGiB: defaultCUDAContextGiB,
		UsableVRAM: defaultUsableVRAM, MonthlyMinDays: defaultMonthlyMinDays}
	set := func(dst *float64, v *float64, field string, ok func(float64) bool, want string) {
		if v == nil {
			return
		}
		if !ok(*v) {
			p.add("defaults", -1, field, "%v is out of range; want %s", *v, want)
			return
		}
		*dst = *v
	}
	set(&a.MFU, d.MFU, "mfu", fraction, "a fraction in (0, 1], e.g. 0.35")
	set(&a.ConcurrencyBuffer, d.ConcurrencyBuffer, "concurrency_buffer", nonNegative, "0 or more, e.g. 0.25")
	set(&a.Risk, d.Risk, "risk", atLeastOne, "1 or more, e.g. 1.3")
	set(&a.RiskHigh, d.RiskHigh, "risk_high", atLeastOne, "1 or more, e.g. 1.5")
	set(&a.SpotInflation, d.SpotInflation, "spot_inflation", atLeastOne, "1 or more, e.g. 1.15")
	set(&a.Overhead, d.Overhead, "overhead", atLeastOne, "1 or more, e.g. 1.2")
	set(&a.TrainingOverhead, d.TrainingOverhead, "training_overhead", atLeastOne, "1 or more, e.g. 1.05")
	set(&a.CUDAContextGiB, d.CUDAContextGiB, "cuda_context_gib", nonNegative, "0 or more GiB, e.g. 1")
	set(&a.UsableVRAM, d.UsableVRAM, "usable_vram", fraction, "a fraction in (0, 1], e.g. 0.9")
	set(&a.MonthlyMinDays, d.MonthlyMinDays, "monthly_min_days", nonNegative, "0 or more days, e.g. 30")
	if a.RiskHigh < a.Risk {
		if d.RiskHigh != nil {
			p.add("defaults", -1, "risk_high", "%v is below risk %v; the range is risk to risk_high", a.RiskHigh, a.Risk)
		} else {
			a.RiskHigh = a.Risk
		}
	}
	return a
}

func fraction(v float64) bool    { return v > 0 && v <= 1 }
func nonNegative(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }
func atLeastOne(v float64) bool  { return v >= 1 && !math.IsInf(v, 0) }
func positive(v float64) bool    { return v > 0 && !math.IsInf(v, 0) }

// gpuTable is the default GPU table with the file's overrides and additions.
func (f *File) gpuTable(p *problems) []GPU {
	gs := DefaultGPUs()
	for i, g := range f.GPUs {
		if strings.TrimSpace(g.Model) == "" {
			p.add("gpus", i, "model", "required: the GPU model this row describes, e.g. A100-80GB")
			continue
		}
		idx := gpuIndex(gs)
		j, known := idx[gpu.Key(g.Model)]
		if !known {
			// A vGPU profile or MIG instance fits by its own memory, not
			// its card's: package gpu gives what its name says (the
			// profile's GB; a MIG instance's share of compute and
			// bandwidth), the row the rest.
			row := GPU{Model: strings.TrimSpace(g.Model), Source: "scenario file"}
			_, slice := gpu.ParseSlice(row.Model)
			if slice {
				if sp, ok := gpu.Lookup(row.Model); ok {
					row.TFLOPS, row.VRAMGB, row.BandwidthGBs = sp.TFLOPS, sp.MemoryGB, sp.BandwidthGBs
					row.Source = "scenario file; " + sp.Source
				}
			}
			for _, fld := range []struct {
				name string
				v    *float64
				have float64
			}{{"tflops", g.TFLOPS, row.TFLOPS}, {"vram_gb", g.VRAMGB, row.VRAMGB}, {"bandwidth_gbs", g.BandwidthGBs, row.BandwidthGBs}} {
				switch {
				case fld.v != nil || fld.have > 0:
				case slice:
					p.add("gpus", i, fld.name, "required: %s is a slice of a card and its name does not say its %s (a time-sliced vGPU's compute is shared, not its own); give it for the share you expect", g.Model, fld.name)
				default:
					p.add("gpus", i, fld.name, "required for a GPU model the planner does not know (%s is new); give tflops (dense BF16), vram_gb and bandwidth_gbs", g.Model)
				}
			}
			gs = append(gs, row)
			j = len(gs) - 1
		} else {
			gs[j].Source = "scenario file (overrides " + gs[j].Source + ")"
		}
		for _, fld := range []struct {
			name string
			v    *float64
			dst  *float64
		}{{"tflops", g.TFLOPS, &gs[j].TFLOPS}, {"vram_gb", g.VRAMGB, &gs[j].VRAMGB}, {"bandwidth_gbs", g.BandwidthGBs, &gs[j].BandwidthGBs}} {
			if fld.v == nil {
				continue
			}
			if !positive(*fld.v) {
				p.add("gpus", i, fld.name, "want a positive number")
				continue
			}
			*fld.dst = *fld.v
		}
		if g.NVLink != nil {
			gs[j].NVLink = *g.NVLink
		}
		gs[j].Aliases = append(gs[j].Aliases, g.Aliases...)
	}
	return gs
}

// modelTable is the presets plus the file's models:, keyed by modelKey.
func (f *File) modelTable(p *problems) map[string]Model {
	ms := map[string]Model{}
	for _, m := range Presets() {
		m.Source = "preset: " + m.Source
		ms[modelKey(m.Name)] = m
	}
	for i, spec := range f.Models {
		name := strings.TrimSpace(spec.Name)
		if name == "" {
			p.add("models", i, "name", "required: the name scenarios use in model:")
			continue
		}
		base, known := ms[modelKey(name)]
		if !known {
			base = Model{Name: name}
		}
		base.Source = "models: in the scenario file"
		if spec.Source != "" {
			base.Source += " (" + spec.Source + ")"
		}
		applyShape(&base, shape{spec.Params, spec.ActiveParams, spec.Layers, spec.Hidden, spec.Heads, spec.KVHeads,
			spec.HeadDim, spec.Intermediate, spec.Experts}, func(field, msg string) { p.add("models", i, field, "%s", msg) })
		if spec.Context != nil {
			base.Context = int(*spec.Context)
		}
		if base.Params <= 0 {
			p.add("models", i, "params", "required for a model that is not a preset: the total parameter count, e.g. 20B")
		}
		ms[modelKey(name)] = base
	}
	return ms
}

// shape is the part of a model a scenario or models: entry may set.
type shape struct {
	params, active                                                 *Count
	layers, hidden, heads, kvHeads, headDim, intermediate, experts *int
}

// applyShape overrides m's fields with the given ones, checking each.
func applyShape(m *Model, s shape, bad func(field, msg string)) {
	if s.params != nil {
		if *s.params <= 0 {
			bad("params", "want a positive parameter count, e.g. 7B or 6.74e9")
		}
		m.Params = float64(*s.params)
	}
	if s.active != nil {
		if *s.active <= 0 {
			bad("active_params", "want a positive parameter count, e.g. 12.9B")
		}
		m.ActiveParams = float64(*s.active)
	}
	for _, fld := range []struct {
		name string
		v    *int
		dst  *int
	}{{"layers", s.layers, &m.Layers}, {"hidden", s.hidden, &m.Hidden}, {"heads", s.heads, &m.Heads},
		{"kv_heads", s.kvHeads, &m.KVHeads}, {"head_dim", s.headDim, &m.HeadDim},
		{"intermediate", s.intermediate, &m.Intermediate}, {"experts", s.experts, &m.Experts}} {
		if fld.v == nil {
			continue
		}
		if *fld.v <= 0 {
			bad(fld.name, "want a positive whole number")
			continue
		}
		*fld.dst = *fld.v
	}
	if m.ActiveParams > 0 && m.Params > 0 && m.ActiveParams > m.Params {
		bad("active_params", "is more than params; active parameters are a subset of the total")
	}
	if m.Heads > 0 && m.KVHeads > m.Heads {
		bad("kv_heads", "is more than heads; grouped-query attention has at most as many KV heads as heads")
	}
}
