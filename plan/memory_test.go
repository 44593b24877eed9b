package plan

import (
	"slices"
	"testing"
)

// Published figures the memory formulas must reproduce.

func TestWeightsLlama2_7B(t *testing.T) {
	// Llama-2-7B has 6,738,415,616 parameters (its model card: "7B", 6.74B);
	// in bf16 that is 6,738,415,616 × 2 = 13,476,831,232 bytes ≈ 13.5 GB.
	p := presetByName(t, "llama-2-7b")
	if p.Params != 6_738_415_616 {
		t.Fatalf("llama-2-7b params = %v", p.Params)
	}
	got := WeightBytes(p.Params, BF16)
	if got != 13_476_831_232 {
		t.Errorf("weights = %v bytes, want 13,476,831,232", got)
	}
	near(t, "weights GB", got/gb, 13.5, 0.05)
	// fp32 4, fp16 2, int8 1, int4 0.5 bytes per parameter.
	for d, want := range map[Dtype]float64{FP32: 4e9, FP16: 2e9, INT8: 1e9, INT4: 0.5e9} {
		if got := WeightBytes(1e9, d); got != want {
			t.Errorf("1B in %s = %v, want %v", d, got, want)
		}
	}
}

func TestKVCachePerToken(t *testing.T) {
	// vLLM: 2 (K and V) × layers × kv_heads × head_dim × bytes.
	// Llama-2-7B: 2 × 32 × 32 × 128 × 2 = 524,288 B = 512 KiB (multi-head).
	// Llama-3-8B: 2 × 32 × 8 × 128 × 2 = 131,072 B = 128 KiB (8 KV heads, GQA).
	for _, c := range []struct {
		model string
		kib   float64
	}{{"llama-2-7b", 512}, {"llama-3-8b", 128}} {
		p := presetByName(t, c.model)
		got := KVBytesPerToken(p.Layers, p.kvHeads(), p.headDim(), BF16)
		if got != c.kib*1024 {
			t.Errorf("%s KV per token = %v B, want %v KiB", c.model, got, c.kib)
		}
	}
	// Through the planner: a 4,096-token context of Llama-2-7B is
	// 512 KiB × 4096 = 2 GiB = 2,147,483,648 bytes.
	r := planYAML(t, `
scenarios:
  - {name: chat, kind: inference, model: llama-2-7b, seq_len: 4096, gpus: 1, span_days: 30}
`)
	s := scenario(t, r, "chat")
	if s.Memory.KVBytesPerToken != 524288 {
		t.Errorf("kv_bytes_per_token = %v", s.Memory.KVBytesPerToken)
	}
	near(t, "kv_cache_gb", s.Memory.KVCacheGB, 2.147483648, 1e-9)
}

func TestSevenBInferenceFitsA24GBCard(t *testing.T) {
	// metrics.md: a 7B model in fp16 is ≈ 14 GB of weights and fits a 24 GB
	// card for inference, with little KV room. Llama-2-7B, 4,096 tokens:
	// (13,476,831,232 + 2,147,483,648) × 1.2 + 1,073,741,824
	// = 18,749,177,856 + 1,073,741,824 = 19,822,919,680 B = 19.82 GB
	// ≤ 0.9 × 24 = 21.6 GB.
	r := planYAML(t, `
scenarios:
  - {name: chat, kind: inference, model: llama-2-7b, dtype: fp16, seq_len: 4096, gpus: 1, span_days: 30}
`)
	s := scenario(t, r, "chat")
	near(t, "total_gb", s.Memory.TotalGB, 19.82291968, 1e-9)
	if g := gpuFit(t, s, "RTX 4090"); !g.Fits || g.MinGPUs != 1 {
		t.Errorf("RTX 4090: fits=%v min=%d, want one card", g.Fits, g.MinGPUs)
	}
}

