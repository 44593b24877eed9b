package plan

import (
	"fmt"
	"sort"
)

// Result is a whole plan: every scenario with its memory, GPU fits, options
// and chosen plan, and the period's total budget range.
type Result struct {
	File        string           `json:"file,omitempty"`
	Period      string           `json:"period,omitempty"`
	Currency    string           `json:"currency"`
	Assumptions Assumptions      `json:"assumptions"`
	Total       Total            `json:"total"`
	Scenarios   []ScenarioResult `json:"scenarios"`
	GPUSpecs    []GPU            `json:"gpu_specs"`
	Prices      []PriceUsed      `json:"prices"`
	Warnings    []string         `json:"warnings"`
}

// Total is the budget for every scenario that has a plan.
type Total struct {
	Cost      float64  `json:"cost"`      // at each scenario's risk coefficient
	CostHigh  float64  `json:"cost_high"` // at each scenario's risk_high
	Planned   int      `json:"planned"`
	Unplanned []string `json:"unplanned"` // scenarios without a plan (nothing fits, no price)
}

// ScenarioResult is one scenario, worked through the four steps.
type ScenarioResult struct {
	Name           string   `json:"name"`
	Kind           string   `json:"kind"`
	Notes          string   `json:"notes,omitempty"`
	Model          Model    `json:"model"`
	ModelFrom      string   `json:"model_from"`
	Inputs         Inputs   `json:"inputs"`
	Memory         Memory   `json:"memory"`
	Parallelism    string   `json:"parallelism"`
	ParallelismWhy string   `json:"parallelism_why"`
	Work           Work     `json:"work"`
	GPUs           []GPUFit `json:"gpus"`
	Options        []Option `json:"options"`
	Plan           *Option  `json:"plan"`
	Warnings       []string `json:"warnings"`
}

// Inputs are the scenario's settings with every default filled in.
type Inputs struct {
	Dtype         string   `json:"dtype"`
	KVDtype       string   `json:"kv_dtype,omitempty"`
	SeqLen        float64  `json:"seq_len,omitempty"`
	Batch         int      `json:"batch"`
	Checkpointing *bool    `json:"checkpointing,omitempty"`
	LoRARank      int      `json:"lora_rank,omitempty"`
	LoRATargets   string   `json:"lora_targets,omitempty"`
	MFU           float64  `json:"mfu"`
	Buffer        float64  `json:"concurrency_buffer"`
	Risk          float64  `json:"risk"`
	RiskHigh      float64  `json:"risk_high"`
	DeadlineDays  float64  `json:"deadline_days,omitempty"`
	SpanDays      float64  `json:"span_days,omitempty"`
	Interruptible bool     `json:"interruptible"`
	GPUModel      string   `json:"gpu_model,omitempty"`
	GPUs          int      `json:"gpus,omitempty"`
	MaxGPUs       int      `json:"max_gpus,omitempty"`
	Provider      string   `json:"provider,omitempty"`
	Pricing       string   `json:"pricing,omitempty"`
	Defaulted     []string `json:"defaulted,omitempty"` // settings the planner filled in
}

// PriceUsed is a catalog row as the plan used it.
type PriceUsed struct {
	Price
	Origin string  `json:"origin"` // scenario file or finops.yaml
	FX     float64 `json:"fx"`     // to the plan's currency
}

// Plan works a scenario file through the four steps. It reports every
// problem of the file at once as a *FileError.
func Plan(f *File, opt Options) (*Result, error) {
	if f == nil {
		return nil, fmt.Errorf("plan: no scenario file")
	}
	r, err := f.resolve(opt)
	if err != nil {
		return nil, err
	}
	res := &Result{File: f.name, Period: f.Period, Currency: r.currency, Assumptions: r.a, GPUSpecs: r.gpus,
		Warnings: append([]string{}, r.warnings...), Total: Total{Unplanned: []string{}}, Prices: []PriceUsed{},
		Scenarios: []ScenarioResult{}}
	for _, pr := range r.prices {
		res.Prices = append(res.Prices, PriceUsed{Price: pr.Price, Origin: pr.origin, FX: pr.fx})
	}
	for _, s := range r.specs {
		sr := planScenario(s, r)
		if sr.Plan != nil {
			res.Total.Cost = roundCents(res.Total.Cost + sr.Plan.CostLow)
			res.Total.CostHigh = roundCents(res.Total.CostHigh + sr.Plan.CostHigh)
			res.Total.Planned++
		} else {
			res.Total.Unplanned = append(res.Total.Unplanned, sr.Name)
		}
		res.Scenarios = append(res.Scenarios, sr)
	}
	return res, nil
}

