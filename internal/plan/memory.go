package plan

import (
	"fmt"
	"strings"
)

// Memory is a scenario's GPU memory estimate, term by term (metrics.md
// §Planner). Every term is in decimal GB; Terms says how each was got.
type Memory struct {
	Params          float64 `json:"params"`
	TrainableParams float64 `json:"trainable_params,omitempty"`
	KVBytesPerToken float64 `json:"kv_bytes_per_token,omitempty"`
	WeightsGB       float64 `json:"weights_gb"`
	AdapterGB       float64 `json:"adapter_gb"`
	GradientsGB     float64 `json:"gradients_gb"`
	OptimizerGB     float64 `json:"optimizer_gb"`
	ActivationsGB   float64 `json:"activations_gb"`
	KVCacheGB       float64 `json:"kv_cache_gb"`
	SubtotalGB      float64 `json:"subtotal_gb"`
	OverheadGB      float64 `json:"overhead_gb"`
	CUDAContextGB   float64 `json:"cuda_context_gb"`
	TotalGB         float64 `json:"total_gb"`
	Given           bool    `json:"given,omitempty"` // memory_gb was given, not estimated
	Terms           []Term  `json:"terms"`
}

// Term is one line of the estimate.
type Term struct {
	Name string  `json:"name"`
	GB   float64 `json:"gb"`
	How  string  `json:"how"`
}

// WeightBytes is N × bytes(dtype): 6.74B parameters in bf16 are 13.48 GB.
func WeightBytes(params float64, d Dtype) float64 { return params * d.Bytes() }

// KVBytesPerToken is vLLM's KV cache size for one token: a key and a value
// vector per layer and KV head, 2 × layers × kv_heads × head_dim × bytes.
func KVBytesPerToken(layers, kvHeads, headDim int, d Dtype) float64 {
	return 2 * float64(layers) * float64(kvHeads) * float64(headDim) * d.Bytes()
}

// ActivationBytes is the activation memory under full recomputation
// (activation checkpointing of every layer): only each layer's 16-bit input
// is kept, s × b × h elements of 2 bytes, so 2 × seq × batch × hidden ×
// layers bytes — EleutherAI's "Transformer Math 101" and Korthikanti et al.
// 2022, §4.2. The layer being recomputed during the backward pass is
// transient and left to the overhead factor.
func ActivationBytes(seq, batch float64, hidden, layers int) float64 {
	return 2 * seq * batch * float64(hidden) * float64(layers)
}

// ActivationBytesNoCheckpointing is the activation memory of a transformer
// trained without checkpointing, from Korthikanti et al. 2022 ("Reducing
// Activation Recomputation in Large Transformer Models", eq. 1, no tensor or
// sequence parallelism): seq × batch × hidden × (34 + 5 × heads × seq /
// hidden) bytes per layer. The second term is the attention matrix, which
// FlashAttention does not keep, so this is an upper bound.
func ActivationBytesNoCheckpointing(seq, batch float64, hidden, layers, heads int) float64 {
	h := float64(hidden)
	return float64(layers) * seq * batch * h * (34 + 5*float64(heads)*seq/h)
}

// LoRATrainableParams is the adapter size: a rank-r LoRA on a linear layer
// of in × out adds r × (in + out) parameters. "all" targets every linear
// layer of each block (q, k, v, o and the MLP's gate, up and down, for every
// expert of a mixture of experts), "attention" the four attention
// projections. It also returns the per-layer sum of in + out.
func LoRATrainableParams(m Model, rank int, targets string) (params float64, perLayer int) {
	hd := m.headDim()
	q := m.Heads * hd
	kv := m.kvHeads() * hd
	h := m.Hidden
	perLayer = (h + q) + (h + kv) + (h + kv) + (q + h) // q, k, v, o
	if targets == "all" {
		experts := max(m.Experts, 1)
		perLayer += experts * 3 * (h + m.Intermediate) // gate, up, down
	}
	return float64(rank) * float64(perLayer) * float64(m.Layers), perLayer
}

