package plan

import (
	"fmt"
	"slices"
	"strings"
)

// badFunc records one problem of the scenario being resolved, under its
// field. Every resolving step takes one, so each step reports in the
// order the scenario's fields are read, as the single function did.
type badFunc = func(field, format string, args ...any)

// resolveScenario checks scenario i and fills in its defaults; nil when it
// is too broken to go on (its problems are in p). It runs the named steps
// below in a fixed order: later steps read what earlier ones set (the work
// size needs the sequence length, the memory check needs the LoRA targets,
// pricing needs the work), so the order is part of the behaviour.
func (f *File) resolveScenario(p *problems, i int, r *resolved, models map[string]Model, fileSpan float64) *spec {
	sc := &f.Scenarios[i]
	before := len(p.list)
	bad := func(field, format string, args ...any) { p.add("scenarios", i, field, format, args...) }
	s := &spec{index: i, name: strings.TrimSpace(sc.Name), notes: sc.Notes}
	if s.name == "" {
		bad("name", "required: a short unique name for this piece of work, e.g. support-bot-lora")
	}
	if !s.resolveKind(sc, bad) || !s.resolveModel(sc, models, bad) {
		return nil
	}
	training := s.kind == KindLoRA || s.kind == KindQLoRA || s.kind == KindFull || s.kind == KindPretrain
	lora := s.kind == KindLoRA || s.kind == KindQLoRA

	s.resolveDtypes(sc, bad, training)
	s.resolveSequences(sc, bad, r, training)
	if lora {
		s.resolveLoRA(sc, bad)
	} else {
		refuseLoRAFields(sc, bad)
	}
	s.resolveMemory(sc, bad, training)
	f.resolveWork(s, sc, bad, r.a)
	if s.memory == nil {
		s.requireShape(bad, training, lora)
	}
	s.resolveSchedule(sc, bad, fileSpan)
	s.resolvePins(sc, bad, r)
	s.resolvePricing(sc, bad)
	s.resolveMoney(sc, bad, r.a)
	if len(p.list) > before {
		return nil
	}
	return s
}

// defaultedField notes a field the scenario left out and the planner filled in,
// which --explain lists.
func (s *spec) defaultedField(field string) { s.defaulted = append(s.defaulted, field) }

// resolveKind reads the kind; false when it is missing or unknown, since
// every later step depends on it.
func (s *spec) resolveKind(sc *Scenario, bad badFunc) bool {
	s.kind = strings.ToLower(strings.TrimSpace(sc.Kind))
	switch s.kind {
	case KindInference, KindLoRA, KindQLoRA, KindFull, KindPretrain, KindData:
		return true
	case "":
		bad("kind", "required: one of %s", kindNames)
		return false
	default:
		msg := fmt.Sprintf("%q is not a kind; use one of %s", sc.Kind, kindNames)
		if sg := suggest(s.kind, strings.Split(kindNames, ", ")); sg != "" {
			msg += "; did you mean " + sg + "?"
		}
		bad("kind", "%s", msg)
		return false
	}
}

// resolveModel takes a preset or models: entry, then the scenario's
// overrides; false when the named model is unknown (no shape to go on).
func (s *spec) resolveModel(sc *Scenario, models map[string]Model, bad badFunc) bool {
	sh := shape{sc.Params, sc.ActiveParams, sc.Layers, sc.Hidden, sc.Heads, sc.KVHeads, sc.HeadDim, sc.Intermediate, sc.Experts}
	if name := strings.TrimSpace(sc.Model); name != "" {
		m, ok := models[modelKey(name)]
		if !ok {
			bad("model", "unknown model %q; use a preset (%s), add it under models:, or leave model out and give params, layers, hidden, heads, kv_heads and intermediate", name, presetNames())
			return false
		}
		s.model, s.modelFrom = m, m.Source
		if sh.any() {
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
	return true
}

// any says whether the scenario overrides any field of its model's shape,
// which --explain mentions next to the model's source.
func (sh shape) any() bool {
	for _, v := range []bool{sh.params != nil, sh.active != nil, sh.layers != nil, sh.hidden != nil, sh.heads != nil,
		sh.kvHeads != nil, sh.headDim != nil, sh.intermediate != nil, sh.experts != nil} {
		if v {
			return true
		}
	}
	return false
}

// allowedDtypes are the number formats a kind can run in: training keeps
// 16- or 32-bit weights, QLoRA a quantized base.
func allowedDtypes(kind string) []Dtype {
	return map[string][]Dtype{
		KindInference: {FP32, BF16, FP16, FP8, INT8, INT4}, KindData: {FP32, BF16, FP16, FP8, INT8, INT4},
		KindLoRA: {FP32, BF16, FP16}, KindFull: {FP32, BF16, FP16}, KindPretrain: {FP32, BF16, FP16},
		KindQLoRA: {INT4, INT8},
	}[kind]
}

// resolveDtypes reads the weights' and the KV cache's number formats.
func (s *spec) resolveDtypes(sc *Scenario, bad badFunc, training bool) {
	allowed := allowedDtypes(s.kind)
	s.dtype = BF16 // mixed precision for training, the usual serving format
	if s.kind == KindQLoRA {
		s.dtype = INT4
	}
	if sc.Dtype == "" {
		s.defaultedField("dtype")
	} else if d, ok := parseDtype(sc.Dtype); !ok {
		bad("dtype", "%q is not a dtype; use one of %s", sc.Dtype, dtypeNames)
	} else if !slices.Contains(allowed, d) {
		bad("dtype", "%s does not apply to %s; use one of %s%s", d, s.kind, dtypeList(allowed), dtypeHint(s.kind, d, training))
	} else {
		s.dtype = d
	}
	s.kvDtype = BF16
	if s.dtype == FP32 || s.dtype == FP16 {
		s.kvDtype = s.dtype
	}
	if sc.KVDtype == "" {
		return
	}
	if s.kind != KindInference && s.kind != KindData {
		bad("kv_dtype", "applies to inference and data only (training keeps no KV cache)")
	} else if d, ok := parseDtype(sc.KVDtype); !ok {
		bad("kv_dtype", "%q is not a dtype; use one of %s", sc.KVDtype, dtypeNames)
	} else {
		s.kvDtype = d
	}
}

// dtypeHint says which kind a refused dtype belongs to, the usual mix-up.
func dtypeHint(kind string, d Dtype, training bool) string {
	switch {
	case kind == KindLoRA && (d == INT8 || d == INT4):
		return "; a quantized base model is kind: qlora"
	case kind == KindQLoRA:
		return "; QLoRA quantizes the base model to int4 (or int8)"
	case training:
		return "; full training keeps 16- or 32-bit weights (kind: qlora trains on a quantized base)"
	}
	return ""
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
