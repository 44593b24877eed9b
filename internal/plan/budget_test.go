package plan

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/testnum"
)

// The budget tests use one made-up GPU with round numbers, so every figure
// can be checked by hand: 100 dense TFLOPS, 80 GB, 1,000 GB/s; ¥10 an hour,
// ¥3,000 a month, ¥4 an hour on spot.
const testCatalog = `
currency: CNY
gpus:
  - {model: TestGPU, tflops: 100, vram_gb: 80, bandwidth_gbs: 1000}
prices:
  - {provider: P, gpu_model: TestGPU, hourly: 10, monthly: 3000, spot: 4, currency: CNY, as_of: "2026-11-01"}
`

// A data job of 1B parameters over 900M tokens at MFU 0.5 is
// 2 × 1e9 × 9e8 = 1.8e18 FLOPs = 1.8e18 / (100e12 × 0.5) s = 36,000 s =
// 10 card-hours on TestGPU.
const testJob = `{kind: data, params: 1B, memory_gb: 10, tokens: 900M, mfu: 0.5`

func TestJobBudget(t *testing.T) {
	r := planYAML(t, testCatalog+`
scenarios:
  - {name: plain, `+testJob[1:]+`}
  - {name: deadline, `+testJob[1:]+`, deadline_days: 0.25}
  - {name: spot, `+testJob[1:]+`, deadline_days: 0.25, interruptible: true}
  - {name: late, `+testJob[1:]+`, deadline_days: 0.1, max_gpus: 2}
  - {name: hours, kind: data, memory_gb: 10, hours: 4, gpus: 3}
  - {name: gpu-hours, kind: data, memory_gb: 10, gpu_hours: 20, runs: 3}
`)
	checkBudgetPlain(t, r)
	checkBudgetDeadlineAndSpot(t, r)
	checkBudgetLateAndGiven(t, r)
	// Total: 162.5 + 162.5 + 74.75 + 162.5 + 195 + 975 = 1,732.25.
	if r.Total.Cost != 1732.25 || r.Total.Planned != 6 {
		t.Errorf("total = %+v, want ¥1,732.25 for 6", r.Total)
	}
}

// checkBudgetPlain checks the plain data job: 10 card-hours, hourly and
// monthly by hand, no spot option, the hourly plan and the ranking.
func checkBudgetPlain(t *testing.T, r *Result) {
	t.Helper()
	s := scenario(t, r, "plain")
	testnum.Near(t, "card-hours", gpuFit(t, s, "TestGPU").CardHours, 10, 1e-9)
	// Hourly: 10 card-hours × (1 + 0.25) × ¥10 × 1.3 = ¥162.50; at 1.5 ¥187.50.
	h := option(t, s, "TestGPU", ModeHourly)
	if h.CostLow != 162.5 || h.CostHigh != 187.5 || h.GPUs != 1 || h.WallHours != 10 {
		t.Errorf("hourly = %+v, want ¥162.50–187.50 on 1 card for 10 h", h)
	}
	// Monthly: the job needs ceil(10 / 24) = 1 day, but a monthly rental is at
	// least 30 days: 1 × ¥3,000 × 30/30 × 1.3 = ¥3,900.
	m := option(t, s, "TestGPU", ModeMonthly)
	if m.CostLow != 3900 || m.Days != 1 || m.Months != 1 {
		t.Errorf("monthly = %+v, want ¥3,900 for 1 month", m)
	}
	// Not interruptible: no spot option.
	for _, o := range s.Options {
		if o.Mode == ModeSpot {
			t.Errorf("spot offered for non-interruptible work: %+v", o)
		}
	}
	if s.Plan == nil || s.Plan.Mode != ModeHourly || s.Plan.CostLow != 162.5 {
		t.Errorf("plan = %+v, want hourly ¥162.50", s.Plan)
	}
	// Cost per effective TFLOP-hour: ¥10 / (100 × 0.5) = ¥0.20.
	if g := gpuFit(t, s, "TestGPU"); g.CostPerTFLOPHour == nil || *g.CostPerTFLOPHour != 0.2 || g.RankByCost != 1 {
		t.Errorf("TestGPU ranking = %+v", g)
	}
}

