package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/gpu"
)

// TestBadScenarioFiles checks that every kind of mistake gets an error that
// names the scenario (or list entry), the field, and what to do.
func TestBadScenarioFiles(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want []string
	}{
		{"unknown field, with a suggestion", `
scenarios:
  - name: chat
    kinds: inference
`, []string{`test.yaml:4: scenario "chat": field kinds: unknown field; did you mean kind?`}},
		{"unknown top-level field", `
senarios: []
`, []string{`test.yaml:2: field senarios: unknown field; did you mean scenarios?`}},
		{"not a number", `
scenarios:
  - name: tune
    kind: lora
    model: llama-2-7b
    seq_len: long
`, []string{`test.yaml:6: scenario "tune": field seq_len: "long" is not a number`}},
		{"not a whole number", `
scenarios:
  - name: tune
    kind: lora
    model: llama-2-7b
    batch: two
`, []string{`test.yaml:6: scenario "tune": field batch: "two" is not a whole number`}},
		{"bad kind", `
scenarios:
  - {name: tune, kind: finetune, model: llama-2-7b, tokens: 1B}
`, []string{`scenario "tune": field kind: "finetune" is not a kind; use one of inference, lora, qlora, full-finetune, pretrain, data`}},
		{"kind with a typo", `
scenarios:
  - {name: tune, kind: qlra, model: llama-2-7b, tokens: 1B}
`, []string{`field kind: "qlra" is not a kind`, "did you mean qlora?"}},
		{"no name", `
scenarios:
  - {kind: lora, model: llama-2-7b, tokens: 1B}
`, []string{`scenario #1 (scenarios[0], no name): field name: required`}},
		{"duplicate name", `
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B}
  - {name: tune, kind: qlora, model: llama-2-7b, tokens: 1B}
`, []string{`test.yaml:4: scenario "tune": field name: the name is already used by scenarios[0]`}},
		{"unknown model", `
scenarios:
  - {name: tune, kind: lora, model: llama-9-7b, tokens: 1B}
`, []string{`scenario "tune": field model: unknown model "llama-9-7b"; use a preset (`, "add it under models:"}},
		{"no model at all", `
scenarios:
  - {name: tune, kind: lora, tokens: 1B}
`, []string{`scenario "tune": field model: the memory estimate needs the model`}},
		{"custom model without its shape", `
scenarios:
  - {name: tune, kind: lora, params: 20B, hidden: 6144, tokens: 1B}
`, []string{`scenario "tune": field layers: the memory estimate for custom needs layers, heads, intermediate`}},
		{"no work size", `
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b}
`, []string{`scenario "tune": field tokens: no work size: give tokens, dataset_tokens`, "or gpus and span_days"}},
		{"tokens and hours", `
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B, hours: 10}
`, []string{`scenario "tune": field hours: give the work as tokens or as hours, not both`}},
		{"epochs without a dataset", `
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B, epochs: 3}
`, []string{`scenario "tune": field epochs: needs dataset_tokens or dataset_samples`}},
		{"inference without traffic", `
span_days: 90
scenarios:
  - {name: chat, kind: inference, model: llama-3-8b}
`, []string{`scenario "chat": field requests_per_day: required for inference`}},
		{"inference without output tokens", `
span_days: 90
scenarios:
  - {name: chat, kind: inference, model: llama-3-8b, requests_per_day: 100k, input_tokens: 500}
`, []string{`scenario "chat": field output_tokens: required with requests_per_day`}},
		{"inference without a span", `
scenarios:
  - {name: chat, kind: inference, model: llama-3-8b, requests_per_day: 100k, output_tokens: 200}
`, []string{`scenario "chat": field span_days: required here`}},
		{"inference with a deadline", `
span_days: 90
scenarios:
  - {name: chat, kind: inference, model: llama-3-8b, requests_per_day: 100k, output_tokens: 200, deadline_days: 3}
`, []string{`scenario "chat": field deadline_days: does not apply to inference`}},
		{"training field on inference", `
span_days: 90
scenarios:
  - {name: chat, kind: inference, model: llama-3-8b, requests_per_day: 100k, output_tokens: 200, lora_rank: 16}
`, []string{`scenario "chat": field lora_rank: applies to kind lora and qlora only`}},
		{"spot without interruptible", `
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B, pricing: spot}
`, []string{`scenario "tune": field pricing: spot needs interruptible: true`}},
		{"quantized LoRA", `
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B, dtype: int4}
`, []string{`scenario "tune": field dtype: int4 does not apply to lora; use one of fp32, bf16, fp16; a quantized base model is kind: qlora`}},
		{"unknown dtype", `
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B, dtype: bf17}
`, []string{`scenario "tune": field dtype: "bf17" is not a dtype`}},
		{"gpus above max_gpus", `
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B, gpus: 8, max_gpus: 4}
`, []string{`scenario "tune": field gpus: 8 is more than max_gpus 4`}},
		{"unknown GPU pin", `
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B, gpu_model: B300}
`, []string{`scenario "tune": field gpu_model: "B300" is not in the GPU table`, "add it under gpus:"}},
		{"negative risk", `
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B, risk: 0.8}
`, []string{`scenario "tune": field risk: want 1 or more`}},
		{"negative count", `
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: -5}
`, []string{`scenario "tune": field tokens: "-5" is negative`}},
		{"price for an unknown GPU", `
prices:
  - {provider: AutoDL, gpu_model: B200, hourly: 30}
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B}
`, []string{`test.yaml:3: prices[0] (AutoDL B200): field gpu_model: "B200" is not in the GPU table`}},
		{"price without any price", `
prices:
  - {provider: AutoDL, gpu_model: A100-80GB}
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B}
`, []string{`prices[0] (AutoDL A100-80GB): field hourly: give at least one of hourly, monthly, spot`}},
		{"price in a currency without a rate", `
currency: CNY
prices:
  - {provider: AWS, gpu_model: L4, hourly: 0.8, currency: USD}
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B}
`, []string{`prices[0] (AWS L4): field currency: USD has no rate to CNY; add it under fx:`}},
		{"provider pin without prices", `
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B, provider: Lambda}
`, []string{`scenario "tune": field provider: no price row for provider "Lambda"`}},
		{"bad default", `
defaults:
  mfu: 35
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B}
`, []string{`test.yaml:3: defaults: field mfu: 35 is out of range; want a fraction in (0, 1]`}},
		{"training overhead below 1", `
defaults:
  training_overhead: 0.9
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B}
`, []string{`test.yaml:3: defaults: field training_overhead: 0.9 is out of range; want 1 or more`}},
		{"new GPU without specs", `
gpus:
  - {model: B200, vram_gb: 192}
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1B}
`, []string{`gpus[0] (B200): field tflops: required for a GPU model the planner does not know`}},
		{"model without params", `
models:
  - {name: my-model, layers: 32}
scenarios:
  - {name: tune, kind: lora, model: my-model, tokens: 1B}
`, []string{`models[0] (my-model): field params: required for a model that is not a preset`}},
		{"no scenarios", `
currency: CNY
`, []string{`plan: test.yaml: no scenarios; add a scenarios: list`}},
		{"YAML syntax", `
scenarios:
  - name: tune
   kind: lora
`, []string{`plan: test.yaml:2: `, "check the YAML syntax"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := planError(t, c.yaml)
			if !strings.HasPrefix(msg, "plan: ") {
				t.Errorf("error %q lacks the plan: prefix", msg)
			}
			contains(t, "error", msg, c.want...)
		})
	}
}

