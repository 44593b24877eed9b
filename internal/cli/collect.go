package cli

import (
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest/nvml"
)

// collectCommand groups collectors that run on GPU hosts.
func (m *Main) collectCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "collect",
		Short: "Collect GPU telemetry on a GPU host (for hosts without Prometheus)",
	}
	cmd.AddCommand(m.collectNVMLCommand())
	return cmd
}

func (m *Main) collectNVMLCommand() *cobra.Command {
	var opt nvml.Options
	var interval, rotate, keep string
	cmd := &cobra.Command{
		Use:   "nvml --out DIR [--interval 30s]",
		Short: "Sample every GPU through NVML into rotating CSV files that finops ingest reads",
		Long: "Samples utilization, memory and power of every GPU (and MIG instance) every interval and\n" +
			"appends them to DIR/nvml-<host>-<UTC hour>.csv.part, renamed to .csv when the hour is over.\n" +
			"The files are nvidia-smi CSV with UTC timestamps: point utilization.nvml_spool at DIR.\n" +
			"It survives a driver restart (it re-initialises NVML and carries on) and stops cleanly on\n" +
			"SIGTERM or SIGINT. It needs the NVIDIA driver (libnvidia-ml.so.1) and a finops built with\n" +
			"-tags nvml and cgo, which the default (pure Go) build is not:\n  " + nvml.BuildHint,
		Example: "  finops collect nvml --out /var/lib/finops/nvml --interval 30s",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opt.Dir == "" {
				return usagef("--out DIR is required")
			}
			for _, d := range []struct {
				flag, v string
				dst     *time.Duration
			}{{"interval", interval, &opt.Interval}, {"rotate", rotate, &opt.Rotate}, {"keep", keep, &opt.Keep}} {
				v, err := config.ParseDuration(d.v)
				if err != nil {
					return usagef("--%s: %v", d.flag, err)
				}
				*d.dst = v
			}
			if opt.Interval < time.Second {
				return usagef("--interval %s: want at least 1s", interval)
			}
			opt.Log = m.logger
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return nvml.Collect(ctx, opt)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opt.Dir, "out", "", "spool folder (created if missing)")
	f.StringVar(&interval, "interval", "30s", "sampling interval")
	f.StringVar(&rotate, "rotate", "1h", "start a new file this often")
	f.StringVar(&keep, "keep", "35d", "delete finished files older than this (0 keeps all)")
	f.StringVar(&opt.Host, "host", "", "host name written in each row (default: the machine's hostname)")
	return cmd
}
