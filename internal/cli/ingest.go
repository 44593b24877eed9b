package cli

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/importer"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/reportjob"
	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
)

func (m *Main) ingestCommand() *cobra.Command {
	var format, host, tz, currency, fieldList, at string
	var check, replace bool
	var maxBad int
	cmd := &cobra.Command{
		Use:   "ingest [flags] [PATH...]",
		Short: "Import billing exports, GPU telemetry or task files into the database",
		Long: "Import files, folders or globs (.gz too). The format is detected from each file's header.\n" +
			"Importing the same file twice changes nothing. A bad file changes nothing and names file:line.\n" +
			"A folder or manifest of a cloud export delivery (AWS CUR *-Manifest.json, Azure manifest.json) imports\n" +
			"only each billing period's latest delivery, replacing the period's earlier one.\n" +
			"s3://bucket/prefix (or a glob on keys, s3://bucket/cur/*/*.csv.gz) downloads the objects to a temporary\n" +
			"folder first, with the config's publish.s3 endpoint, region, path style and credentials.\n" +
			"az://container/prefix, https://<account>.blob.core.windows.net/<container>/<prefix> and gs://bucket/prefix\n" +
			"do the same with the config's sources.azure and sources.gcs.\n" +
			"- (or /dev/stdin) reads standard input, recorded as stdin.\n" +
			"With no PATH it imports the config's billing, utilization and tasks sources, as run does\n" +
			"(Prometheus servers: finops ingest prometheus).",
		Example: "  finops ingest\n  finops ingest exports/focus-2026-11.csv\n  finops ingest s3://finops-billing/cur/gpu-report\n  finops ingest gs://acme-billing/focus/*.parquet\n  finops ingest --host gpu-a --tz Asia/Shanghai logs/gpu-a/*.csv\n  finops ingest --check bill.csv\n  zcat bill.csv.gz | finops ingest -",
		Args:    usageArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format == "json" {
				// Not a file format: the results on stdout as JSON (--log-format json).
				format, m.logFormat = "", "json"
				if err := m.setupLogging(); err != nil {
					return err
				}
			}
			if format != "" && !slices.Contains(ingestFormats(), format) {
				return usagef("--format %q: want one of %s, or json for results as JSON", format, strings.Join(ingestFormats(), ", "))
			}
			fields, err := smiFieldsFlag(cmd, format, fieldList)
			if err != nil {
				return err
			}
			c, loc, err := m.loadConfig()
			if err != nil {
				return err
			}
			if tz != "" {
				if loc, err = time.LoadLocation(tz); err != nil {
					return usagef("--tz %q: %v", tz, err)
				}
			}
			mappings, err := source.ColumnMappings(c)
			if err != nil {
				return usageError{err}
			}
			if cmd.Flags().Changed("max-bad-rows") {
				c.MaxBadRows = maxBad
			}
			var specs []source.Spec
			if len(args) == 0 {
				if specs, err = configuredIngest(c, cmd, replace); err != nil {
					return err
				}
			}
			base := source.Spec{Format: format, Host: host, Location: loc, Mappings: mappings,
				Currency: strings.ToUpper(strings.TrimSpace(currency)), SMIFields: fields, Replace: replace}
			more, err := argSpecs(c, args, base)
			if err != nil {
				return err
			}
			specs = append(specs, more...)
			if replace && check {
				return usagef("--replace imports; --check writes nothing: use one of them")
			}
			if err := setScrapeTime(specs, at, m.Stderr); err != nil {
				return err
			}
			if check {
				return importer.Check(cmd.Context(), m.importOptions(c, nil, m.Stdout), specs)
			}
			st, err := m.openStore(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer st.Close()
			_, err = m.ingestSources(cmd.Context(), st, c, specs, m.Stdout)
			if cmd.Context().Err() == nil {
				err = errors.Join(err, m.compactTelemetry(cmd.Context(), st, c))
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "", "force a format: focus, rental, nvidia-smi, tasks, aws-cur, aws-cur2, azure, gcp, runpod, vast, dcgm (a dcgm-exporter scrape);\n"+
		"or json: one JSON object per file on stdout, as --log-format json")
	f.StringVar(&fieldList, "fields", "", "the --query-gpu list of nvidia-smi logs written with noheader, in nvidia-smi's spelling (timestamp,name,uuid,utilization.gpu,…); without it the fields are told from the values")
	f.StringVar(&host, "host", "", "GPU host of telemetry files that do not name it (nvidia-smi logs)")
	f.StringVar(&at, "at", "", "when scrapes without sample timestamps were taken (RFC 3339, 2026-11-02T08:00:00Z); default: a time in the file name, else its modification time")
	f.StringVar(&tz, "tz", "", "time zone of local timestamps (default: the config's)")
	f.StringVar(&currency, "currency", "", "currency (USD, CNY, …) of billing lines whose file leaves it blank; without it such a line is a bad row")
	f.BoolVar(&check, "check", false, "parse and validate only; write nothing")
	f.BoolVar(&replace, "replace", false, "import the files again on purpose (after a mapping change, or to bring back a delivery or snapshot that a later one replaced):\n"+
		"each replaces its own earlier import, and its lines win where they overlap another file's; a path of a configured billing source is read with that source's mapping")
	f.IntVar(&maxBad, "max-bad-rows", 0, "bad rows a file may have before it is refused (they are counted and reported)")
	cmd.AddCommand(m.ingestPrometheusCommand())
	return cmd
}

// smiFieldsFlag reads --fields, the columns of headerless nvidia-smi logs;
// nil when not given.
func smiFieldsFlag(cmd *cobra.Command, format, fieldList string) ([]string, error) {
	if !cmd.Flags().Changed("fields") {
		return nil, nil
	}
	if format != "" && format != ingest.FormatNvidiaSMI {
		return nil, usagef("--fields names the columns of nvidia-smi logs without a header; it does not go with --format %s", format)
	}
	fields, err := ingest.ParseSMIFields(fieldList)
	if err != nil {
		return nil, usagef("--fields: %v", err)
	}
	return fields, nil
}

// argSpecs are the sources the command line names, each read with the
// flags' settings (base); standard input can be named once.
func argSpecs(c *config.Config, args []string, base source.Spec) ([]source.Spec, error) {
	var specs []source.Spec
	stdin := 0
	for _, a := range args {
		if source.IsStdin(a) {
			if stdin++; stdin > 1 {
				return nil, usagef("standard input (- or /dev/stdin) is named twice; it can be read once")
			}
		}
		spec := base
		spec.Name = a
		if base.Replace {
			// A file of a configured source is read again as the
			// source reads it: its mapping, format and currency.
			var err error
			if spec, err = source.Again(c, spec); err != nil {
				return nil, err
			}
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

// ingestFormats are the values of ingest --format: the parsers' formats and
// dcgm-exporter scrapes, which telemetry reads (importer.ParseInput).
func ingestFormats() []string { return append(ingest.Formats(), dcgm.Format) }

// importOptions wires package importer to this command line: perFile gets
// a line (or JSON object) per file and every problem.
func (m *Main) importOptions(c *config.Config, st *store.Store, perFile io.Writer) importer.Options {
	return importer.Options{Config: c, Store: st, Sources: source.Planner{Config: c, Getenv: m.Getenv, Stdin: m.Stdin, Verbose: m.verbose},
		Now: m.Now, Getenv: m.Getenv, Out: perFile, Stderr: m.Stderr, JSON: m.jsonResults(), Quiet: m.quiet,
		Bars: m.bars().Bars, CompactBefore: m.compactBefore(c)}
}

// ingestSources imports every file of every source (importer.Run). perFile
// receives one line per file and every problem; the scheduled job passes
// io.Discard and reports the sources' errors itself.
func (m *Main) ingestSources(ctx context.Context, st *store.Store, c *config.Config, specs []source.Spec, perFile io.Writer) ([]reportjob.Source, error) {
	rs, err := importer.Run(ctx, m.importOptions(c, st, perFile), specs)
	out := make([]reportjob.Source, len(rs))
	for i, r := range rs {
		out[i] = reportjob.Source{Name: r.Spec.Name, Kind: r.Spec.Kind, Format: r.Spec.Format, Host: r.Spec.Host,
			Files: r.Files, Failed: r.Failed, Err: r.Err}
	}
	return out, err
}

// setScrapeTime gives every command-line source the time of ingest --at
// (RFC 3339; "" for none) and the writer of the note that a scrape's time
// is its file's modification time.
func setScrapeTime(specs []source.Spec, at string, notes io.Writer) error {
	var t time.Time
	if at != "" {
		var err error
		if t, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return usagef("--at %q: want an RFC 3339 time like 2026-11-02T08:00:00Z (or with an offset, +08:00)", at)
		}
	}
	for i := range specs {
		specs[i].ScrapeAt, specs[i].Notes = t, notes
	}
	return nil
}
