package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/analysisconf"
	"github.com/finops-oss/finops/internal/report"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/rollup"
)

// rollupCommand is `finops rollup`: the shards' JSON summaries combined
// into the organisation's reports (rollup package, docs/ROLLUP.md).
func (m *Main) rollupCommand() *cobra.Command {
	var names, rates []string
	var out, formats string
	cmd := &cobra.Command{
		Use:   "rollup [--name N ...] [--rate A/B=x] [--out DIR] [--format xlsx,html,json] SHARD.json...",
		Short: "Combine several finops' JSON summaries (one per cluster or business unit) into one report",
		Example: "  finops rollup --out org/ eu/out/finops-2026-W48.json cn/out/finops-2026-W48.json --name eu --name cn\n" +
			"  finops rollup --rate USD/CNY=7.1 --out org/ eu.json cn.json",
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, paths []string) error {
			c, _, err := m.loadConfig()
			if err != nil {
				return err
			}
			p, err := analysisconf.Params(c)
			if err != nil {
				return usageError{err}
			}
			opt, err := rollup.NewOptions(p.Currency, p.FX, rates)
			if err != nil {
				return usageError{err}
			}
			fs := report.DefaultFormats()
			if formats != "" {
				fs = strings.Split(formats, ",")
				for i, f := range fs {
					if fs[i] = strings.TrimSpace(f); !slices.Contains(report.DefaultFormats(), fs[i]) {
						return usagef("--format %q: want some of %s", f, strings.Join(report.DefaultFormats(), ", "))
					}
				}
			}
			res := &rollupResult{}
			shards, err := rollup.Load(cmd.Context(), paths, names)
			if err == nil {
				res, err = m.writeRollup(cmd, shards, opt, outDir(c, out), fs)
			}
			if rollup.IsRefusal(err) {
				err = usageError{err}
			}
			if m.jsonResults() {
				err = errors.Join(err, emitJSON(m.Stdout, res.report(err)))
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&names, "name", nil, "the shards' names, once per file in the order of the files (default: each file's name)")
	f.StringArrayVar(&rates, "rate", nil, "an exchange rate, FROM/TO=VALUE (USD/CNY=7.1: one USD is 7.1 CNY), for shards in another currency")
	f.StringVar(&out, "out", "", "output folder (default from config, else ./out); not the shards' own")
	f.StringVar(&formats, "format", "", "comma-separated formats: xlsx,html,json (default all three)")
	return cmd
}

type rollupResult struct {
	period string
	files  []string
}

func (r *rollupResult) report(err error) reportResult {
	res := reportResult{Command: "rollup", Period: r.period, Status: "ok", ExitCode: exitCode(err), Files: append([]string{}, r.files...)}
	if err != nil {
		res.Status, res.Error = "failed", redact(err.Error())
		if res.ExitCode == ExitPartial {
			res.Status = "partial"
		}
	}
	return res
}

// writeRollup combines the shards, writes the reports and prints the
// summary; an incomplete shard makes it partial (exit 3).
func (m *Main) writeRollup(cmd *cobra.Command, shards []rollup.Shard, opt rollup.Options, dir string, formats []string) (*rollupResult, error) {
	r := &rollupResult{}
	res, err := rollup.Combine(cmd.Context(), shards, opt)
	if err != nil {
		return r, err
	}
	r.period = res.Period.Label
	meta := report.Meta{GeneratedAt: m.Now(), Version: m.Version}
	if err := rollup.CheckOut(dir, shards, res, formats); err != nil {
		return r, err
	}
	paths, err := report.WriteAllContext(cmd.Context(), dir, res, formats, meta)
	if err != nil {
		return r, err
	}
	r.files = paths
	if !m.jsonResults() && !m.quiet {
		if err := report.WriteSummary(m.Stdout, res, meta, false); err != nil {
			return r, err
		}
		for _, p := range paths {
			fmt.Fprintf(m.Stdout, "wrote %s\n", p)
		}
	}
	return r, reportjob.Incomplete(nil, res)
}
