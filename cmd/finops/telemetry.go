package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/ingest"
	"github.com/finops-oss/finops/ingest/dcgm"
	"github.com/finops-oss/finops/telemetry"
)

// telemetrySources lists the file-based GPU telemetry of the config besides
// nvidia-smi logs: dcgm-exporter scrape files and NVML spool folders.
func telemetrySources(c *config.Config) []sourceSpec {
	var out []sourceSpec
	for _, s := range c.Telemetry.DCGMScrapes {
		out = append(out, sourceSpec{name: s.Path, kind: ingest.KindUtilization, format: dcgm.Format, host: s.Host,
			interval: s.Interval.Duration})
	}
	for _, s := range c.Telemetry.NVMLSpool {
		// The collector writes nvidia-smi CSV with UTC timestamps: finished
		// files end in .csv, the one being written in .csv.part.
		p, part := s.Path, ""
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			p, part = filepath.Join(p, "*.csv"), filepath.Join(p, "*.csv.part")
		}
		out = append(out, sourceSpec{name: p, kind: ingest.KindUtilization, format: ingest.FormatNvidiaSMI,
			location: time.UTC, inProgress: part})
	}
	return out
}

// parseInput parses one opened file of a source (telemetry.ParseFile): a
// scrape with the scrape parser, anything else with ingest.Parse.
func parseInput(ctx context.Context, r io.Reader, c *config.Config, s sourceSpec, path string, sink ingest.Sink) (*ingest.Summary, error) {
	return telemetry.ParseFile(ctx, r, parseOptions(c, s, path), telemetry.Scrape{Interval: s.interval, At: s.scrapeAt, Notes: s.notes}, sink)
}

// setScrapeTime gives every command-line source the time of ingest --at
// (RFC 3339; "" for none) and the writer of the note that a scrape's time
// is its file's modification time.
func setScrapeTime(specs []sourceSpec, at string, notes io.Writer) error {
	var t time.Time
	if at != "" {
		var err error
		if t, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return usagef("--at %q: want an RFC 3339 time like 2026-11-02T08:00:00Z (or with an offset, +08:00)", at)
		}
	}
	for i := range specs {
		specs[i].scrapeAt, specs[i].notes = t, notes
	}
	return nil
}
