package plan

import (
	"fmt"
	"math"
)

// Work is how much computing a scenario is, before any GPU is chosen.
type Work struct {
	Kind          string  `json:"kind"` // compute, hours, gpu_hours, serving, reservation
	Runs          int     `json:"runs,omitempty"`
	Tokens        float64 `json:"tokens,omitempty"` // per run
	TokensHow     string  `json:"tokens_how,omitempty"`
	FLOPsPerToken float64 `json:"flops_per_token,omitempty"`
	FLOPs         float64 `json:"flops,omitempty"` // all runs
	FLOPsHow      string  `json:"flops_how,omitempty"`
	Hours         float64 `json:"hours,omitempty"`     // given wall-clock hours per run
	GPUHours      float64 `json:"gpu_hours,omitempty"` // given card-hours per run

	RequestsPerDay     float64 `json:"requests_per_day,omitempty"`
	InputTokensPerDay  float64 `json:"input_tokens_per_day,omitempty"`
	OutputTokensPerDay float64 `json:"output_tokens_per_day,omitempty"`
	ServingHoursPerDay float64 `json:"serving_hours_per_day,omitempty"`
	Throughput         float64 `json:"throughput,omitempty"` // given generated tokens/s per GPU
}

// flopsPerParamToken is metrics.md's training and inference cost per
// parameter and token: forward 2, backward 4 (full) or 2 (LoRA: no weight
// gradients for the frozen base, but activation gradients all the way down).
func flopsPerParamToken(kind string) float64 {
	switch kind {
	case KindFull, KindPretrain:
		return 6
	case KindLoRA, KindQLoRA:
		return 4
	}
	return 2 // inference and data processing: the forward pass
}

// work sizes a scenario.
func work(s *spec) Work {
	w := Work{Kind: s.work, Runs: s.runs}
	switch s.work {
	case "compute":
		k := flopsPerParamToken(s.kind)
		n := s.model.computeParams()
		w.Tokens, w.TokensHow = s.tokens, s.tokensHow
		w.FLOPsPerToken = k * n
		w.FLOPs = k * n * s.tokens * float64(s.runs)
		w.FLOPsHow = fmt.Sprintf("%s × N × tokens × runs = %s × %s × %s × %d", num(k), num(k), num(n), num(s.tokens), s.runs)
		if s.model.ActiveParams > 0 {
			w.FLOPsHow += " (N = active parameters)"
		}
	case "hours":
		w.Hours = s.hours
	case "gpu_hours":
		w.GPUHours = s.gpuHours
	case "serving":
		w.RequestsPerDay = s.requestsPerDay
		w.InputTokensPerDay = s.requestsPerDay * s.inputTokens
		w.OutputTokensPerDay = s.requestsPerDay * s.outputTokens
		w.ServingHoursPerDay = s.servingHours
		w.Throughput = s.throughput
	}
	return w
}

// jobCardHours is the card-hours a training or data job needs on one GPU
// model (all runs, before any buffer), assuming the work scales linearly
// with the number of cards. cards is how many the given hours were measured
// on. ok is false for reservations, which have no work size.
func jobCardHours(s *spec, w Work, g GPU, cards int) (h float64, how string, ok bool) {
	switch s.work {
	case "compute":
		h = w.FLOPs / (g.TFLOPS * 1e12 * s.mfu) / 3600
		return h, fmt.Sprintf("FLOPs / (TFLOPS × MFU × 3600 s) = %s / (%s × 10¹² × %s × 3600)", num(w.FLOPs), num(g.TFLOPS), num(s.mfu)), true
	case "gpu_hours":
		h = s.gpuHours * float64(s.runs)
		return h, fmt.Sprintf("gpu_hours × runs = %s × %d (given)", num(s.gpuHours), s.runs), true
	case "hours":
		h = s.hours * float64(cards) * float64(s.runs)
		return h, fmt.Sprintf("hours × cards × runs = %s × %d × %d (given)", num(s.hours), cards, s.runs), true
	}
	return 0, "", false
}

