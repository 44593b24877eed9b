package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/demo"
	"github.com/finops-oss/finops/internal/report"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
)

func (m *Main) demoCommand() *cobra.Command {
	var out string
	var seed uint64
	cmd := &cobra.Command{
		Use:   "demo [--out DIR]",
		Short: "Generate a realistic small GPU fleet and run the whole pipeline on it",
		Long: "demo writes four weeks of billing exports (an AutoDL CSV and an AWS FOCUS export), nvidia-smi logs\n" +
			"and a tasks file for a small fleet into DIR/demo-data, ingests them through the same code as real\n" +
			"data into a fresh database, and writes the reports for the last complete ISO week into DIR.",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			data := filepath.Join(out, "demo-data")
			fleet, err := demo.Fresh(data, m.Now(), seed)
			if err != nil {
				return err
			}
			c := fleet.Config // its database, fresh: DIR/demo-data/finops.db
			st, err := store.Open(ctx, c.Database)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := reportjob.SyncTeams(ctx, st, c); err != nil {
				return err
			}
			specs, err := source.FromConfig(c)
			if err != nil {
				return err
			}
			fmt.Fprintf(m.Stdout, "demo fleet for %s written to %s (config: %s)\n", fleet.Week.Label, data,
				filepath.Join(data, "finops.yaml"))
			results, err := m.ingestQuietly(ctx, st, c, specs)
			if err != nil {
				return err
			}
			if err := m.compactTelemetry(ctx, st, c); err != nil {
				return err
			}
			win := analysis.Window{Start: fleet.Week.Start, End: fleet.Week.End, Label: fleet.Week.Label}
			res, err := m.writeReports(ctx, st, c, win, results, out, report.DefaultFormats())
			if res != nil {
				// What the team leads would receive, to look at without a mail client.
				if perr := m.writeEmailPreview(out, res); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "out", "folder for the reports; the generated data goes to DIR/demo-data")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed: the same seed gives the same fleet")
	return cmd
}

// writeEmailPreview writes the all-teams email the demo's report would
// send (report.WriteEmailPreview) and names the files.
func (m *Main) writeEmailPreview(dir string, res *analysis.Result) error {
	paths, err := report.WriteEmailPreview(dir, res)
	for _, p := range paths {
		fmt.Fprintf(m.Stdout, "wrote %s\n", p)
	}
	return err
}
