// Package source plans what an ingest reads: the configured (or
// command-line) sources as Specs, each expanded into files — a path, a
// folder, a glob, standard input, or s3://bucket/prefix downloaded to a
// temporary folder — and the deliveries of billing-export manifests planned
// (ingest.PlanDeliveriesWithin). It reads no file's records and never opens the
// store: package importer runs the planned files through the parsers.
package source

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
)

// Spec is one configured (or command-line) source: a path, folder or glob
// plus what its files do not say themselves.
type Spec struct {
	Name     string // as the user wrote it
	Kind     string // billing, utilization, tasks, or "" (detect)
	Format   string
	Host     string
	Location *time.Location
	Mappings []ingest.ColumnMapping
	Currency string        // of billing lines whose file leaves it blank (--currency, or the source's currency:)
	Interval time.Duration // telemetry files that do not say how often they are written (dcgm scrapes)
	// SMIFields is the --query-gpu list of headerless nvidia-smi logs (--fields, fields:).
	SMIFields []string
	// ScrapeAt is when scrapes without sample timestamps were taken (ingest
	// --at); Notes gets the line saying a scrape's time is its file's
	// modification time (telemetry.Scrape).
	ScrapeAt time.Time
	Notes    io.Writer
	// InProgress globs the files still being written (an NVML spool's
	// .csv.part): only the watch reads them, by their tail.
	InProgress string
	// Replace imports its files again on purpose (ingest --replace).
	Replace bool
}

// ParseOptions is how the parsers read the file path of s.
func (s Spec) ParseOptions(c *config.Config, path string) ingest.Options {
	return ingest.Options{Name: path, Format: s.Format, Host: s.Host, Location: s.Location,
		Mappings: s.Mappings, Catalog: Catalog(c), MaxBadRows: c.MaxBadRows, Currency: s.Currency, SMIFields: s.SMIFields}
}

// ConfigError marks a source setting or address that can never work (exit
// 2 in the CLI): a bad time zone or field list, an s3:// URL that does not
// parse, credentials that cannot be read.
type ConfigError struct{ Err error }

func (e ConfigError) Error() string { return e.Err.Error() }
func (e ConfigError) Unwrap() error { return e.Err }

// FromConfig lists every source in the config.
func FromConfig(c *config.Config) ([]Spec, error) {
	loc, err := c.Location()
	if err != nil {
		return nil, ConfigError{err}
	}
	mappings, err := ColumnMappings(c)
	if err != nil {
		return nil, ConfigError{err}
	}
	var out []Spec
	for _, b := range c.Billing {
		s := Spec{Name: b.Path, Kind: ingest.KindBilling, Format: b.Format, Location: loc, Mappings: mappings,
			Currency: strings.ToUpper(strings.TrimSpace(b.Currency))}
		if b.Mapping != "" {
			s.Mappings = nil
			for _, m := range mappings {
				if m.Name == b.Mapping {
					s.Mappings = append(s.Mappings, m)
				}
			}
			if s.Format == "" {
				s.Format = ingest.FormatRental
			}
		}
		out = append(out, s)
	}
	for _, h := range c.Telemetry.NvidiaSMI {
		hl := loc
		if h.Timezone != "" {
			if hl, err = time.LoadLocation(h.Timezone); err != nil {
				return nil, ConfigError{fmt.Errorf("utilization.nvidia_smi %s: %v", h.Path, err)}
			}
		}
		fields, err := SMIFields(h)
		if err != nil {
			return nil, ConfigError{fmt.Errorf("utilization.nvidia_smi %s: fields: %v", h.Path, err)}
		}
		out = append(out, Spec{Name: h.Path, Kind: ingest.KindUtilization, Format: ingest.FormatNvidiaSMI,
			Host: h.Host, Location: hl, SMIFields: fields})
	}
	out = append(out, telemetrySources(c)...)
	for _, t := range c.Tasks {
		out = append(out, Spec{Name: t.Path, Kind: ingest.KindTasks, Format: ingest.FormatTasks, Location: loc})
	}
	return out, nil
}

// telemetrySources lists the file-based GPU telemetry of the config besides
// nvidia-smi logs: dcgm-exporter scrape files and NVML spool folders.
func telemetrySources(c *config.Config) []Spec {
	var out []Spec
	for _, s := range c.Telemetry.DCGMScrapes {
		out = append(out, Spec{Name: s.Path, Kind: ingest.KindUtilization, Format: dcgm.Format, Host: s.Host,
			Interval: s.Interval.Duration})
	}
	for _, s := range c.Telemetry.NVMLSpool {
		// The collector writes nvidia-smi CSV with UTC timestamps: finished
		// files end in .csv, the one being written in .csv.part.
		p, part := s.Path, ""
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			p, part = filepath.Join(p, "*.csv"), filepath.Join(p, "*.csv.part")
		}
		out = append(out, Spec{Name: p, Kind: ingest.KindUtilization, Format: ingest.FormatNvidiaSMI,
			Location: time.UTC, InProgress: part})
	}
	return out
}

// configuredOf finds the configured billing source that reads path: the
// same path, or a glob of the config that matches it.
func configuredOf(c *config.Config, path string) (Spec, bool, error) {
	specs, err := FromConfig(c)
	if err != nil {
		return Spec{}, false, err
	}
	clean := filepath.Clean(path)
	for _, s := range specs {
		if s.Kind != ingest.KindBilling {
			continue
		}
		if s.Name == path || filepath.Clean(s.Name) == clean {
			return s, true, nil
		}
		if ok, _ := filepath.Match(s.Name, path); ok {
			return s, true, nil
		}
		if ok, _ := filepath.Match(filepath.Clean(s.Name), clean); ok {
			return s, true, nil
		}
	}
	return Spec{}, false, nil
}

// Again is spec for ingest --replace: the path of a configured billing
// source (the same path, or one its glob matches) is read again as that
// source reads it — its mapping, format and currency — unless spec gives a
// format or currency of its own; any other path is spec as it is.
func Again(c *config.Config, spec Spec) (Spec, error) {
	cs, ok, err := configuredOf(c, spec.Name)
	if err != nil || !ok {
		return spec, err
	}
	cs.Name, cs.Replace = spec.Name, true
	if spec.Format != "" {
		cs.Format = spec.Format
	}
	if spec.Currency != "" {
		cs.Currency = spec.Currency
	}
	return cs, nil
}