// checkBudgetDeadlineAndSpot checks the job under a 6-hour deadline, on
// demand and on spot.
func checkBudgetDeadlineAndSpot(t *testing.T, r *Result) {
	t.Helper()
	// A 6-hour deadline needs ceil(10 / 6) = 2 cards (5 h); card-hours, and
	// so the hourly budget, do not change. Monthly rents 2 cards: ¥7,800.
	s := scenario(t, r, "deadline")
	if h := option(t, s, "TestGPU", ModeHourly); h.GPUs != 2 || h.WallHours != 5 || h.CostLow != 162.5 || !h.MeetsDeadline {
		t.Errorf("hourly with deadline = %+v, want 2 cards, 5 h, ¥162.50", h)
	}
	if m := option(t, s, "TestGPU", ModeMonthly); m.GPUs != 2 || m.CostLow != 7800 {
		t.Errorf("monthly with deadline = %+v, want 2 cards, ¥7,800", m)
	}

	// Spot: 10 × 1.15 = 11.5 card-hours; ceil(11.5 / 6) = 2 cards, 5.75 h;
	// 11.5 × 1.25 × ¥4 × 1.3 = ¥74.75 (at 1.5: ¥86.25). Cheapest: the plan.
	s = scenario(t, r, "spot")
	sp := option(t, s, "TestGPU", ModeSpot)
	if sp.GPUs != 2 || sp.WallHours != 5.75 || sp.CostLow != 74.75 || sp.CostHigh != 86.25 {
		t.Errorf("spot = %+v, want 2 cards, 5.75 h, ¥74.75–86.25", sp)
	}
	if s.Plan == nil || s.Plan.Mode != ModeSpot {
		t.Errorf("plan = %+v, want spot", s.Plan)
	}
}

// checkBudgetLateAndGiven checks a deadline no option meets, and jobs
// given in hours and in card-hours.
func checkBudgetLateAndGiven(t *testing.T, r *Result) {
	t.Helper()
	// 2.4 hours on at most 2 cards: 10 / 2 = 5 h, too slow. The cheapest
	// option is still shown, marked, with a warning.
	s := scenario(t, r, "late")
	if s.Plan == nil || s.Plan.MeetsDeadline || s.Plan.GPUs != 2 {
		t.Errorf("late plan = %+v, want 2 cards not meeting the deadline", s.Plan)
	}
	contains(t, "warnings", strings.Join(s.Warnings, "\n"), "no option finishes within the 0.1-day deadline on at most 2 cards")

	// Given hours: 4 h × 3 cards = 12 card-hours; 12 × 1.25 × 10 × 1.3 = ¥195.
	if p := scenario(t, r, "hours").Plan; p == nil || p.CostLow != 195 || p.GPUs != 3 {
		t.Errorf("hours plan = %+v, want ¥195 on 3 cards", p)
	}
	// Given card-hours: 20 × 3 runs = 60; 60 × 1.25 × 10 × 1.3 = ¥975.
	if p := scenario(t, r, "gpu-hours").Plan; p == nil || p.CostLow != 975 {
		t.Errorf("gpu_hours plan = %+v, want ¥975", p)
	}
}

func TestReservationBudget(t *testing.T) {
	r := planYAML(t, testCatalog+`
scenarios:
  - {name: long, kind: data, memory_gb: 10, gpus: 2, span_days: 45}
  - {name: short, kind: data, memory_gb: 10, gpus: 2, span_days: 10}
`)
	// 45 days: hourly kept on 2 × 24 × 45 × ¥10 × 1.3 = ¥28,080; monthly
	// 2 × ¥3,000 × 45/30 × 1.3 = ¥11,700 (no concurrency buffer on a reservation).
	s := scenario(t, r, "long")
	if h := option(t, s, "TestGPU", ModeHourly); h.CostLow != 28080 {
		t.Errorf("hourly = %v, want 28,080", h.CostLow)
	}
	if s.Plan == nil || s.Plan.Mode != ModeMonthly || s.Plan.CostLow != 11700 {
		t.Errorf("plan = %+v, want monthly ¥11,700", s.Plan)
	}
	// 10 days: monthly still bills a month, 2 × 3,000 × 1.3 = ¥7,800; hourly
	// 2 × 24 × 10 × 10 × 1.3 = ¥6,240 wins.
	s = scenario(t, r, "short")
	if s.Plan == nil || s.Plan.Mode != ModeHourly || s.Plan.CostLow != 6240 {
		t.Errorf("plan = %+v, want hourly ¥6,240", s.Plan)
	}
	if m := option(t, s, "TestGPU", ModeMonthly); m.CostLow != 7800 || m.Months != 1 {
		t.Errorf("monthly = %+v, want ¥7,800 for 1 month", m)
	}
}

