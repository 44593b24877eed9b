package cli

import (
	"cmp"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/doctor"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/source"
)

func (m *Main) doctorCommand() *cobra.Command {
	var sendTo string
	cmd := &cobra.Command{
		Use:   "doctor [--send-test ADDRESS]",
		Short: "Check the config, the database, every source, Prometheus, S3, SMTP and the chat channels",
		Long: "doctor checks what a run needs, one line per check (OK, FAIL or SKIP, and what to do):\n" +
			"the config; the database (opens read-only, PRAGMA quick_check, schema version); each configured\n" +
			"source (its files are found and readable, the format of the first one is detected; nothing is\n" +
			"imported); each Prometheus server (one query over the last five minutes); S3 (a probe object\n" +
			"put, read back and deleted under the prefix); SMTP (connect, STARTTLS, AUTH; --send-test sends\n" +
			"one email); each chat channel of watch.channels (its URL and secret read and valid, its host\n" +
			"reached by a TCP connection and, for https, a TLS handshake: no request is made, nothing is posted).\n" +
			"It exits 0 when nothing failed, 2 when the config cannot be loaded, else 1.",
		Example: "  finops doctor\n  finops doctor --send-test me@example.com",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return m.doctor(cmd.Context(), sendTo)
		},
	}
	cmd.Flags().StringVar(&sendTo, "send-test", "", "also send one test email to this address")
	return cmd
}

// printFinding prints one check's line; with --quiet only the failures.
func (m *Main) printFinding(f doctor.Finding) {
	if m.quiet && f.Verdict != doctor.Fail {
		return
	}
	fmt.Fprintf(m.Stdout, "%-4s  %-12s  %s\n", f.Verdict, f.Check, sanitize.Text(f.Detail))
}

// doctor loads the config (a usage error, exit 2, when it cannot) and runs
// the checks of package doctor, printing each as it comes.
func (m *Main) doctor(ctx context.Context, sendTo string) error {
	name := cmp.Or(m.configPath, m.Getenv("FINOPS_CONFIG"), "finops.yaml")
	c, _, err := m.loadConfig()
	if err == nil {
		var specs []source.Spec
		if specs, err = source.FromConfig(c); err == nil {
			m.printFinding(doctor.NewFinding(doctor.OK, "config", fmt.Sprintf("%s: %d sources, %d Prometheus servers", name, len(specs), len(c.Telemetry.Prometheus))))
			fs := doctor.Run(ctx, doctor.Options{Config: c, Specs: specs, Sources: source.Planner{Config: c, Getenv: m.Getenv, Stdin: m.Stdin},
				Database: m.databasePath(c), SendTo: sendTo, Now: m.Now, Getenv: m.Getenv}, m.printFinding)
			if n := doctor.Failed(fs); n > 0 {
				return fmt.Errorf("doctor: %d of %d checks failed", n, len(fs)+1)
			}
			return nil
		}
	}
	m.printFinding(doctor.NewFinding(doctor.Fail, "config", err.Error()))
	return err // a usage error: exit 2
}
