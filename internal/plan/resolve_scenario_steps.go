package plan

import (
	"fmt"
	"strings"

	"github.com/finops-oss/finops/internal/gpu"
)

// The steps of resolveScenario after the kind, the model and the number
// formats, one per group of scenario fields, in the order it runs them.

// resolveSequences reads the batch, the tokens per sequence and gradient
// checkpointing: the shape of the work in memory.
func (s *spec) resolveSequences(sc *Scenario, bad badFunc, r *resolved, training bool) {
	s.batch = 1
	if sc.Batch != nil {
		if *sc.Batch < 1 {
			bad("batch", "want 1 or more")
		}
		s.batch = *sc.Batch
	} else {
		s.defaultedField("batch")
	}
	switch {
	case sc.SeqLen != nil:
		if *sc.SeqLen < 1 {
			bad("seq_len", "want 1 or more tokens")
		}
		s.seqLen = float64(*sc.SeqLen)
	case s.kind == KindInference && sc.OutputTokens != nil:
		s.seqLen = countOr(sc.InputTokens, 0) + float64(*sc.OutputTokens)
	case s.kind == KindInference:
		if sc.MemoryGB == nil {
			bad("seq_len", "required for inference: the context per sequence (or give input_tokens and output_tokens)")
		}
	default:
		s.seqLen = defaultTrainSeqLen
		s.defaultedField("seq_len")
	}
	if s.model.Context > 0 && s.seqLen > float64(s.model.Context) {
		r.warnings = append(r.warnings, fmt.Sprintf("scenario %q: %s tokens per sequence is more than %s's %d-token context", s.name, num(s.seqLen), s.model.Name, s.model.Context))
	}
	s.checkpointing = true
	if sc.Checkpointing != nil {
		if !training {
			bad("checkpointing", "applies to training kinds only (lora, qlora, full-finetune, pretrain)")
		}
		s.checkpointing = *sc.Checkpointing
	} else if training {
		s.defaultedField("checkpointing")
	}
}

// resolveLoRA reads the adapter of a lora or qlora scenario: its rank, the
// layers it targets, or its trainable parameters given outright.
func (s *spec) resolveLoRA(sc *Scenario, bad badFunc) {
	s.loraRank = defaultLoRARank
	if sc.LoRARank != nil {
		if *sc.LoRARank < 1 {
			bad("lora_rank", "want 1 or more, e.g. 8")
		}
		s.loraRank = *sc.LoRARank
	} else if sc.TrainableParams == nil {
		s.defaultedField("lora_rank")
	}
	switch t := strings.ToLower(strings.TrimSpace(sc.LoRATargets)); t {
	case "":
		s.loraTargets = "all"
		if sc.TrainableParams == nil {
			s.defaultedField("lora_targets")
		}
	case "all", "attention":
		s.loraTargets = t
	default:
		bad("lora_targets", "%q: use all (every linear layer: q, k, v, o, gate, up, down) or attention (q, k, v, o)", sc.LoRATargets)
	}
	if sc.TrainableParams != nil {
		if *sc.TrainableParams <= 0 {
			bad("trainable_params", "want a positive count, e.g. 20M")
		}
		s.trainable = float64(*sc.TrainableParams)
	}
}

// refuseLoRAFields names the adapter fields a kind without an adapter was
// given: silently ignoring them would plan something else than was asked.
func refuseLoRAFields(sc *Scenario, bad badFunc) {
	refuseFields([]setField{{"lora_rank", sc.LoRARank != nil}, {"lora_targets", sc.LoRATargets != ""},
		{"trainable_params", sc.TrainableParams != nil}}, "applies to kind lora and qlora only", bad)
}

// resolveMemory reads the memory given outright (activations, the whole
// footprint) and how the work is spread over cards.
func (s *spec) resolveMemory(sc *Scenario, bad badFunc, training bool) {
	if sc.ActivationsGB != nil {
		if !training {
			bad("activations_gb", "applies to training kinds only (inference memory is weights + KV cache)")
		} else if *sc.ActivationsGB < 0 {
			bad("activations_gb", "want 0 or more GB")
		}
		v := *sc.ActivationsGB * gb
		s.activations = &v
	}
	if sc.MemoryGB != nil {
		if !positive(*sc.MemoryGB) {
			bad("memory_gb", "want a positive number of GB")
		}
		v := *sc.MemoryGB * gb
		s.memory = &v
	}
	switch par := strings.ToLower(strings.TrimSpace(sc.Parallelism)); par {
	case "", "auto":
		s.parallelism = "auto"
	case ParallelReplicate, ParallelShard:
		s.parallelism = par
	default:
		bad("parallelism", "%q: use auto, replicate (every card holds the whole model: data parallel) or shard (ZeRO-3, FSDP, tensor parallel)", sc.Parallelism)
	}
}

