package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/plan"
	"github.com/finops-oss/finops/internal/report"
)

// planFormatNames returns the outputs of finops plan, in the order they are made.
func planFormatNames() []string { return []string{"table", "xlsx", "json"} }

func (m *Main) planCommand() *cobra.Command {
	var out, formats string
	var explain bool
	var only []string
	cmd := &cobra.Command{
		Use:   "plan SCENARIOS.yaml",
		Short: "Budget planned GPU work: memory, GPU choice, hours and a budget range",
		Long: "plan reads a scenario file (the work planned for a period: inference, LoRA, QLoRA, full fine-tunes,\n" +
			"pretraining, data processing) and, per scenario, estimates GPU memory term by term, lists the GPU models\n" +
			"that hold it, estimates hours, prices hourly, monthly and spot rentals with a risk range, and picks the\n" +
			"cheapest plan that meets the deadline. Prices come from the scenario file and finops.yaml's prices.\n" +
			"It prints a table and writes finops-plan-<period>.{xlsx,json} into the out folder; --explain prints every\n" +
			"formula with the scenario's numbers instead. The method: docs/PLANNER.md; a commented example:\n" +
			"scenarios.example.yaml.",
		Example: "  finops plan scenarios.yaml\n" +
			"  finops plan scenarios.yaml --format json --out plans/\n" +
			"  finops plan scenarios.yaml --explain --scenario support-bot-lora",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := planFormatNames()
			if explain {
				fs = nil // the explanation replaces the table; files only when asked for
			}
			if cmd.Flags().Changed("format") {
				var err error
				if fs, err = planFormats(formats); err != nil {
					return err
				}
			}
			c, _, err := m.loadConfig()
			if err != nil {
				return err
			}
			f, err := plan.Load(args[0])
			if err != nil {
				return usageError{err}
			}
			opt, err := planOptions(c, only)
			if err != nil {
				return usageError{err}
			}
			res, err := plan.Plan(f, opt)
			if err != nil {
				return usageError{err}
			}
			if explain {
				if err := plan.WriteExplain(m.Stdout, res); err != nil {
					return err
				}
			}
			return m.writePlan(res, args[0], outDir(c, out), fs)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&out, "out", "", "output folder for xlsx and json (default from config, else ./out)")
	fl.StringVar(&formats, "format", "", "comma-separated outputs: table,xlsx,json (default all; none with --explain)")
	fl.BoolVar(&explain, "explain", false, "print every formula with the scenario's numbers substituted")
	fl.StringSliceVar(&only, "scenario", nil, "plan only this scenario (repeatable)")
	return cmd
}

// planFormats parses --format.
func planFormats(flag string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(flag, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		if !slices.Contains(planFormatNames(), f) {
			return nil, usagef("--format %q: want some of %s", f, strings.Join(planFormatNames(), ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, usagef("--format: want some of %s", strings.Join(planFormatNames(), ", "))
	}
	return out, nil
}

// writePlan prints the table and writes the files asked for
// (plan.WriteFiles), each complete or not at all.
func (m *Main) writePlan(res *plan.Result, file, dir string, formats []string) error {
	if slices.Contains(formats, "table") {
		if err := plan.WriteTable(m.Stdout, res); err != nil {
			return err
		}
	}
	wrote, err := plan.WriteFiles(res, file, formats, func(name string, data []byte) error {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("plan: %w", err)
		}
		return report.WriteFileAtomic(filepath.Join(dir, name), func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		})
	})
	if err != nil || m.quiet {
		return err // the table, asked for, is the result; the "wrote" lines are not
	}
	for _, name := range wrote {
		fmt.Fprintf(m.Stdout, "wrote %s\n", filepath.Join(dir, name))
	}
	return nil
}