// Serving is an inference scenario's capacity on one GPU model.
type Serving struct {
	PrefillTokensPerSec float64 `json:"prefill_tokens_per_sec"` // per GPU, compute bound
	DecodeTokensPerSec  float64 `json:"decode_tokens_per_sec"`  // per GPU, generated tokens
	DecodeBound         string  `json:"decode_bound"`           // bandwidth, compute or given
	BusyCardHoursPerDay float64 `json:"busy_card_hours_per_day"`
	Cards               int     `json:"cards"` // replicas × cards per replica
	How                 string  `json:"how"`
}

// serving sizes an inference deployment on g. Prefill (reading the prompt)
// is compute bound: TFLOPS × MFU / (2 × N) tokens/s per GPU. Decoding reads
// every weight once per step for the whole batch, so one GPU generates at
// most batch × bandwidth / weight bytes tokens/s (a GPU holding 1/n of the
// weights steps n times faster, so per GPU this holds for any split), and
// never more than the compute bound. A measured throughput replaces both.
// The traffic is spread evenly over serving_hours_per_day; cards come in
// whole replicas of perReplica cards.
func serving(s *spec, w Work, g GPU, perReplica int) Serving {
	var sv Serving
	var gpuSeconds float64
	if s.throughput > 0 {
		sv.DecodeTokensPerSec, sv.DecodeBound = s.throughput, "given"
		gpuSeconds = w.OutputTokensPerDay / s.throughput
		sv.How = fmt.Sprintf("output tokens per day / throughput = %s / %s tokens/s", num(w.OutputTokensPerDay), num(s.throughput))
	} else {
		n := s.model.computeParams()
		compute := g.TFLOPS * 1e12 * s.mfu / (2 * n)
		bandwidth := float64(s.batch) * g.BandwidthGBs * 1e9 / WeightBytes(s.model.Params, s.dtype)
		sv.PrefillTokensPerSec = compute
		sv.DecodeTokensPerSec, sv.DecodeBound = bandwidth, "bandwidth"
		if compute < bandwidth {
			sv.DecodeTokensPerSec, sv.DecodeBound = compute, "compute"
		}
		gpuSeconds = w.InputTokensPerDay/compute + w.OutputTokensPerDay/sv.DecodeTokensPerSec
		sv.How = fmt.Sprintf("input tokens per day / prefill + output tokens per day / decode = %s / %s + %s / %s tokens/s "+
			"(prefill = TFLOPS × MFU / (2 × N) = %s × 10¹² × %s / (2 × %s); decode = min(batch × bandwidth / weight bytes, prefill) = min(%d × %s GB/s / %s, %s), %s bound)",
			num(w.InputTokensPerDay), fixed(compute, 1), num(w.OutputTokensPerDay), fixed(sv.DecodeTokensPerSec, 1),
			num(g.TFLOPS), num(s.mfu), num(n), s.batch, num(g.BandwidthGBs), gbText(WeightBytes(s.model.Params, s.dtype)), fixed(compute, 1), sv.DecodeBound)
	}
	sv.BusyCardHoursPerDay = gpuSeconds / 3600
	need := sv.BusyCardHoursPerDay / s.servingHours
	replicas := max(1, int(math.Ceil(need/float64(perReplica)-1e-9)))
	sv.How += fmt.Sprintf("; busy %s card-hours a day over %s serving hours → %s cards busy → %s",
		fixed(sv.BusyCardHoursPerDay, 2), num(s.servingHours), fixed(need, 2), replicasText(replicas, perReplica))
	if s.maxGPUs > 0 && replicas*perReplica > s.maxGPUs {
		replicas = max(1, s.maxGPUs/perReplica)
		sv.How += fmt.Sprintf(", capped at %s by max_gpus %d", replicasText(replicas, perReplica), s.maxGPUs)
	}
	sv.Cards = replicas * perReplica
	return sv
}

// replicasText says how many cards in whole replicas: "3 cards", "2
// replicas of 4 cards".
func replicasText(replicas, perReplica int) string {
	switch {
	case perReplica == 1:
		return cardsText(replicas)
	case replicas == 1:
		return fmt.Sprintf("1 replica of %d cards", perReplica)
	}
	return fmt.Sprintf("%d replicas of %d cards", replicas, perReplica)
}