// planScenario runs the four steps for one scenario.
func planScenario(s *spec, r *resolved) ScenarioResult {
	sr := ScenarioResult{Name: s.name, Kind: s.kind, Notes: s.notes, Model: s.model, ModelFrom: s.modelFrom,
		Inputs: inputs(s), Warnings: []string{}, Options: []Option{}}

	// Step 1: memory.
	sr.Memory = estimateMemory(s, r.a)

	// Step 2: which GPU models hold it, on how many cards.
	var auto bool
	sr.Parallelism, auto, sr.ParallelismWhy = chooseParallelism(s, sr.Memory, r.gpus, r.a)
	sr.Work = work(s)
	for gi, g := range r.gpus {
		fit := fitGPU(s, sr.Memory, g, r.a, sr.Parallelism, auto)
		// Step 3: hours on that GPU model.
		if fit.Fits {
			switch s.work {
			case "serving":
				sv := serving(s, sr.Work, g, fit.MinGPUs)
				fit.Serving = &sv
			case "compute", "hours", "gpu_hours":
				cards := fit.MinGPUs
				if s.gpus > 0 {
					cards = s.gpus
				}
				fit.CardHours, fit.CardHoursHow, _ = jobCardHours(s, sr.Work, g, cards)
			}
		}
		// Step 4: price it.
		sr.Options = append(sr.Options, options(s, &fit, r, gi)...)
		sr.GPUs = append(sr.GPUs, fit)
	}
	sortOptions(sr.Options)
	rankGPUs(s, sr.GPUs, sr.Options, r.prices, r.gpus)

	var warn []string
	sr.Plan, warn = choose(s, sr.Options, r.currency)
	sr.Warnings = append(sr.Warnings, warn...)
	if sr.Plan == nil {
		sr.Warnings = append(sr.Warnings, noPlanReason(s, sr))
	}
	return sr
}

// noPlanReason says why a scenario has no plan, and what to do.
func noPlanReason(s *spec, sr ScenarioResult) string {
	var fits []GPUFit
	for _, f := range sr.GPUs {
		if f.Fits && (s.gpuModel == "" || f.GPUModel == s.gpuModel) {
			fits = append(fits, f)
		}
	}
	if len(fits) == 0 {
		if s.gpuModel != "" {
			for _, f := range sr.GPUs {
				if f.GPUModel == s.gpuModel {
					return fmt.Sprintf("no plan: the pinned %s cannot hold this scenario: %s", s.gpuModel, f.Why)
				}
			}
		}
		return fmt.Sprintf("no plan: no GPU model in the table holds %s; use a smaller dtype, a shorter seq_len, qlora, or parallelism: shard", gbText(sr.Memory.TotalGB*gb))
	}
	if s.gpus > 0 {
		least := fits[0]
		for _, f := range fits {
			if f.MinGPUs < least.MinGPUs {
				least = f
			}
		}
		if least.MinGPUs > s.gpus {
			return fmt.Sprintf("no plan: %s needs at least %s (of %s), more than the %d pinned in gpus", gbText(sr.Memory.TotalGB*gb), cardsText(least.MinGPUs), least.GPUModel, s.gpus)
		}
	}
	what := "the GPU models that fit"
	if s.gpuModel != "" {
		what = s.gpuModel
	}
	if s.provider != "" {
		what += " from " + s.provider
	}
	if s.pricing != "" {
		return fmt.Sprintf("no plan: no %s price for %s; add one under prices: or remove the pricing pin", s.pricing, what)
	}
	return fmt.Sprintf("no plan: no price for %s; add one under prices:", what)
}

func inputs(s *spec) Inputs {
	in := Inputs{Dtype: string(s.dtype), SeqLen: s.seqLen, Batch: s.batch, LoRARank: s.loraRank, LoRATargets: s.loraTargets,
		MFU: s.mfu, Buffer: s.buffer, Risk: s.risk, RiskHigh: s.riskHigh, DeadlineDays: s.deadlineDays, SpanDays: s.spanDays,
		Interruptible: s.interruptible, GPUModel: s.gpuModel, GPUs: s.gpus, MaxGPUs: s.maxGPUs, Provider: s.provider,
		Pricing: s.pricing, Defaulted: s.defaulted}
	if s.kind == KindInference || s.kind == KindData {
		in.KVDtype = string(s.kvDtype)
	}
	switch s.kind {
	case KindLoRA, KindQLoRA, KindFull, KindPretrain:
		c := s.checkpointing
		in.Checkpointing = &c
	}
	sort.Strings(in.Defaulted)
	return in
}