func TestServingBudget(t *testing.T) {
	// A 1B model in bf16 (2e9 weight bytes), 16 layers × 16 KV heads × 128:
	// KV per token 2 × 16 × 16 × 128 × 2 = 131,072 B; 820-token context ×
	// batch 4 = 429,916,160 B. Per GPU: prefill 100e12 × 0.5 / (2 × 1e9) =
	// 25,000 tokens/s; decode min(4 × 1000e9 / 2e9, 25,000) = 2,000 tokens/s
	// (bandwidth bound). A day of 100k requests: 1e7 input tokens / 25,000 =
	// 400 s + 7.2e7 output tokens / 2,000 = 36,000 s → 36,400 s = 10.11
	// card-hours a day.
	model := `kind: inference, params: 1B, layers: 16, hidden: 2048, heads: 16, batch: 4, mfu: 0.5,
     requests_per_day: 100k, input_tokens: 100, output_tokens: 720, span_days: 30`
	r := planYAML(t, testCatalog+`
scenarios:
  - {name: all-day, `+model+`}
  - {name: office-hours, `+model+`, serving_hours_per_day: 8}
  - {name: measured, `+model+`, throughput: 500}
`)
	s := scenario(t, r, "all-day")
	testnum.Near(t, "total_gb", s.Memory.TotalGB, 3.989641216, 1e-9)
	sv := gpuFit(t, s, "TestGPU").Serving
	if sv == nil || sv.PrefillTokensPerSec != 25000 || sv.DecodeTokensPerSec != 2000 || sv.DecodeBound != "bandwidth" {
		t.Fatalf("serving = %+v", sv)
	}
	testnum.Near(t, "busy card-hours a day", sv.BusyCardHoursPerDay, 36400.0/3600, 1e-9)
	// 10.11 / 24 h = 0.42 cards → 1 card. Hourly 24 × 30 × ¥10 × 1.3 =
	// ¥9,360; monthly ¥3,000 × 1.3 = ¥3,900 wins.
	if s.Plan == nil || s.Plan.Mode != ModeMonthly || s.Plan.GPUs != 1 || s.Plan.CostLow != 3900 {
		t.Errorf("all-day plan = %+v, want 1 card monthly ¥3,900", s.Plan)
	}
	if h := option(t, s, "TestGPU", ModeHourly); h.CostLow != 9360 {
		t.Errorf("all-day hourly = %v, want 9,360", h.CostLow)
	}
	// Over 8 hours: 10.11 / 8 = 1.26 cards → 2. Hourly 2 × 8 × 30 × 10 × 1.3
	// = ¥6,240 beats monthly 2 × 3,000 × 1.3 = ¥7,800.
	s = scenario(t, r, "office-hours")
	if s.Plan == nil || s.Plan.Mode != ModeHourly || s.Plan.GPUs != 2 || s.Plan.CostLow != 6240 {
		t.Errorf("office-hours plan = %+v, want 2 cards hourly ¥6,240", s.Plan)
	}
	// Measured 500 tokens/s: 7.2e7 / 500 = 144,000 s = 40 card-hours a day,
	// 40 / 24 = 1.67 → 2 cards; monthly 2 × 3,000 × 1.3 = ¥7,800.
	s = scenario(t, r, "measured")
	if s.Plan == nil || s.Plan.GPUs != 2 || s.Plan.CostLow != 7800 {
		t.Errorf("measured plan = %+v, want 2 cards ¥7,800", s.Plan)
	}
}