// estimateMemory applies metrics.md §Planner's memory formulas to a scenario.
func estimateMemory(s *spec, a Assumptions) Memory {
	m := Memory{Params: s.model.Params}
	ctx := a.CUDAContextGiB * gib
	if s.memory != nil {
		m.Given = true
		m.TotalGB = *s.memory / gb
		m.Terms = []Term{{Name: "total", GB: m.TotalGB, How: "memory_gb (given)"}}
		return m
	}
	N := s.model.Params
	var weights, adapter, grads, opt, act, kv float64
	var terms []Term
	add := func(name string, bytes float64, how string) {
		terms = append(terms, Term{Name: name, GB: bytes / gb, How: how})
	}
	nText := num(N)

	switch s.kind {
	case KindInference, KindData:
		weights = WeightBytes(N, s.dtype)
		add("weights", weights, fmt.Sprintf("N × bytes(%s) = %s × %s", s.dtype, nText, num(s.dtype.Bytes())))
		hd, kvh := s.model.HeadDim, s.model.KVHeads
		m.KVBytesPerToken = KVBytesPerToken(s.model.Layers, kvh, hd, s.kvDtype)
		kv = m.KVBytesPerToken * s.seqLen * float64(s.batch)
		add("kv_cache", kv, fmt.Sprintf("2 × layers × kv_heads × head_dim × context × batch × bytes(%s) = 2 × %d × %d × %d × %s × %d × %s (%s KiB per token)",
			s.kvDtype, s.model.Layers, kvh, hd, num(s.seqLen), s.batch, num(s.kvDtype.Bytes()), num(m.KVBytesPerToken/kib)))

	case KindFull, KindPretrain:
		// Mixed-precision AdamW: bf16 weights and gradients, fp32 master
		// weights, momentum and variance: 2 + 2 + 12 = 16 bytes per parameter.
		// Pure fp32 training is 4 + 4 + 8, also 16.
		wb, gb_, ob := 2.0, 2.0, 12.0
		optHow := "fp32 master copy, Adam m and v"
		if s.dtype == FP32 {
			wb, gb_, ob = 4, 4, 8
			optHow = "Adam m and v in fp32"
		}
		weights, grads, opt = wb*N, gb_*N, ob*N
		add("weights", weights, fmt.Sprintf("%s B × N = %s × %s", num(wb), num(wb), nText))
		add("gradients", grads, fmt.Sprintf("%s B × N = %s × %s", num(gb_), num(gb_), nText))
		add("optimizer", opt, fmt.Sprintf("%s B × N (%s) = %s × %s", num(ob), optHow, num(ob), nText))

	case KindLoRA, KindQLoRA:
		nt, how := s.trainable, "trainable_params (given)"
		if nt == 0 {
			var per int
			nt, per = LoRATrainableParams(s.model, s.loraRank, s.loraTargets)
			proj := "q, k, v, o"
			if s.loraTargets == "all" {
				proj += ", gate, up, down"
				if s.model.Experts > 1 {
					proj += fmt.Sprintf(" (× %d experts)", s.model.Experts)
				}
			}
			how = fmt.Sprintf("rank × Σ(in + out) over %s × layers = %d × %s × %d", proj, s.loraRank, num(float64(per)), s.model.Layers)
		}
		m.TrainableParams = nt
		if s.kind == KindLoRA {
			weights = WeightBytes(N, s.dtype)
			add("weights", weights, fmt.Sprintf("N × bytes(%s), frozen = %s × %s", s.dtype, nText, num(s.dtype.Bytes())))
		} else {
			weights = s.dtype.Bytes() * qloraQuantOverhead * N
			add("weights", weights, fmt.Sprintf("bytes(%s) × %s (quantization constants) × N, frozen = %s × %s × %s",
				s.dtype, num(qloraQuantOverhead), num(s.dtype.Bytes()), num(qloraQuantOverhead), nText))
		}
		// The adapter trains like a full model: 16 bytes per trainable parameter.
		adapter, grads, opt = 2*nt, 2*nt, 12*nt
		ntText := num(nt)
		add("adapter", adapter, fmt.Sprintf("2 B × N_trainable = 2 × %s (N_trainable = %s)", ntText, how))
		add("gradients", grads, fmt.Sprintf("2 B × N_trainable = 2 × %s", ntText))
		add("optimizer", opt, fmt.Sprintf("12 B × N_trainable (fp32 master copy, Adam m and v) = 12 × %s", ntText))
	}

	if s.kind == KindLoRA || s.kind == KindQLoRA || s.kind == KindFull || s.kind == KindPretrain {
		switch {
		case s.activations != nil:
			act = *s.activations
			add("activations", act, "activations_gb (given)")
		case s.checkpointing:
			act = ActivationBytes(s.seqLen, float64(s.batch), s.model.Hidden, s.model.Layers)
			add("activations", act, fmt.Sprintf("2 B × seq × batch × hidden × layers, full recomputation (checkpointing) = 2 × %s × %d × %d × %d",
				num(s.seqLen), s.batch, s.model.Hidden, s.model.Layers))
		default:
			act = ActivationBytesNoCheckpointing(s.seqLen, float64(s.batch), s.model.Hidden, s.model.Layers, s.model.Heads)
			add("activations", act, fmt.Sprintf("layers × seq × batch × hidden × (34 + 5 × heads × seq / hidden) B, no checkpointing = %d × %s × %d × %d × (34 + 5 × %d × %s / %d)",
				s.model.Layers, num(s.seqLen), s.batch, s.model.Hidden, s.model.Heads, num(s.seqLen), s.model.Hidden))
		}
	}

	sub := weights + adapter + grads + opt + act + kv
	factor := a.overheadFor(s.kind)
	over := sub * (factor - 1)
	names := make([]string, len(terms))
	for i, t := range terms {
		names[i] = t.Name
	}
	add("subtotal", sub, strings.Join(names, " + "))
	add("overhead", over, fmt.Sprintf("subtotal × (%s − 1), framework and allocator", num(factor)))
	add("cuda_context", ctx, fmt.Sprintf("%s GiB per GPU", num(a.CUDAContextGiB)))
	total := sub*factor + ctx
	add("total", total, fmt.Sprintf("subtotal × %s + CUDA context = %s × %s + %s", num(factor), gbText(sub), num(factor), gbText(ctx)))

	m.WeightsGB, m.AdapterGB, m.GradientsGB, m.OptimizerGB = weights/gb, adapter/gb, grads/gb, opt/gb
	m.ActivationsGB, m.KVCacheGB, m.SubtotalGB, m.OverheadGB = act/gb, kv/gb, sub/gb, over/gb
	m.CUDAContextGB, m.TotalGB = ctx/gb, total/gb
	m.Terms = terms
	return m
}
