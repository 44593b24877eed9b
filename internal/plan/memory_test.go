package plan

import (
	"slices"
	"testing"

	"github.com/finops-oss/finops/internal/testnum"
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
	testnum.Near(t, "weights GB", got/gb, 13.5, 0.05)
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
	testnum.Near(t, "kv_cache_gb", s.Memory.KVCacheGB, 2.147483648, 1e-9)
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
	testnum.Near(t, "total_gb", s.Memory.TotalGB, 19.82291968, 1e-9)
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
	testnum.Near(t, "state GB", state, 107.814649856, 1e-9)
	testnum.Near(t, "state ≈ 108 GB", state, 108, 0.5)
	testnum.Near(t, "optimizer GB", s.Memory.OptimizerGB, 12*6.738415616, 1e-9)

	// metrics.md: a 7B full fine-tune needs ≥ 2 × 80 GB. With 2,048 tokens
	// of activations under full recomputation (2 × 2048 × 1 × 4096 × 32 =
	// 536,870,912 B) and the training overhead 1.05:
	// (107,814,649,856 + 536,870,912) × 1.05 + 1 GiB = 113,769,096,806.4
	// + 1,073,741,824 = 114,842,838,630.4 B = 114.84 GB (LLaMA-Factory's
	// table: 120 GB); ceil(114.84 / 72) = 2 A100-80GB.
	testnum.Near(t, "total_gb", s.Memory.TotalGB, 114.8428386304, 1e-9)
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
	// ceil(114.84 / 21.6) = ceil(5.317) = 6 cards.
	if g := gpuFit(t, scenario(t, r, "full"), "RTX 4090"); !g.Fits || g.MinGPUs != 6 {
		t.Errorf("RTX 4090 with parallelism: shard: fits=%v min=%d, want 6", g.Fits, g.MinGPUs)
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

// TestActivations checks the activation formulas against their sources.
// Under full recomputation (activation checkpointing of every layer) only
// each layer's input is kept: s × b × h values of 2 bytes per layer, which
// EleutherAI's "Transformer Math 101" writes as 2 · s · b · h · L bytes
// (Korthikanti et al. 2022, §4.2, the same). Without checkpointing,
// Korthikanti et al. eq. 1: s · b · h · (34 + 5 · a · s / h) bytes per layer.
func TestActivations(t *testing.T) {
	for _, c := range []struct {
		name                string
		seq, batch          float64
		hidden, layers, hds int
		recompute, none     float64 // by hand, bytes
	}{
		// 2 × 2048 × 1 × 4096 × 32 = 536,870,912;
		// 32 × 2048 × 1 × 4096 × (34 + 5 × 32 × 2048 / 4096) = 32 × 8,388,608 × 114 = 30,601,641,984.
		{"llama-2-7b s2048 b1", 2048, 1, 4096, 32, 32, 536_870_912, 30_601_641_984},
		// 2 × 2048 × 1 × 8192 × 80 = 2,684,354,560;
		// 80 × 2048 × 8192 × (34 + 5 × 64 × 2048 / 8192) = 80 × 16,777,216 × 114 = 153,008,209,920.
		{"llama-2-70b s2048 b1", 2048, 1, 8192, 80, 64, 2_684_354_560, 153_008_209_920},
		// The worked case: 2 × 4096 × 2 × 6144 × 48 = 4,831,838,208;
		// 48 × 4096 × 2 × 6144 × (34 + 5 × 48 × 4096 / 6144) = 48 × 50,331,648 × 194 = 468,688,306,176.
		{"worked case s4096 b2", 4096, 2, 6144, 48, 48, 4_831_838_208, 468_688_306_176},
	} {
		if got := ActivationBytes(c.seq, c.batch, c.hidden, c.layers); got != c.recompute {
			t.Errorf("%s: full recomputation = %v B, want 2·s·b·h·L = %v", c.name, got, c.recompute)
		}
		if got := ActivationBytesNoCheckpointing(c.seq, c.batch, c.hidden, c.layers, c.hds); got != c.none {
			t.Errorf("%s: no checkpointing = %v B, want %v", c.name, got, c.none)
		}
	}
	// Through the planner, the activation term of a LoRA job with
	// checkpointing (the default) and without it.
	r := planYAML(t, `
scenarios:
  - {name: ckpt, kind: lora, model: llama-2-7b, tokens: 1M}
  - {name: none, kind: lora, model: llama-2-7b, tokens: 1M, checkpointing: false}
`)
	testnum.Near(t, "ckpt activations_gb", scenario(t, r, "ckpt").Memory.ActivationsGB, 0.536870912, 1e-12)
	testnum.Near(t, "none activations_gb", scenario(t, r, "none").Memory.ActivationsGB, 30.601641984, 1e-9)
}

// TestLLaMAFactoryTable compares the planner with LLaMA-Factory's published
// hardware table (README, "Hardware Requirement", estimated), its 7B and 70B
// columns: Full (bf16 or fp16, 32-bit AMP state) 120 and 1200 GB, LoRA 16
// and 160 GB, QLoRA 8-bit 10 and 80 GB, QLoRA 4-bit 6 and 48 GB. "Its
// default settings" are the ones its own example configs
// (examples/train_lora/llama3_lora_sft.yaml) and argument defaults use, and
// the planner's defaults: LoRA rank 8 on all linear layers (lora_target:
// all), cutoff_len 2048, per_device_train_batch_size 1, bf16, gradient
// checkpointing on (its disable_gradient_checkpointing defaults to false).
// "7B" and "70B" are Llama-2-7B and Llama-2-70B. The planner must land
// within ±15%.
func TestLLaMAFactoryTable(t *testing.T) {
	r := planYAML(t, `
scenarios:
  - {name: full-7b, kind: full-finetune, model: llama-2-7b, tokens: 1M}
  - {name: full-70b, kind: full-finetune, model: llama-2-70b, tokens: 1M}
  - {name: lora-7b, kind: lora, model: llama-2-7b, tokens: 1M}
  - {name: lora-70b, kind: lora, model: llama-2-70b, tokens: 1M}
  - {name: qlora8-7b, kind: qlora, model: llama-2-7b, dtype: int8, tokens: 1M}
  - {name: qlora8-70b, kind: qlora, model: llama-2-70b, dtype: int8, tokens: 1M}
  - {name: qlora-7b, kind: qlora, model: llama-2-7b, tokens: 1M}
  - {name: qlora-70b, kind: qlora, model: llama-2-70b, tokens: 1M}
`)
	// By hand, with N (7B 6,738,415,616; 70B 68,976,648,192) and
	// N_trainable (19,988,480; 103,546,880) from TestLoRATrainableParams,
	// activations A = 2 × 2048 × 1 × hidden × layers (7B 536,870,912; 70B
	// 2,684,354,560) and total = subtotal × 1.05 + 1,073,741,824:
	//  7B full:     16 × N + A = 108,351,520,768 → 114,842,838,630 B = 114.84 GB (LF 120: −4%)
	//  70B full:    16 × N + A = 1,106,310,725,632 → 1,162,700,003,738 B = 1162.70 GB (LF 1200: −3%)
	//  7B LoRA:     2 × N + 16 × 19,988,480 + A = 14,333,517,824 → 16,123,935,539 B = 16.12 GB (LF 16: +1%)
	//  70B LoRA:    2 × N + 16 × 103,546,880 + A = 142,294,401,024 → 150,482,862,899 B = 150.48 GB (LF 160: −6%)
	//  7B QLoRA-8:  1 × 1.05 × N + 319,815,680 + A = 7,932,022,989 → 9,402,365,962 B = 9.40 GB (LF 10: −6%)
	//  70B QLoRA-8: 1.05 × N + 1,656,750,080 + A = 76,766,585,242 → 81,678,656,328 B = 81.68 GB (LF 80: +2%)
	//  7B QLoRA-4:  0.5 × 1.05 × N + 319,815,680 + A = 4,394,354,790 → 5,687,814,354 B = 5.69 GB (LF 6: −5%)
	//  70B QLoRA-4: 0.525 × N + 1,656,750,080 + A = 40,553,844,941 → 43,655,279,012 B = 43.66 GB (LF 48: −9%)
	for _, c := range []struct {
		name     string
		hand, lf float64
	}{
		{"full-7b", 114.842838630, 120},
		{"full-70b", 1162.700003738, 1200},
		{"lora-7b", 16.123935539, 16},
		{"lora-70b", 150.482862899, 160},
		{"qlora8-7b", 9.402365962, 10},
		{"qlora8-70b", 81.678656328, 80},
		{"qlora-7b", 5.687814354, 6},
		{"qlora-70b", 43.655279012, 48},
	} {
		s := scenario(t, r, c.name)
		testnum.Near(t, c.name+" total_gb (by hand)", s.Memory.TotalGB, c.hand, 1e-6)
		if ratio := s.Memory.TotalGB / c.lf; ratio < 0.85 || ratio > 1.15 {
			t.Errorf("%s: %.2f GB is %.0f%% of LLaMA-Factory's %v GB, outside ±15%%", c.name, s.Memory.TotalGB, ratio*100, c.lf)
		}
		for _, d := range []string{"seq_len", "batch", "checkpointing"} {
			if !slices.Contains(s.Inputs.Defaulted, d) {
				t.Errorf("%s: %s was not left to the default", c.name, d)
			}
		}
		if s.Kind != KindLoRA && s.Kind != KindQLoRA {
			continue
		}
		for _, d := range []string{"lora_rank", "lora_targets"} {
			if !slices.Contains(s.Inputs.Defaulted, d) {
				t.Errorf("%s: %s was not left to the default", c.name, d)
			}
		}
	}
}

// TestQLoRA65BOn48GB: the QLoRA paper (Dettmers et al. 2023, abstract)
// finetunes a 65B model on a single 48 GB GPU. LLaMA-65B, from its
// config.json (80 layers, hidden 8192, 64 heads, intermediate 22016, vocab
// 32000): 2 × 32000 × 8192 (embeddings, head) + 80 × (4 × 8192² + 3 × 8192
// × 22016 + 2 × 8192) + 8192 = 524,288,000 + 80 × 809,517,056 + 8192 =
// 65,285,660,672 parameters. NF4 weights: 0.525 × N = 34,274,971,852.8 B.
// LoRA rank 8 on all linear layers: per layer 4 × (8192 + 8192) + 3 × (8192
// + 22016) = 156,160; 8 × 156,160 × 80 = 99,942,400 trainable, 16 B each =
// 1,599,078,400 B. A 48 GB card holds 0.9 × 48 = 43.2 GB.
func TestQLoRA65BOn48GB(t *testing.T) {
	r := planYAML(t, `
models:
  - {name: llama-65b, params: 65285660672, layers: 80, hidden: 8192, heads: 64, kv_heads: 64, intermediate: 22016}
scenarios:
  - {name: lf-defaults, kind: qlora, model: llama-65b, tokens: 1M}
  - {name: guanaco-65b, kind: qlora, model: llama-65b, seq_len: 528, batch: 4, tokens: 1M}
  - {name: guanaco-65b-r64, kind: qlora, model: llama-65b, seq_len: 528, batch: 4, lora_rank: 64, tokens: 1M}
`)
	for _, c := range []struct {
		name string
		hand float64 // GB, by hand
		fits bool
	}{
		// LLaMA-Factory's defaults (2,048 tokens, batch 1): activations
		// 2 × 2048 × 8192 × 80 = 2,684,354,560; (34,274,971,852.8 +
		// 1,599,078,400 + 2,684,354,560) × 1.05 + 1,073,741,824 =
		// 38,558,404,812.8 × 1.05 + 1,073,741,824 = 41,560,066,877.44 B.
		{"lf-defaults", 41.56006687744, true},
		// The paper's Guanaco-65B script (scripts/finetune_guanaco_65b.sh:
		// source_max_len 16 + target_max_len 512, per_device_train_batch_size
		// 4): activations 2 × 528 × 4 × 8192 × 80 = 2,768,240,640;
		// 38,642,290,892.8 × 1.05 + 1,073,741,824 = 41,648,147,261.44 B.
		{"guanaco-65b", 41.64814726144, true},
		// At the script's own rank 64 (799,539,200 trainable, 16 B each =
		// 12,792,627,200 B) it fits only because the paper's paged
		// optimizer moves Adam's state to CPU memory when the GPU is full,
		// which the planner does not model: (34,274,971,852.8 +
		// 12,792,627,200 + 2,768,240,640) × 1.05 + 1,073,741,824 =
		// 53,401,373,501.44 B.
		{"guanaco-65b-r64", 53.40137350144, false},
	} {
		s := scenario(t, r, c.name)
		testnum.Near(t, c.name+" total_gb", s.Memory.TotalGB, c.hand, 1e-9)
		for _, gpu := range []string{"L40S", "RTX 6000 Ada", "L20"} {
			g := gpuFit(t, s, gpu)
			if g.Fits != c.fits || (c.fits && g.MinGPUs != 1) {
				t.Errorf("%s on %s: fits=%v min=%d, want fits=%v on one card: %s", c.name, gpu, g.Fits, g.MinGPUs, c.fits, g.Why)
			}
		}
	}
}

// TestOverheadByKind: training kinds take training_overhead, inference and
// data jobs overhead, each overridable under defaults:.
func TestOverheadByKind(t *testing.T) {
	r := planYAML(t, `
defaults: {overhead: 1.5, training_overhead: 1.25}
scenarios:
  - {name: tune, kind: lora, model: llama-2-7b, tokens: 1M}
  - {name: chat, kind: inference, model: llama-2-7b, seq_len: 4096, gpus: 1, span_days: 30}
`)
	// LoRA, by hand as in TestLLaMAFactoryTable: 14,333,517,824 × 1.25 +
	// 1,073,741,824 = 18,990,639,104 B.
	testnum.Near(t, "lora total_gb", scenario(t, r, "tune").Memory.TotalGB, 18.990639104, 1e-9)
	// Inference, as in TestSevenBInferenceFitsA24GBCard: (13,476,831,232 +
	// 2,147,483,648) × 1.5 + 1,073,741,824 = 24,510,214,144 B.
	testnum.Near(t, "inference total_gb", scenario(t, r, "chat").Memory.TotalGB, 24.510214144, 1e-9)
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