func TestPricesFXAndConfig(t *testing.T) {
	// $1 an hour at 7 CNY/USD: 10 card-hours × 1.25 × ¥7 × 1.3 = ¥113.75.
	r := planYAML(t, `
currency: CNY
fx: {USD: 7}
gpus:
  - {model: TestGPU, tflops: 100, vram_gb: 80, bandwidth_gbs: 1000}
prices:
  - {provider: Q, gpu_model: TestGPU, hourly: 1, currency: USD}
scenarios:
  - {name: job, `+testJob[1:]+`}
`)
	p := scenario(t, r, "job").Plan
	if p == nil || p.CostLow != 113.75 || p.Price != 7 {
		t.Fatalf("plan = %+v, want ¥113.75 at ¥7/h", p)
	}
	contains(t, "price source", p.PriceSource, "Q TestGPU hourly 1.00 USD × 7 CNY/USD", "(scenario file)")

	// finops.yaml's prices count where the file has none for that provider
	// and GPU; the file's row wins where both price it.
	f, err := Parse("test.yaml", []byte(`
gpus:
  - {model: TestGPU, tflops: 100, vram_gb: 80, bandwidth_gbs: 1000}
prices:
  - {provider: P, gpu_model: TestGPU, hourly: 10}
scenarios:
  - {name: job, `+testJob[1:]+`}
`))
	if err != nil {
		t.Fatal(err)
	}
	eight, twenty := 8.0, 20.0
	r, err = Plan(f, Options{Currency: "CNY", Prices: []Price{
		{Provider: "P", GPUModel: "testgpu", Hourly: &twenty, Currency: "CNY"},
		{Provider: "R", GPUModel: "TestGPU", Hourly: &eight, Currency: "CNY"},
		{Provider: "R", GPUModel: "T4", Hourly: &eight, Currency: "CNY"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := scenario(t, r, "job")
	if len(s.Options) != 2 {
		t.Fatalf("options = %+v, want P at ¥10 and R at ¥8", s.Options)
	}
	// R at ¥8: 10 × 1.25 × 8 × 1.3 = ¥130.
	if s.Plan == nil || s.Plan.Provider != "R" || s.Plan.CostLow != 130 {
		t.Errorf("plan = %+v, want R ¥130", s.Plan)
	}
	contains(t, "price source", s.Plan.PriceSource, "(finops.yaml)")
	if o := option(t, s, "TestGPU", ModeHourly); o.Provider == "P" && o.Price != 10 {
		t.Errorf("the file's price for P did not win: %+v", o)
	}
	contains(t, "warnings", strings.Join(r.Warnings, "\n"), "finops.yaml prices a T4 (R), which is not in the planner's GPU table")
}

func TestParallelismAuto(t *testing.T) {
	// A 70B LoRA (175 GB, TestLLaMAFactoryTable) fits no single card, so it is
	// sharded, and only over cards with NVLink: ceil(175.05 / 72) = 3
	// A100-80GB; no RTX 4090.
	r := planYAML(t, `
scenarios:
  - {name: big, kind: lora, model: llama-2-70b, tokens: 1M}
  - {name: chat, kind: inference, model: llama-2-70b, requests_per_day: 1k, output_tokens: 100, span_days: 30}
`)
	s := scenario(t, r, "big")
	if s.Parallelism != ParallelShard {
		t.Errorf("parallelism = %s, want shard", s.Parallelism)
	}
	if g := gpuFit(t, s, "A100-80GB"); !g.Fits || g.MinGPUs != 3 {
		t.Errorf("A100-80GB: %+v, want 3 cards", g)
	}
	if g := gpuFit(t, s, "RTX 4090"); g.Fits {
		t.Errorf("RTX 4090 fits a sharded 70B LoRA: %s", g.Why)
	}
	// Inference shards over any card (tensor parallelism): Llama-2-70B in
	// bf16 with a 100-token context (KV 2 × 80 × 8 × 128 × 2 = 327,680 B per
	// token) is (137,953,296,384 + 32,768,000) × 1.2 + 1,073,741,824 =
	// 166,657,019,085 B = 166.66 GB; ceil(166.66 / 21.6) = 8 RTX 4090s.
	s = scenario(t, r, "chat")
	testnum.Near(t, "70B inference total_gb", s.Memory.TotalGB, 166.657019085, 1e-6)
	if g := gpuFit(t, s, "RTX 4090"); !g.Fits || g.MinGPUs != 8 {
		t.Errorf("RTX 4090 for 70B inference: %+v, want 8 cards", g)
	}
}