// TestAllProblemsAtOnce: one run reports every mistake in the file.
func TestAllProblemsAtOnce(t *testing.T) {
	f, err := Parse("test.yaml", []byte(`
scenarios:
  - {name: a, kind: lora, model: llama-2-7b, tokens: 1B, batch: 0}
  - {name: b, kind: inference, model: llama-3-8b, requests_per_day: 10k, output_tokens: 100}
  - {name: c, kind: pretraining, model: llama-2-7b, tokens: 1B}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Plan(f, Options{})
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is not a *FileError", err)
	}
	if len(fe.Problems) != 3 {
		t.Fatalf("%d problems, want 3:\n%v", len(fe.Problems), err)
	}
	contains(t, "error", err.Error(), "plan: 3 problems in test.yaml:",
		`test.yaml:3: scenario "a": field batch: want 1 or more`,
		`test.yaml:4: scenario "b": field span_days: required here`,
		`test.yaml:5: scenario "c": field kind: "pretraining" is not a kind`)
}

func TestOnlyScenario(t *testing.T) {
	f, err := Parse("test.yaml", []byte(`
scenarios:
  - {name: a, kind: lora, model: llama-2-7b, tokens: 1B}
  - {name: b, kind: qlora, model: llama-2-7b, tokens: 1B}
`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(f, Options{Only: []string{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Scenarios) != 1 || r.Scenarios[0].Name != "b" {
		t.Errorf("scenarios = %v, want only b", r.Scenarios)
	}
	if _, err := Plan(f, Options{Only: []string{"c"}}); err == nil || !strings.Contains(err.Error(), `no scenario named "c" (have a, b)`) {
		t.Errorf("unknown --scenario: %v", err)
	}
}

func TestParseCount(t *testing.T) {
	for in, want := range map[string]float64{
		"7B": 7e9, "6.74B": 6.74e9, "500M": 5e8, "2T": 2e12, "200k": 2e5, "1_000_000": 1e6, "7e9": 7e9,
		"1,024": 1024, " 13 b ": 13e9, "3G": 3e9,
	} {
		got, err := ParseCount(in)
		if err != nil || got != want {
			t.Errorf("ParseCount(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "B", "seven", "7X", "-1", "NaN", "Inf", "1e308T"} { // 1e308 × 1e12 overflows to +Inf
		if _, err := ParseCount(in); err == nil {
			t.Errorf("ParseCount(%q) accepted", in)
		}
	}
}

func TestNames(t *testing.T) {
	presets := map[string]bool{}
	for _, m := range Presets() {
		presets[modelKey(m.Name)] = true
	}
	for _, name := range []string{"meta-llama/Llama-2-7b-hf", "Llama-2-7B-chat", "LLAMA_2_7B", "Meta-Llama-3-8B-Instruct",
		"Qwen/Qwen2.5-72B-Instruct", "mistralai/Mistral-7B-v0.1", "Mixtral-8x7B-Instruct-v0.1", "llama-3.1-405b"} {
		if !presets[modelKey(name)] {
			t.Errorf("%q (key %q) finds no preset", name, modelKey(name))
		}
	}
	idx := gpuIndex(DefaultGPUs())
	for name, want := range map[string]string{"a100 80gb": "A100-80GB", "NVIDIA A100-SXM4-80GB": "A100-80GB",
		"A100": "A100-40GB", "GeForce RTX 4090": "RTX 4090", "H100 SXM": "H100", "h100-pcie-80gb": "H100 PCIe",
		"910B": "Ascend 910B", "H20": "H20", "H200": "H200", "NVIDIA H100 PCIe": "H100 PCIe"} {
		i, ok := idx[gpu.Key(name)]
		if !ok || DefaultGPUs()[i].Model != want {
			t.Errorf("GPU %q → %v (%v), want %s", name, i, ok, want)
		}
	}
	// Names the table does not hold stay unknown (the file adds them under
	// gpus:) rather than borrowing a neighbour's figures, though ingest
	// records bills for some of them as that neighbour: a 4090D is not a
	// 4090, an L40 not an L40S, and the H200 NVL computes less than the H200.
	for _, name := range []string{"RTX 4090D", "NVIDIA L40", "NVIDIA H200 NVL", "Tesla T4", ""} {
		if i, ok := idx[gpu.Key(name)]; ok {
			t.Errorf("GPU %q → %s, want unknown", name, DefaultGPUs()[i].Model)
		}
	}
}
