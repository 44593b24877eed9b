package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/ingest"
	"github.com/finops-oss/finops/ingest/dcgm"
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

// isScrape reports whether the start of a file is Prometheus text
// exposition (a dcgm-exporter scrape) rather than CSV.
func isScrape(head []byte) bool {
	head = bytes.TrimLeft(head, "\ufeff \t\r\n")
	return bytes.HasPrefix(head, []byte("# HELP ")) || bytes.HasPrefix(head, []byte("# TYPE ")) ||
		bytes.HasPrefix(head, []byte("DCGM_FI_"))
}

// parseInput parses one opened file: a dcgm-exporter scrape (by --format dcgm
// or by its first bytes) with the scrape parser, anything else (Parquet too)
// with ingest.Parse. A scrape's samples carry no time: the file's modification
// time is when it was scraped.
func parseInput(ctx context.Context, r io.Reader, c *config.Config, s sourceSpec, path string, sink ingest.Sink) (*ingest.Summary, error) {
	if ingest.IsParquet(r) { // read by row group: it must reach Parse unbuffered
		return ingest.Parse(ctx, r, parseOptions(c, s, path), sink)
	}
	br := bufio.NewReader(r)
	head, _ := br.Peek(512)
	if s.format != dcgm.Format && (s.format != "" || !isScrape(head)) {
		return ingest.Parse(ctx, br, parseOptions(c, s, path), sink)
	}
	opt := dcgm.Options{Name: path, Host: s.host, Interval: s.interval, Catalog: c.Catalog()}
	if opt.Interval <= 0 {
		opt.Interval = 30 * time.Second // dcgm-exporter's default collect interval
	}
	if fi, err := os.Stat(path); err == nil {
		opt.ScrapeTime = fi.ModTime()
	}
	return dcgm.Parse(ctx, br, opt, sink)
}
