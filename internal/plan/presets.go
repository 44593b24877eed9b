package plan

import (
	"regexp"
	"sort"
	"strings"
)

// Model is a transformer's size and shape: what the memory and compute
// formulas need. Zero means "not known"; the planner asks for a field only
// when a formula needs it.
type Model struct {
	Name         string  `json:"name"`
	Params       float64 `json:"params"`                  // total parameters (weights in memory)
	ActiveParams float64 `json:"active_params,omitempty"` // MoE: parameters used per token (compute)
	Layers       int     `json:"layers,omitempty"`
	Hidden       int     `json:"hidden,omitempty"`
	Heads        int     `json:"heads,omitempty"`
	KVHeads      int     `json:"kv_heads,omitempty"`
	HeadDim      int     `json:"head_dim,omitempty"`
	Intermediate int     `json:"intermediate,omitempty"` // MLP width, per expert for MoE
	Experts      int     `json:"experts,omitempty"`      // MoE experts per layer (each with its own MLP)
	Context      int     `json:"context,omitempty"`      // longest context the model was built for
	Source       string  `json:"source,omitempty"`
}

// computeParams is the parameter count that does work per token: all of
// them for a dense model, the active ones for a mixture of experts.
func (m Model) computeParams() float64 {
	if m.ActiveParams > 0 {
		return m.ActiveParams
	}
	return m.Params
}

// headDim is head_dim when given, else hidden / heads (true of every preset).
func (m Model) headDim() int {
	if m.HeadDim > 0 {
		return m.HeadDim
	}
	if m.Heads > 0 && m.Hidden%m.Heads == 0 {
		return m.Hidden / m.Heads
	}
	return 0
}

// kvHeads is kv_heads when given, else heads (multi-head attention).
func (m Model) kvHeads() int {
	if m.KVHeads > 0 {
		return m.KVHeads
	}
	return m.Heads
}

// Presets returns the built-in model table, ordered by name. Every figure is
// from the model's config.json on Hugging Face (num_hidden_layers,
// hidden_size, num_attention_heads, num_key_value_heads, intermediate_size,
// max_position_embeddings); parameter counts are exact sums of the weight
// shapes, which match the counts the model pages publish (Llama-2-7B
// 6,738,415,616). docs/PLANNER.md shows the table with its sources.
func Presets() []Model {
	const hf = "huggingface.co/"
	llama2 := func(name string, params float64, layers, hidden, heads, kv, inter int, repo string) Model {
		return Model{Name: name, Params: params, Layers: layers, Hidden: hidden, Heads: heads, KVHeads: kv,
			HeadDim: hidden / heads, Intermediate: inter, Context: 4096, Source: hf + repo + " config.json"}
	}
	ms := []Model{
		llama2("llama-2-7b", 6_738_415_616, 32, 4096, 32, 32, 11008, "meta-llama/Llama-2-7b-hf"),
		llama2("llama-2-13b", 13_015_864_320, 40, 5120, 40, 40, 13824, "meta-llama/Llama-2-13b-hf"),
		llama2("llama-2-70b", 68_976_648_192, 80, 8192, 64, 8, 28672, "meta-llama/Llama-2-70b-hf"),
		{Name: "llama-3-8b", Params: 8_030_261_248, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
			Intermediate: 14336, Context: 8192, Source: hf + "meta-llama/Meta-Llama-3-8B config.json"},
		{Name: "llama-3-70b", Params: 70_553_706_496, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128,
			Intermediate: 28672, Context: 8192, Source: hf + "meta-llama/Meta-Llama-3-70B config.json"},
		{Name: "llama-3.1-8b", Params: 8_030_261_248, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
			Intermediate: 14336, Context: 131072, Source: hf + "meta-llama/Llama-3.1-8B config.json"},
		{Name: "llama-3.1-70b", Params: 70_553_706_496, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128,
			Intermediate: 28672, Context: 131072, Source: hf + "meta-llama/Llama-3.1-70B config.json"},
		{Name: "llama-3.1-405b", Params: 405_853_388_800, Layers: 126, Hidden: 16384, Heads: 128, KVHeads: 8, HeadDim: 128,
			Intermediate: 53248, Context: 131072, Source: hf + "meta-llama/Llama-3.1-405B config.json"},
		{Name: "qwen2.5-7b", Params: 7_615_616_512, Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128,
			Intermediate: 18944, Context: 32768, Source: hf + "Qwen/Qwen2.5-7B config.json"},
		{Name: "qwen2.5-14b", Params: 14_770_033_664, Layers: 48, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128,
			Intermediate: 13824, Context: 32768, Source: hf + "Qwen/Qwen2.5-14B config.json"},
		{Name: "qwen2.5-32b", Params: 32_763_876_352, Layers: 64, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128,
			Intermediate: 27648, Context: 32768, Source: hf + "Qwen/Qwen2.5-32B config.json"},
		{Name: "qwen2.5-72b", Params: 72_706_203_648, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128,
			Intermediate: 29568, Context: 32768, Source: hf + "Qwen/Qwen2.5-72B config.json"},
		{Name: "mistral-7b", Params: 7_241_732_096, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
			Intermediate: 14336, Context: 32768, Source: hf + "mistralai/Mistral-7B-v0.1 config.json"},
		// Memory counts every expert (all are loaded); compute counts the two
		// experts each token is routed to, which is what "12.9B active" means.
		{Name: "mixtral-8x7b", Params: 46_702_792_704, ActiveParams: 12_879_925_248, Layers: 32, Hidden: 4096,
			Heads: 32, KVHeads: 8, HeadDim: 128, Intermediate: 14336, Experts: 8, Context: 32768,
			Source: hf + "mistralai/Mixtral-8x7B-v0.1 config.json"},
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Name < ms[j].Name })
	return ms
}

// versionSuffix matches a trailing "-v0.1" of Mistral's repository names.
var versionSuffix = regexp.MustCompile(`-v\d+(\.\d+)*$`)

// modelKey reduces a model name to a lookup key so that "llama-2-7b",
// "meta-llama/Llama-2-7b-hf", "Llama2-7B-chat" and "LLAMA_2_7B" all find the
// same preset, and "Qwen/Qwen2.5-7B-Instruct" finds qwen2.5-7b. Fine-tuned
// variants (-instruct, -chat) have the base model's shape.
func modelKey(name string) string {
	s := strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndex(s, "/"); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimPrefix(s, "meta-")
	s = strings.ReplaceAll(s, "×", "x")
	for changed := true; changed; {
		changed = false
		for _, suf := range []string{"-hf", "-instruct", "-chat", "-base", "-it"} {
			if strings.HasSuffix(s, suf) {
				s, changed = strings.TrimSuffix(s, suf), true
			}
		}
		if t := versionSuffix.ReplaceAllString(s, ""); t != s {
			s, changed = t, true
		}
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', ' ', '.':
			return -1
		}
		return r
	}, s)
}
