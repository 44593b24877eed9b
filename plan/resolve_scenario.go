package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/finops-oss/finops/gpu"
)

// resolveScenario checks scenario i and fills in its defaults; nil when it
// is too broken to go on (its problems are in p).
func (f *File) resolveScenario(p *problems, i int, r *resolved, models map[string]Model, fileSpan float64) *spec {
	sc := &f.Scenarios[i]
	before := len(p.list)
	bad := func(field, format string, args ...any) { p.add("scenarios", i, field, format, args...) }
	s := &spec{index: i, name: strings.TrimSpace(sc.Name), notes: sc.Notes}
	if s.name == "" {
		bad("name", "required: a short unique name for this piece of work, e.g. support-bot-lora")
	}
	s.kind = strings.ToLower(strings.TrimSpace(sc.Kind))
	switch s.kind {
	case KindInference, KindLoRA, KindQLoRA, KindFull, KindPretrain, KindData:
	case "":
		bad("kind", "required: one of %s", kindNames)
		return nil
	default:
		msg := fmt.Sprintf("%q is not a kind; use one of %s", sc.Kind, kindNames)
		if sg := suggest(s.kind, strings.Split(kindNames, ", ")); sg != "" {
			msg += "; did you mean " + sg + "?"
		}
		bad("kind", "%s", msg)
		return nil
	}
	training := s.kind == KindLoRA || s.kind == KindQLoRA || s.kind == KindFull || s.kind == KindPretrain
	lora := s.kind == KindLoRA || s.kind == KindQLoRA
	defaulted := func(field string) { s.defaulted = append(s.defaulted, field) }

	// The model: a preset or models: entry, then the scenario's overrides.
	sh := shape{sc.Params, sc.ActiveParams, sc.Layers, sc.Hidden, sc.Heads, sc.KVHeads, sc.HeadDim, sc.Intermediate, sc.Experts}
	overrides := sc.Params != nil || sc.ActiveParams != nil || sc.Layers != nil || sc.Hidden != nil || sc.Heads != nil ||
		sc.KVHeads != nil || sc.HeadDim != nil || sc.Intermediate != nil || sc.Experts != nil
	if name := strings.TrimSpace(sc.Model); name != "" {
		m, ok := models[modelKey(name)]
		if !ok {
			bad("model", "unknown model %q; use a preset (%s), add it under models:, or leave model out and give params, layers, hidden, heads, kv_heads and intermediate", name, presetNames())
			return nil
		}
		s.model, s.modelFrom = m, m.Source
		if overrides {
			s.modelFrom += ", with this scenario's overrides"
		}
	} else {
		s.model = Model{Name: "custom"}
		s.modelFrom = "this scenario's fields"
	}
	applyShape(&s.model, sh, func(field, msg string) { bad(field, "%s", msg) })
	if s.model.HeadDim == 0 {
		s.model.HeadDim = s.model.headDim()
	}
	if s.model.KVHeads == 0 {
		s.model.KVHeads = s.model.kvHeads()
	}

	// Number formats.
	allowed := map[string][]Dtype{
		KindInference: {FP32, BF16, FP16, FP8, INT8, INT4}, KindData: {FP32, BF16, FP16, FP8, INT8, INT4},
		KindLoRA: {FP32, BF16, FP16}, KindFull: {FP32, BF16, FP16}, KindPretrain: {FP32, BF16, FP16},
		KindQLoRA: {INT4, INT8},
	}[s.kind]
	s.dtype = BF16 // mixed precision for training, the usual serving format
	if s.kind == KindQLoRA {
		s.dtype = INT4
	}
	if sc.Dtype == "" {
		defaulted("dtype")
	} else if d, ok := parseDtype(sc.Dtype); !ok {
		bad("dtype", "%q is not a dtype; use one of %s", sc.Dtype, dtypeNames)
	} else if !slices.Contains(allowed, d) {
		hint := ""
		switch {
		case s.kind == KindLoRA && (d == INT8 || d == INT4):
			hint = "; a quantized base model is kind: qlora"
		case s.kind == KindQLoRA:
			hint = "; QLoRA quantizes the base model to int4 (or int8)"
		case training:
			hint = "; full training keeps 16- or 32-bit weights (kind: qlora trains on a quantized base)"
		}
		bad("dtype", "%s does not apply to %s; use one of %s%s", d, s.kind, dtypeList(allowed), hint)
	} else {
		s.dtype = d
	}
	s.kvDtype = BF16
	if s.dtype == FP32 || s.dtype == FP16 {
		s.kvDtype = s.dtype
	}
	if sc.KVDtype != "" {
		if s.kind != KindInference && s.kind != KindData {
			bad("kv_dtype", "applies to inference and data only (training keeps no KV cache)")
		} else if d, ok := parseDtype(sc.KVDtype); !ok {
			bad("kv_dtype", "%q is not a dtype; use one of %s", sc.KVDtype, dtypeNames)
		} else {
			s.kvDtype = d
		}
	}

	// Shapes of the work in memory.
	s.batch = 1
	if sc.Batch != nil {
		if *sc.Batch < 1 {
			bad("batch", "want 1 or more")
		}
		s.batch = *sc.Batch
	} else {
		defaulted("batch")
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
		defaulted("seq_len")
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
		defaulted("checkpointing")
	}
	if lora {
		s.loraRank = defaultLoRARank
		if sc.LoRARank != nil {
			if *sc.LoRARank < 1 {
				bad("lora_rank", "want 1 or more, e.g. 8")
			}
			s.loraRank = *sc.LoRARank
		} else if sc.TrainableParams == nil {
			defaulted("lora_rank")
		}
		switch t := strings.ToLower(strings.TrimSpace(sc.LoRATargets)); t {
		case "":
			s.loraTargets = "all"
			if sc.TrainableParams == nil {
				defaulted("lora_targets")
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
	} else {
		for _, fld := range []struct {
			name string
			set  bool
		}{{"lora_rank", sc.LoRARank != nil}, {"lora_targets", sc.LoRATargets != ""}, {"trainable_params", sc.TrainableParams != nil}} {
			if fld.set {
				bad(fld.name, "applies to kind lora and qlora only")
			}
		}
	}
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

	f.resolveWork(s, sc, bad, r.a)
	if s.memory == nil {
		s.requireShape(bad, training, lora)
	}

	// Schedule and pins.
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

	// Money.
	s.buffer, s.risk, s.riskHigh = r.a.ConcurrencyBuffer, r.a.Risk, r.a.RiskHigh
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
	if len(p.list) > before {
		return nil
	}
	return s
}

func countOr(c *Count, def float64) float64 {
	if c == nil {
		return def
	}
	return float64(*c)
}

func dtypeList(ds []Dtype) string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = string(d)
	}
	return strings.Join(out, ", ")
}

func presetNames() string {
	ps := Presets()
	names := make([]string, len(ps))
	for i, m := range ps {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}
