package telemetry

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

	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
)

// Scrape is what a scrape file (dcgm-exporter, nvidia_gpu_exporter, a
// promtool backfill file) does not say itself.
type Scrape struct {
	// Interval is how often the exporter collects (0: dcgm-exporter's
	// default, 30 s).
	Interval time.Duration
	// At is when scrapes without sample timestamps were taken (ingest
	// --at); zero: the time in the file's name, else its modification time.
	At time.Time
	// Notes, when set, gets the line saying that a scrape's time is its
	// file's modification time.
	Notes io.Writer
}

// ParseFile parses one opened file: a scrape (opt.Format dcgm.Format, or
// told by its first bytes when opt.Format is empty) with the scrape parser,
// anything else (Parquet too) with ingest.Parse. Samples of a scrape that
// carry no timestamp get the time ScrapeTime finds.
func ParseFile(ctx context.Context, r io.Reader, opt ingest.Options, sc Scrape, sink ingest.Sink) (*ingest.Summary, error) {
	if ingest.IsParquet(r) { // read by row group: it must reach Parse unbuffered
		return ingest.Parse(ctx, r, opt, sink)
	}
	br := bufio.NewReader(r)
	head, _ := br.Peek(512)
	if opt.Format != dcgm.Format && (opt.Format != "" || !IsScrape(head)) {
		return ingest.Parse(ctx, br, opt, sink)
	}
	path := opt.Name
	d := dcgm.Options{Name: path, Host: opt.Host, Interval: sc.Interval, Catalog: opt.Catalog}
	if d.Interval <= 0 {
		d.Interval = 30 * time.Second // dcgm-exporter's default collect interval
	}
	var fromModTime bool
	d.ScrapeTime, fromModTime = ScrapeTime(sc.At, path)
	if fromModTime && sc.Notes != nil {
		d.UsedScrapeTime = func() {
			fmt.Fprintf(sc.Notes, "%s: no sample timestamps, no --at and no time in the file name: read as scraped at %s, "+
				"the file's modification time\n", path, d.ScrapeTime.UTC().Format(time.RFC3339))
		}
	}
	return dcgm.Parse(ctx, br, d, sink)
}

// IsScrape reports whether the start of a file is Prometheus text exposition
// or OpenMetrics (a dcgm-exporter or nvidia_gpu_exporter scrape, a promtool
// backfill file) rather than CSV.
func IsScrape(head []byte) bool {
	head = bytes.TrimLeft(head, "\ufeff \t\r\n")
	for _, p := range []string{"# HELP ", "# TYPE ", "# UNIT ", "DCGM_FI_", "nvidia_smi_"} {
		if bytes.HasPrefix(head, []byte(p)) {
			return true
		}
	}
	return false
}

// ScrapeTime is when a scrape without sample timestamps was taken: at (ingest
// --at) when set, else a time in the file's name (…-2026-11-02T08:00:00Z.prom,
// …-20261102T080000Z.prom, UTC or with an offset), else the file's
// modification time — which moves when the file is copied, so fromModTime
// says that the caller should tell.
func ScrapeTime(at time.Time, path string) (t time.Time, fromModTime bool) {
	if !at.IsZero() {
		return at, false
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