func TestFullFinetuneState16BytesPerParam(t *testing.T) {
	// Mixed-precision AdamW: 2 (bf16 weights) + 2 (gradients) + 12 (fp32
	// master, m, v) = 16 B per parameter; Llama-2-7B: 16 × 6,738,415,616 =
	// 107,814,649,856 B ≈ 108 GB.
	r := planYAML(t, `
scenarios:
  - {name: full, kind: full-finetune, model: llama-2-7b, tokens: 1B}
`)
	s := scenario(t, r, "full")
	state := s.Memory.WeightsGB + s.Memory.GradientsGB + s.Memory.OptimizerGB
	near(t, "state GB", state, 107.814649856, 1e-9)
	near(t, "state ≈ 108 GB", state, 108, 0.5)
	near(t, "optimizer GB", s.Memory.OptimizerGB, 12*6.738415616, 1e-9)

	// metrics.md: a 7B full fine-tune needs ≥ 2 × 80 GB. With 2,048 tokens
	// of checkpointed activations (2 × 2048 × 1 × 4096 × 32 × 2 =
	// 1,073,741,824 B): (107,814,649,856 + 1,073,741,824) × 1.2 + 1 GiB =
	// 131,739,811,840 B = 131.74 GB; ceil(131.74 / 72) = 2 A100-80GB.
	near(t, "total_gb", s.Memory.TotalGB, 131.73981184, 1e-9)
	if g := gpuFit(t, s, "A100-80GB"); !g.Fits || g.MinGPUs != 2 {
		t.Errorf("A100-80GB: fits=%v min=%d, want 2", g.Fits, g.MinGPUs)
	}
	// Sharding full training over PCIe consumer cards is not planned unless asked.
	if g := gpuFit(t, s, "RTX 4090"); g.Fits {
		t.Errorf("RTX 4090 fits a 7B full fine-tune: %s", g.Why)
	}
	r = planYAML(t, `
scenarios:
  - {name: full, kind: full-finetune, model: llama-2-7b, tokens: 1B, parallelism: shard}
`)
	// ceil(131.74 / 21.6) = ceil(6.099) = 7 cards.
	if g := gpuFit(t, scenario(t, r, "full"), "RTX 4090"); !g.Fits || g.MinGPUs != 7 {
		t.Errorf("RTX 4090 with parallelism: shard: fits=%v min=%d, want 7", g.Fits, g.MinGPUs)
	}
}

func TestLoRATrainableParams(t *testing.T) {
	// PEFT's print_trainable_parameters for Llama-2-7B with r = 8 on
	// q, k, v, o, gate, up, down: "trainable params: 19,988,480". By hand,
	// per layer: 4 × (4096 + 4096) + 3 × (4096 + 11008) = 78,080;
	// 8 × 78,080 × 32 layers = 19,988,480.
	n, per := LoRATrainableParams(presetByName(t, "llama-2-7b"), 8, "all")
	if n != 19_988_480 || per != 78_080 {
		t.Errorf("llama-2-7b r8 all = %v (per layer %d), want 19,988,480 (78,080)", n, per)
	}
	// Llama-2-70B (8 KV heads: k and v are 8192 → 1024): per layer
	// (8192+8192)×2 + (8192+1024)×2 + 3 × (8192+28672) = 161,792;
	// 8 × 161,792 × 80 = 103,546,880.
	if n, _ := LoRATrainableParams(presetByName(t, "llama-2-70b"), 8, "all"); n != 103_546_880 {
		t.Errorf("llama-2-70b r8 all = %v, want 103,546,880", n)
	}
	// Attention only, Llama-2-7B, r = 16: 16 × 4 × 8192 × 32 = 16,777,216.
	if n, _ := LoRATrainableParams(presetByName(t, "llama-2-7b"), 16, "attention"); n != 16_777_216 {
		t.Errorf("llama-2-7b r16 attention = %v, want 16,777,216", n)
	}
	// Mixtral: every expert's MLP is a target. Per layer (4096+4096)×2 +
	// (4096+1024)×2 + 8 × 3 × (4096+14336) = 26,624 + 442,368 = 468,992;
	// 8 × 468,992 × 32 = 120,061,952.
	if n, _ := LoRATrainableParams(presetByName(t, "mixtral-8x7b"), 8, "all"); n != 120_061_952 {
		t.Errorf("mixtral-8x7b r8 all = %v, want 120,061,952", n)
	}
}