// resolveSchedule reads the deadline and the days the cards are rented
// (the file's span_days unless the scenario gives its own).
func (s *spec) resolveSchedule(sc *Scenario, bad badFunc, fileSpan float64) {
	if sc.DeadlineDays != nil {
		if s.kind == KindInference {
			bad("deadline_days", "does not apply to inference (it serves for span_days)")
		} else if !positive(*sc.DeadlineDays) {
			bad("deadline_days", "want a positive number of days")
		}
		s.deadlineDays = *sc.DeadlineDays
	}
	s.spanDays = fileSpan
	if sc.SpanDays != nil {
		if !positive(*sc.SpanDays) {
			bad("span_days", "want a positive number of days")
		}
		s.spanDays, s.spanGiven = *sc.SpanDays, true
	}
	if (s.work == "serving" || s.work == "reservation") && s.spanDays <= 0 {
		bad("span_days", "required here: how many days the cards are rented; set it on the scenario or as span_days: at the top of the file")
	}
	s.interruptible = sc.Interruptible
}

// resolvePins reads what the scenario pins: the card model, the number of
// cards and its ceiling, the provider.
func (s *spec) resolvePins(sc *Scenario, bad badFunc, r *resolved) {
	if g := strings.TrimSpace(sc.GPUModel); g != "" {
		j, ok := gpuIndex(r.gpus)[gpu.Key(g)]
		if !ok {
			bad("gpu_model", "%q is not in the GPU table; use one of %s, or add it under gpus:", g, gpuNames(r.gpus))
		} else {
			s.gpuModel = r.gpus[j].Model
		}
	}
	if sc.GPUs != nil {
		if *sc.GPUs < 1 {
			bad("gpus", "want 1 or more cards")
		}
		s.gpus = *sc.GPUs
	}
	if sc.MaxGPUs != nil {
		if *sc.MaxGPUs < 1 {
			bad("max_gpus", "want 1 or more cards")
		}
		s.maxGPUs = *sc.MaxGPUs
		if s.gpus > s.maxGPUs {
			bad("gpus", "%d is more than max_gpus %d", s.gpus, s.maxGPUs)
		}
	}
	if pv := strings.TrimSpace(sc.Provider); pv != "" {
		found := false
		for _, pr := range r.prices {
			found = found || strings.EqualFold(strings.TrimSpace(pr.Provider), pv)
		}
		if !found {
			bad("provider", "no price row for provider %q; add one under prices: or remove the pin", pv)
		}
		s.provider = pv
	}
}

// resolvePricing reads the pinned pricing mode; spot needs work that can
// be interrupted, and a reservation cannot be on spot.
func (s *spec) resolvePricing(sc *Scenario, bad badFunc) {
	switch pm := strings.ToLower(strings.TrimSpace(sc.Pricing)); pm {
	case "":
	case ModeHourly, ModeMonthly:
		s.pricing = pm
	case ModeSpot:
		s.pricing = pm
		if !s.interruptible {
			bad("pricing", "spot needs interruptible: true (a spot card can be taken back at any time)")
		}
		if s.work == "reservation" {
			bad("pricing", "a reservation (gpus for span_days with no work size) cannot be on spot; give the work size, or use hourly or monthly")
		}
	default:
		bad("pricing", "%q: use hourly, monthly or spot", sc.Pricing)
	}
}

// resolveMoney reads the buffer and the risk range, the file's assumptions
// unless the scenario gives its own.
func (s *spec) resolveMoney(sc *Scenario, bad badFunc, a Assumptions) {
	s.buffer, s.risk, s.riskHigh = a.ConcurrencyBuffer, a.Risk, a.RiskHigh
	if sc.ConcurrencyBuffer != nil {
		if !nonNegative(*sc.ConcurrencyBuffer) {
			bad("concurrency_buffer", "want 0 or more, e.g. 0.25")
		}
		s.buffer = *sc.ConcurrencyBuffer
	}
	if sc.Risk != nil {
		if !atLeastOne(*sc.Risk) {
			bad("risk", "want 1 or more, e.g. 1.3")
		}
		s.risk = *sc.Risk
		if sc.RiskHigh == nil && s.riskHigh < s.risk {
			s.riskHigh = s.risk
		}
	}
	if sc.RiskHigh != nil {
		if *sc.RiskHigh < s.risk {
			bad("risk_high", "%v is below risk %v; the range is risk to risk_high", *sc.RiskHigh, s.risk)
		}
		s.riskHigh = *sc.RiskHigh
	}
}
