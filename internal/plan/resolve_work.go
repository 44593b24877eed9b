package plan

import (
	"fmt"
	"slices"
	"strings"
)

// resolveWork reads how much work a scenario is: serving for inference,
// a size (tokens, hours or card-hours) for everything else.
func (f *File) resolveWork(s *spec, sc *Scenario, bad badFunc, a Assumptions) {
	s.runs = 1
	s.mfu = a.MFU
	if sc.MFU != nil {
		if !fraction(*sc.MFU) {
			bad("mfu", "want a fraction in (0, 1], e.g. 0.35")
		}
		s.mfu = *sc.MFU
	}
	if s.kind == KindInference {
		s.resolveServing(sc, bad)
		return
	}
	refuseFields(sc.servingFields(), "applies to kind inference only", bad)
	if sc.Runs != nil {
		if *sc.Runs < 1 {
			bad("runs", "want 1 or more")
		}
		s.runs = *sc.Runs
	}
	checkWorkSizes(sc, bad)
	s.resolveWorkSize(sc, bad)
	if s.work == "compute" && s.model.computeParams() <= 0 {
		bad("params", "the compute estimate needs the parameter count; give model or params (or hours)")
	}
}

// setField is a scenario field and whether the file gave it.
type setField struct {
	name string
	set  bool
}

// refuseFields names each given field that does not apply, with why:
// silently ignoring one would plan something else than was asked.
func refuseFields(fields []setField, why string, bad badFunc) {
	for _, fld := range fields {
		if fld.set {
			bad(fld.name, "%s", why)
		}
	}
}

// servingFields are the fields only inference reads.
func (sc *Scenario) servingFields() []setField {
	return []setField{{"requests_per_day", sc.RequestsPerDay != nil}, {"input_tokens", sc.InputTokens != nil},
		{"output_tokens", sc.OutputTokens != nil}, {"throughput", sc.Throughput != nil},
		{"serving_hours_per_day", sc.ServingHours != nil}}
}

// workSizeFields are the fields only the other kinds read.
func (sc *Scenario) workSizeFields() []setField {
	return []setField{{"tokens", sc.Tokens != nil}, {"epochs", sc.Epochs != nil}, {"dataset_tokens", sc.DatasetTokens != nil},
		{"dataset_samples", sc.DatasetSamples != nil}, {"runs", sc.Runs != nil}, {"hours", sc.Hours != nil},
		{"gpu_hours", sc.GPUHours != nil}}
}

// resolveServing reads an inference scenario's work: requests a day for
// so many hours, or cards reserved for span_days.
func (s *spec) resolveServing(sc *Scenario, bad badFunc) {
	refuseFields(sc.workSizeFields(), "does not apply to inference; give requests_per_day, input_tokens and output_tokens (or gpus and span_days)", bad)
	s.servingHours = 24
	if sc.ServingHours != nil {
		if *sc.ServingHours <= 0 || *sc.ServingHours > 24 {
			bad("serving_hours_per_day", "want hours in (0, 24]")
		}
		s.servingHours = *sc.ServingHours
	}
	if sc.Throughput != nil {
		if !positive(*sc.Throughput) {
			bad("throughput", "want generated tokens per second per GPU, more than 0")
		}
		s.throughput = *sc.Throughput
	}
	switch {
	case sc.RequestsPerDay != nil:
		s.resolveRequests(sc, bad)
	case sc.GPUs != nil:
		s.work = "reservation"
	default:
		bad("requests_per_day", "required for inference with input_tokens and output_tokens per request (or gpus and span_days to reserve cards)")
	}
}

// resolveRequests reads the serving load: requests a day and the tokens
// of each.
func (s *spec) resolveRequests(sc *Scenario, bad badFunc) {
	s.work = "serving"
	s.requestsPerDay = float64(*sc.RequestsPerDay)
	s.inputTokens = countOr(sc.InputTokens, 0)
	if sc.OutputTokens == nil || *sc.OutputTokens <= 0 {
		bad("output_tokens", "required with requests_per_day: the tokens generated per request, e.g. 300")
	} else {
		s.outputTokens = float64(*sc.OutputTokens)
	}
	if s.requestsPerDay <= 0 {
		bad("requests_per_day", "want more than 0")
	}
	if s.throughput == 0 && s.model.computeParams() <= 0 {
		bad("params", "the throughput estimate needs the parameter count; give model or params (or a measured throughput)")
	}
}