func TestActivations(t *testing.T) {
	// With checkpointing: 2 × 2048 × 1 × 4096 × 32 × 2 = 1,073,741,824.
	if got := ActivationBytes(2048, 1, 4096, 32); got != 1_073_741_824 {
		t.Errorf("checkpointed = %v", got)
	}
	// Without (Korthikanti et al.): 32 × 2048 × 1 × 4096 × (34 + 5 × 32 ×
	// 2048 / 4096) = 32 × 8,388,608 × 114 = 30,601,641,984.
	if got := ActivationBytesNoCheckpointing(2048, 1, 4096, 32, 32); got != 30_601_641_984 {
		t.Errorf("not checkpointed = %v", got)
	}
}

// TestLLaMAFactoryTable compares the planner with LLaMA-Factory's published
// hardware table (README, "Hardware Requirement", estimated): 7B LoRA 16 GB,
// QLoRA-4bit 6 GB; 70B LoRA 160 GB, QLoRA-4bit 48 GB. "Its default settings"
// are the ones its own example configs (examples/train_lora/llama3_lora_sft.yaml)
// and argument defaults use, and the planner's defaults for lora and qlora:
// LoRA rank 8 on all linear layers (lora_target: all), cutoff_len 2048,
// per_device_train_batch_size 1, bf16, gradient checkpointing on (its
// disable_gradient_checkpointing defaults to false). "7B" and "70B" are
// Llama-2-7B and Llama-2-70B. The planner must land within ±25%.
func TestLLaMAFactoryTable(t *testing.T) {
	r := planYAML(t, `
scenarios:
  - {name: lora-7b, kind: lora, model: llama-2-7b, tokens: 1M}
  - {name: qlora-7b, kind: qlora, model: llama-2-7b, tokens: 1M}
  - {name: lora-70b, kind: lora, model: llama-2-70b, tokens: 1M}
  - {name: qlora-70b, kind: qlora, model: llama-2-70b, tokens: 1M}
`)
	// By hand, with N and N_trainable from TestLoRATrainableParams, A =
	// activations 2 × 2048 × 1 × hidden × layers × 2, total = subtotal × 1.2
	// + 1,073,741,824:
	//  7B LoRA:   2 × 6,738,415,616 + 16 × 19,988,480 + 1,073,741,824
	//             = 14,870,388,736 → 18,918,208,307 B = 18.92 GB (LF 16 GB: +18%)
	//  7B QLoRA:  0.5 × 1.05 × 6,738,415,616 + 319,815,680 + 1,073,741,824
	//             = 4,931,225,702 → 6,991,212,667 B = 6.99 GB (LF 6 GB: +17%)
	//  70B LoRA:  2 × 68,976,648,192 + 16 × 103,546,880 + 2 × 2048 × 8192 × 80 × 2
	//             = 137,953,296,384 + 1,656,750,080 + 5,368,709,120
	//             = 144,978,755,584 → 175,048,248,525 B = 175.05 GB (LF 160 GB: +9%)
	//  70B QLoRA: 0.525 × 68,976,648,192 + 1,656,750,080 + 5,368,709,120
	//             = 43,238,199,501 → 52,959,581,225 B = 52.96 GB (LF 48 GB: +10%)
	for _, c := range []struct {
		name     string
		hand, lf float64
	}{
		{"lora-7b", 18.918208307, 16},
		{"qlora-7b", 6.991212667, 6},
		{"lora-70b", 175.048248525, 160},
		{"qlora-70b", 52.959581225, 48},
	} {
		s := scenario(t, r, c.name)
		near(t, c.name+" total_gb (by hand)", s.Memory.TotalGB, c.hand, 1e-6)
		if ratio := s.Memory.TotalGB / c.lf; ratio < 0.75 || ratio > 1.25 {
			t.Errorf("%s: %.2f GB is %.0f%% of LLaMA-Factory's %v GB, outside ±25%%", c.name, s.Memory.TotalGB, ratio*100, c.lf)
		}
		for _, d := range []string{"lora_rank", "lora_targets", "seq_len", "batch", "checkpointing"} {
			if !slices.Contains(s.Inputs.Defaulted, d) {
				t.Errorf("%s: %s was not left to the default", c.name, d)
			}
		}
	}
}

func presetByName(t *testing.T, name string) Model {
	t.Helper()
	for _, m := range Presets() {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no preset %q", name)
	return Model{}
}
