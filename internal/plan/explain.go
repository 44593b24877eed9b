package plan

import (
	"fmt"
	"io"
	"strings"

	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/termcol"
)

// explainOptions is how many of a scenario's cheapest options --explain
// prints; the JSON and the workbook have all of them.
const explainOptions = 5

// WriteExplain prints the four steps of every scenario with the formulas
// and the scenario's numbers substituted, so each figure of the plan can be
// checked by hand.
func WriteExplain(w io.Writer, r *Result) error {
	if r == nil {
		return fmt.Errorf("plan: nil result")
	}
	var b strings.Builder
	a := r.Assumptions
	b.WriteString(title(r) + "\n")
	fmt.Fprintf(&b, "Assumptions: MFU %s · concurrency buffer %s · risk %s–%s · spot inflation %s · memory × %s (training × %s) + %s GiB CUDA context · usable VRAM %s · monthly rentals ≥ %s days\n",
		num(a.MFU), num(a.ConcurrencyBuffer), num(a.Risk), num(a.RiskHigh), num(a.SpotInflation), num(a.Overhead), num(a.TrainingOverhead),
		num(a.CUDAContextGiB), num(a.UsableVRAM), num(a.MonthlyMinDays))
	for _, wn := range r.Warnings {
		b.WriteString("Warning: " + sanitize.Terminal(wn, 0) + "\n")
	}
	for _, s := range r.Scenarios {
		explainScenario(&b, r, s)
	}
	fmt.Fprintf(&b, "\nTotal: %s (%s at each scenario's high risk) for %d of %d scenarios",
		money(r.Currency, r.Total.Cost), money(r.Currency, r.Total.CostHigh), r.Total.Planned, len(r.Scenarios))
	if len(r.Total.Unplanned) > 0 {
		fmt.Fprintf(&b, "; no plan for %s", sanitize.Terminal(strings.Join(r.Total.Unplanned, ", "), 0))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// explainScenario writes one scenario's --explain section: the model,
// then the planner's four steps, each a function below, in the order the
// planner takes them.
func explainScenario(b *strings.Builder, r *Result, s ScenarioResult) {
	fmt.Fprintf(b, "\n== Scenario %q · %s ==\n", sanitize.Terminal(s.Name, 0), s.Kind)
	if s.Notes != "" {
		fmt.Fprintf(b, "Notes: %s\n", sanitize.Terminal(s.Notes, 0))
	}
	explainModel(b, s)
	b.WriteString("Settings: " + settingsLine(s) + "\n")
	explainMemory(b, s)
	explainGPUs(b, s)
	explainHours(b, s)
	explainBudget(b, r.Currency, s)
}

// explainModel writes the model line: its name, where it came from, its
// parameters and the shape fields it has.
func explainModel(b *strings.Builder, s ScenarioResult) {
	m := s.Model
	fmt.Fprintf(b, "Model: %s (%s): N = %s parameters", sanitize.Terminal(m.Name, 0), sanitize.Terminal(s.ModelFrom, 0), num(m.Params))
	if m.ActiveParams > 0 {
		fmt.Fprintf(b, " (%s active)", num(m.ActiveParams))
	}
	var shape []string
	for _, f := range []struct {
		v    int
		name string
	}{{m.Layers, "layers"}, {m.Hidden, "hidden"}, {m.Heads, "heads"}, {m.KVHeads, "kv_heads"}, {m.HeadDim, "head_dim"},
		{m.Intermediate, "intermediate"}, {m.Experts, "experts"}} {
		if f.v > 0 {
			shape = append(shape, fmt.Sprintf("%s %d", f.name, f.v))
		}
	}
	if len(shape) > 0 {
		b.WriteString(", " + strings.Join(shape, ", "))
	}
	b.WriteString("\n")
}

// explainMemory writes step 1: each memory term and how it was computed.
func explainMemory(b *strings.Builder, s ScenarioResult) {
	b.WriteString("\nStep 1 · memory\n")
	tw := termcol.NewRightWriter(b)
	for _, t := range s.Memory.Terms {
		fmt.Fprintf(tw, "  %s\t%s GB\t\n", strings.ReplaceAll(t.Name, "_", " "), fixed(t.GB, 2))
	}
	_ = tw.Flush()
	b.WriteString("  where:\n")
	for _, t := range s.Memory.Terms {
		fmt.Fprintf(b, "    %s = %s\n", strings.ReplaceAll(t.Name, "_", " "), sanitize.Terminal(t.How, 0))
	}
}

// explainGPUs writes step 2: each card model, whether the work fits and why.
func explainGPUs(b *strings.Builder, s ScenarioResult) {
	fmt.Fprintf(b, "\nStep 2 · GPUs (%s)\n", s.ParallelismWhy)
	tw := termcol.NewWriter(b)
	for _, f := range s.GPUs {
		verdict := "ruled out"
		if f.Fits {
			verdict = fmt.Sprintf("fits on %d", f.MinGPUs)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.GPUModel, verdict, f.Why)
	}
	_ = tw.Flush()
}

// explainHours writes step 3: the work's size, then each fitting card's
// card-hours (or serving cards).
func explainHours(b *strings.Builder, s ScenarioResult) {
	b.WriteString("\nStep 3 · hours\n")
	explainWork(b, s)
	tw := termcol.NewWriter(b)
	for _, f := range s.GPUs {
		switch {
		case !f.Fits:
		case f.Serving != nil:
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.GPUModel, cardsText(f.Serving.Cards), f.Serving.How)
		case f.CardHoursHow != "":
			fmt.Fprintf(tw, "  %s\t%s card-hours\t= %s\n", f.GPUModel, fixed(f.CardHours, 2), f.CardHoursHow)
		}
	}
	_ = tw.Flush()
}

// explainWork writes the line saying how big the work is, by its kind.
func explainWork(b *strings.Builder, s ScenarioResult) {
	wk := s.Work
	switch wk.Kind {
	case "compute":
		fmt.Fprintf(b, "  tokens = %s = %s\n", sanitize.Terminal(wk.TokensHow, 0), num(wk.Tokens))
		fmt.Fprintf(b, "  FLOPs = %s = %s\n", wk.FLOPsHow, num(wk.FLOPs))
	case "hours":
		fmt.Fprintf(b, "  %s wall-clock hours per run, given; card-hours = hours × cards × runs\n", num(wk.Hours))
	case "gpu_hours":
		fmt.Fprintf(b, "  %s card-hours per run, given\n", num(wk.GPUHours))
	case "serving":
		fmt.Fprintf(b, "  %s requests/day × (%s input + %s output tokens) = %s input and %s output tokens a day, over %s serving hours a day\n",
			num(wk.RequestsPerDay), num(wk.InputTokensPerDay/wk.RequestsPerDay), num(wk.OutputTokensPerDay/wk.RequestsPerDay),
			num(wk.InputTokensPerDay), num(wk.OutputTokensPerDay), num(wk.ServingHoursPerDay))
	case "reservation":
		fmt.Fprintf(b, "  no work size given: %s reserved for %s days (%s card-hours)\n", cardsText(s.Inputs.GPUs), num(s.Inputs.SpanDays),
			num(float64(s.Inputs.GPUs)*s.Inputs.SpanDays*24))
	}
}

// explainBudget writes step 4: the risk range and what changes the cost,
// the priced options (the first explainOptions), the plan and warnings.
func explainBudget(b *strings.Builder, cur string, s ScenarioResult) {
	wk := s.Work
	fmt.Fprintf(b, "\nStep 4 · budget (risk %s–%s", num(s.Inputs.Risk), num(s.Inputs.RiskHigh))
	if wk.Kind == "compute" || wk.Kind == "hours" || wk.Kind == "gpu_hours" {
		fmt.Fprintf(b, ", concurrency buffer %s on hourly and spot", num(s.Inputs.Buffer))
	}
	if s.Inputs.DeadlineDays > 0 {
		fmt.Fprintf(b, ", deadline %s days", num(s.Inputs.DeadlineDays))
	}
	b.WriteString(")\n")
	if len(s.Options) == 0 {
		b.WriteString("  no priced option\n")
	}
	for i, o := range s.Options {
		if i == explainOptions {
			fmt.Fprintf(b, "  … %d more options in the JSON and the workbook\n", len(s.Options)-explainOptions)
			break
		}
		late := ""
		if !o.MeetsDeadline {
			late = " — too slow"
		}
		fmt.Fprintf(b, "  %s, %s h: %s%s\n", sanitize.Terminal(o.label(), 0), hoursText(o.WallHours), sanitize.Terminal(o.How, 0), late)
		fmt.Fprintf(b, "      price: %s\n", sanitize.Terminal(o.PriceSource, 0))
	}
	if p := s.Plan; p != nil {
		fmt.Fprintf(b, "  plan: %s — %s to %s\n", sanitize.Terminal(p.label(), 0), money(cur, p.CostLow), money(cur, p.CostHigh))
	}
	for _, wn := range s.Warnings {
		fmt.Fprintf(b, "  warning: %s\n", sanitize.Terminal(wn, 0))
	}
}

// settingsLine lists the scenario's settings, marking the defaulted ones.
func settingsLine(s ScenarioResult) string {
	in := s.Inputs
	def := map[string]bool{}
	for _, d := range in.Defaulted {
		def[d] = true
	}
	var parts []string
	add := func(field, text string) {
		if def[field] {
			text += " (default)"
		}
		parts = append(parts, text)
	}
	add("dtype", "dtype "+in.Dtype)
	if in.KVDtype != "" {
		parts = append(parts, "kv_dtype "+in.KVDtype)
	}
	if in.SeqLen > 0 {
		add("seq_len", "seq_len "+num(in.SeqLen))
	}
	add("batch", fmt.Sprintf("batch %d", in.Batch))
	if in.Checkpointing != nil {
		add("checkpointing", map[bool]string{true: "checkpointing on", false: "checkpointing off"}[*in.Checkpointing])
	}
	if in.LoRARank > 0 {
		add("lora_rank", fmt.Sprintf("LoRA rank %d", in.LoRARank))
		add("lora_targets", "targets "+in.LoRATargets)
	}
	if s.Work.Kind == "compute" {
		parts = append(parts, "MFU "+num(in.MFU))
	}
	if in.DeadlineDays > 0 {
		parts = append(parts, "deadline "+num(in.DeadlineDays)+" days")
	}
	if in.SpanDays > 0 {
		parts = append(parts, "span "+num(in.SpanDays)+" days")
	}
	if in.Interruptible {
		parts = append(parts, "interruptible")
	}
	var pins []string
	if in.GPUs > 0 {
		pins = append(pins, cardsText(in.GPUs))
	}
	if in.GPUModel != "" {
		pins = append(pins, in.GPUModel)
	}
	if in.Provider != "" {
		pins = append(pins, sanitize.Terminal(in.Provider, 40))
	}
	if in.Pricing != "" {
		pins = append(pins, in.Pricing)
	}
	if len(pins) > 0 {
		parts = append(parts, "pinned: "+strings.Join(pins, " "))
	}
	if in.MaxGPUs > 0 {
		parts = append(parts, fmt.Sprintf("max %d cards", in.MaxGPUs))
	}
	return strings.Join(parts, ", ")
}
