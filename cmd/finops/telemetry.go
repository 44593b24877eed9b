package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
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

// isScrape reports whether the start of a file is Prometheus text exposition
// or OpenMetrics (a dcgm-exporter or nvidia_gpu_exporter scrape, a promtool
// backfill file) rather than CSV.
func isScrape(head []byte) bool {
	head = bytes.TrimLeft(head, "\ufeff \t\r\n")
	for _, p := range []string{"# HELP ", "# TYPE ", "# UNIT ", "DCGM_FI_", "nvidia_smi_"} {
		if bytes.HasPrefix(head, []byte(p)) {
			return true
		}
	}
	return false
}

// parseInput parses one opened file: a scrape (by --format dcgm or by its
// first bytes) with the scrape parser, anything else (Parquet too) with
// ingest.Parse. Samples of a scrape that carry no timestamp get the time
// scrapeTime finds.
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
	var fromModTime bool
	opt.ScrapeTime, fromModTime = scrapeTime(s, path)
	if fromModTime && s.notes != nil {
		opt.UsedScrapeTime = func() {
			fmt.Fprintf(s.notes, "%s: no sample timestamps, no --at and no time in the file name: read as scraped at %s, "+
				"the file's modification time\n", path, opt.ScrapeTime.UTC().Format(time.RFC3339))
		}
	}
	return dcgm.Parse(ctx, br, opt, sink)
}

// scrapeTime is when a scrape without sample timestamps was taken: ingest
// --at, else a time in the file's name (…-2026-11-02T08:00:00Z.prom,
// …-20261102T080000Z.prom, UTC or with an offset), else the file's
// modification time — which moves when the file is copied, so fromModTime
// says that the caller should tell.
func scrapeTime(s sourceSpec, path string) (at time.Time, fromModTime bool) {
	if !s.scrapeAt.IsZero() {
		return s.scrapeAt, false
	}
	if t, ok := nameTime(filepath.Base(path)); ok {
		return t, false
	}
	if fi, err := os.Stat(path); err == nil {
		return fi.ModTime(), true
	}
	return time.Time{}, false
}

var (
	// 2026-11-02T08:00:00Z, 2026-11-02T08:00:00.5+08:00; and with the
	// colons a file name may not hold written as dashes (2026-11-02T08-00-00Z).
	nameRFC3339RE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})`)
	// 20261102T080000Z, as date -u +%Y%m%dT%H%M%SZ writes it.
	nameCompactRE = regexp.MustCompile(`\d{8}T\d{6}Z`)
)

// nameTime reads the one time stamp in a file name. A name with two
// different stamps says nothing for sure: ok is false.
func nameTime(name string) (time.Time, bool) {
	var found []time.Time
	for _, m := range nameRFC3339RE.FindAllString(name, -1) {
		// Put the colons back: 2026-11-02T08-00-00Z → 2026-11-02T08:00:00Z.
		b := []byte(m)
		b[13], b[16] = ':', ':'
		v := string(b)
		if n := len(v); v[n-1] != 'Z' && v[n-3] != ':' {
			v = v[:n-2] + ":" + v[n-2:] // +0800 → +08:00
		}
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			found = append(found, t)
		}
	}
	for _, m := range nameCompactRE.FindAllString(name, -1) {
		if t, err := time.Parse("20060102T150405Z", m); err == nil {
			found = append(found, t)
		}
	}
	if len(found) == 0 {
		return time.Time{}, false
	}
	for _, t := range found[1:] {
		if !t.Equal(found[0]) {
			return time.Time{}, false
		}
	}
	return found[0].UTC(), true
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