// checkWorkSizes refuses two sizes given for one piece of work: which one
// wins would be a guess.
func checkWorkSizes(sc *Scenario, bad badFunc) {
	dataset := sc.DatasetTokens != nil || sc.DatasetSamples != nil
	switch {
	case sc.Tokens != nil && dataset:
		bad("tokens", "give tokens or dataset_tokens/dataset_samples with epochs, not both")
	case sc.DatasetTokens != nil && sc.DatasetSamples != nil:
		bad("dataset_samples", "give dataset_tokens or dataset_samples, not both")
	case sc.Hours != nil && sc.GPUHours != nil:
		bad("gpu_hours", "give hours (wall-clock) or gpu_hours (card-hours), not both")
	case (sc.Tokens != nil || dataset) && (sc.Hours != nil || sc.GPUHours != nil):
		bad("hours", "give the work as tokens or as hours, not both")
	}
	if sc.Epochs != nil && !dataset {
		bad("epochs", "needs dataset_tokens or dataset_samples (or give tokens: the total)")
	}
}

// resolveWorkSize reads the one size of a training or data scenario, in
// the order of precedence: card-hours, hours, tokens, a dataset, cards.
func (s *spec) resolveWorkSize(sc *Scenario, bad badFunc) {
	switch {
	case sc.GPUHours != nil:
		s.work = "gpu_hours"
		if !positive(*sc.GPUHours) {
			bad("gpu_hours", "want more than 0 card-hours")
		}
		s.gpuHours = *sc.GPUHours
	case sc.Hours != nil:
		s.work = "hours"
		if !positive(*sc.Hours) {
			bad("hours", "want more than 0 hours")
		}
		s.hours = *sc.Hours
	case sc.Tokens != nil:
		s.work = "compute"
		s.tokens = float64(*sc.Tokens)
		s.tokensHow = "tokens (given)"
		if s.tokens <= 0 {
			bad("tokens", "want more than 0 tokens, e.g. 2B")
		}
	case sc.DatasetTokens != nil || sc.DatasetSamples != nil:
		s.resolveDataset(sc, bad)
	case sc.GPUs != nil:
		s.work = "reservation"
	default:
		bad("tokens", "no work size: give tokens, dataset_tokens (or dataset_samples) with epochs, hours or gpu_hours; or gpus and span_days to reserve cards")
	}
}

// resolveDataset turns a dataset and its epochs into tokens, keeping the
// sum it did for --explain.
func (s *spec) resolveDataset(sc *Scenario, bad badFunc) {
	s.work = "compute"
	epochs := 1.0
	if sc.Epochs != nil {
		if !positive(*sc.Epochs) {
			bad("epochs", "want more than 0")
		}
		epochs = *sc.Epochs
	} else {
		s.defaulted = append(s.defaulted, "epochs")
	}
	if sc.DatasetTokens != nil {
		s.tokens = epochs * float64(*sc.DatasetTokens)
		s.tokensHow = fmt.Sprintf("epochs × dataset_tokens = %s × %s", num(epochs), num(float64(*sc.DatasetTokens)))
	} else {
		s.tokens = epochs * float64(*sc.DatasetSamples) * s.seqLen
		s.tokensHow = fmt.Sprintf("epochs × dataset_samples × seq_len = %s × %s × %s", num(epochs), num(float64(*sc.DatasetSamples)), num(s.seqLen))
	}
	if s.tokens <= 0 {
		bad("dataset_tokens", "the dataset is empty; want more than 0 tokens")
	}
}

// requireShape reports the model fields the memory formulas need but lack.
func (s *spec) requireShape(bad func(string, string, ...any), training, lora bool) {
	m := s.model
	if m.Params <= 0 {
		field := "params"
		if s.model.Name == "custom" {
			field = "model"
		}
		bad(field, "the memory estimate needs the model: give a preset in model:, or params (with layers, hidden, heads, kv_heads, intermediate), or memory_gb")
		return
	}
	var need []string
	want := func(ok bool, field string) {
		if !ok && !slices.Contains(need, field) {
			need = append(need, field)
		}
	}
	if training && s.activations == nil {
		want(m.Layers > 0, "layers")
		want(m.Hidden > 0, "hidden")
		if !s.checkpointing {
			want(m.Heads > 0, "heads")
		}
	}
	if lora && s.trainable == 0 {
		want(m.Layers > 0, "layers")
		want(m.Hidden > 0, "hidden")
		want(m.Heads > 0 || m.HeadDim > 0, "heads")
		if s.loraTargets == "all" {
			want(m.Intermediate > 0, "intermediate")
		}
	}
	if s.kind == KindInference || s.kind == KindData {
		want(m.Layers > 0, "layers")
		want(m.KVHeads > 0, "kv_heads")
		want(m.HeadDim > 0, "head_dim")
	}
	if len(need) > 0 {
		bad(need[0], "the memory estimate for %s needs %s; use a model preset, give %s, or give memory_gb",
			m.Name, strings.Join(need, ", "), strings.Join(need, ", "))
	}
}
