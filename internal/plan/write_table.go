package plan

import (
	"fmt"
	"io"
	"strings"

	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/termcol"
)

// WriteTable writes the plan for the terminal: one row per scenario with its
// memory, the GPU models that hold it, the plan and its budget range, then
// the total, how each budget was got, and the warnings.
func WriteTable(w io.Writer, r *Result) error {
	if r == nil {
		return fmt.Errorf("plan: nil result")
	}
	var b strings.Builder
	b.WriteString(title(r) + "\n\n")
	tw := termcol.NewWriter(&b)
	riskHead := fmt.Sprintf("BUDGET (×%s)", num(r.Assumptions.Risk))
	highHead := fmt.Sprintf("HIGH (×%s)", num(r.Assumptions.RiskHigh))
	fmt.Fprintf(tw, "SCENARIO\tKIND\tMEMORY\tFITS (cards)\tPLAN\tDAYS\t%s\t%s\n", riskHead, highHead)
	for _, s := range r.Scenarios {
		plan, days, low, high := "no plan", "—", "—", "—"
		if p := s.Plan; p != nil {
			plan = sanitize.Terminal(p.label(), 48)
			if !p.MeetsDeadline {
				plan += " (late)"
			}
			days = fixed(p.WallHours/24, 1)
			if p.Mode == ModeMonthly {
				days = fixed(p.Days, 1) // what is rented, not how long the job runs
			}
			low, high = money(r.Currency, p.CostLow), money(r.Currency, p.CostHigh)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", sanitize.Terminal(s.Name, 32), s.Kind, fixed(s.Memory.TotalGB, 1)+" GB",
			fitsText(s.GPUs, 3), plan, days, low, high)
	}
	fmt.Fprintf(tw, "TOTAL\t\t\t\t%d of %d planned\t\t%s\t%s\n", r.Total.Planned, len(r.Scenarios),
		money(r.Currency, r.Total.Cost), money(r.Currency, r.Total.CostHigh))
	if err := tw.Flush(); err != nil {
		return err
	}

	b.WriteString("\nHow we got this\n")
	for _, s := range r.Scenarios {
		fmt.Fprintf(&b, "  %s: memory %s", sanitize.Terminal(s.Name, 32), memoryLine(s.Memory, r.Assumptions.overheadFor(s.Kind)))
		if s.Plan != nil {
			fmt.Fprintf(&b, "; %s\n", sanitize.Terminal(s.Plan.How, 0))
			if alt := modesLine(s, r.Currency); alt != "" {
				b.WriteString("    " + alt + "\n")
			}
		} else {
			b.WriteString("\n")
		}
	}
	var warns []string
	warns = append(warns, r.Warnings...)
	for _, s := range r.Scenarios {
		for _, wn := range s.Warnings {
			warns = append(warns, fmt.Sprintf("%s: %s", s.Name, wn))
		}
	}
	if len(warns) > 0 {
		b.WriteString("\nWarnings\n")
		for _, wn := range warns {
			b.WriteString("  " + sanitize.Terminal(wn, 0) + "\n")
		}
	}
	b.WriteString("\nRun with --explain for every formula with its numbers.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// title is the plan's one-line heading.
func title(r *Result) string {
	t := "finops plan"
	if r.Period != "" {
		t += " · " + sanitize.Terminal(r.Period, 20)
	}
	if r.File != "" {
		t += " · " + sanitize.Terminal(r.File, 60)
	}
	if r.Currency != "" {
		t += " · " + r.Currency
	}
	return t + fmt.Sprintf(" · risk %s–%s", num(r.Assumptions.Risk), num(r.Assumptions.RiskHigh))
}

// fitsText lists the GPU models that hold the scenario, best ranked first,
// with their card counts, and how many more.
func fitsText(fits []GPUFit, n int) string {
	var names []string
	more := 0
	for _, f := range fits {
		if !f.Fits {
			continue
		}
		if len(names) == n {
			more++
			continue
		}
		names = append(names, fmt.Sprintf("%s (%d)", f.GPUModel, f.MinGPUs))
	}
	if len(names) == 0 {
		return "none"
	}
	s := strings.Join(names, ", ")
	if more > 0 {
		s += fmt.Sprintf(" +%d", more)
	}
	return s
}

// memoryLine is the memory estimate in one line: its non-zero terms.
func memoryLine(m Memory, overhead float64) string {
	if m.Given {
		return fixed(m.TotalGB, 2) + " GB (given)"
	}
	var parts []string
	for _, t := range m.Terms {
		switch t.Name {
		case "subtotal", "total", "overhead", "cuda_context":
			continue
		}
		if t.GB > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", strings.ReplaceAll(t.Name, "_", " "), fixed(t.GB, 2)))
		}
	}
	return fmt.Sprintf("(%s) × %s + CUDA %s = %s GB", strings.Join(parts, " + "), num(overhead),
		fixed(m.CUDAContextGB, 2), fixed(m.TotalGB, 2))
}

// modesLine compares the rental modes for the plan's GPU model and provider:
// "2 × A100-80GB at AutoDL: hourly ¥…, monthly ¥…, spot —".
func modesLine(s ScenarioResult, cur string) string {
	p := s.Plan
	var parts []string
	for _, mode := range []string{ModeHourly, ModeMonthly, ModeSpot} {
		text := "—"
		for _, o := range s.Options {
			if o.GPUModel == p.GPUModel && o.Provider == p.Provider && o.Mode == mode {
				text = fmt.Sprintf("%s (%s)", money(cur, o.CostLow), cardsText(o.GPUs))
				if !o.MeetsDeadline {
					text += " too slow"
				}
				break
			}
		}
		parts = append(parts, mode+" "+text)
	}
	return fmt.Sprintf("%s at %s: %s", p.GPUModel, sanitize.Terminal(p.Provider, 32), strings.Join(parts, " · "))
}
