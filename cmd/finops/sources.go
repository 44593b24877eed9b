package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/ingest"
)

// sourceSpec is one configured (or command-line) source: a path, folder or
// glob plus what its files do not say themselves.
type sourceSpec struct {
	name     string // as the user wrote it
	kind     string // billing, utilization, tasks, or "" (detect)
	format   string
	host     string
	location *time.Location
	mappings []ingest.ColumnMapping
	interval time.Duration // telemetry files that do not say how often they are written (dcgm scrapes)
}

// configSources lists every source in the config.
func configSources(c *config.Config) ([]sourceSpec, error) {
	loc, err := c.Location()
	if err != nil {
		return nil, usageError{err}
	}
	mappings, err := c.ColumnMappings()
	if err != nil {
		return nil, usageError{err}
	}
	var out []sourceSpec
	for _, b := range c.Billing {
		s := sourceSpec{name: b.Path, kind: ingest.KindBilling, format: b.Format, location: loc, mappings: mappings}
		if b.Mapping != "" {
			s.mappings = nil
			for _, m := range mappings {
				if m.Name == b.Mapping {
					s.mappings = append(s.mappings, m)
				}
			}
			if s.format == "" {
				s.format = ingest.FormatRental
			}
		}
		out = append(out, s)
	}
	for _, h := range c.Telemetry.NvidiaSMI {
		hl := loc
		if h.Timezone != "" {
			if hl, err = time.LoadLocation(h.Timezone); err != nil {
				return nil, usagef("utilization.nvidia_smi %s: %v", h.Path, err)
			}
		}
		out = append(out, sourceSpec{name: h.Path, kind: ingest.KindUtilization, format: ingest.FormatNvidiaSMI,
			host: h.Host, location: hl})
	}
	out = append(out, telemetrySources(c)...)
	for _, t := range c.Tasks {
		out = append(out, sourceSpec{name: t.Path, kind: ingest.KindTasks, format: ingest.FormatTasks, location: loc})
	}
	return out, nil
}

// sourceFiles expands a source and plans its deliveries: where the files
// include billing-export manifests (AWS CUR, AWS Data Exports, Azure), only
// the files of each billing period's latest delivery are imported, keyed so
// that the store replaces earlier deliveries (ingest.PlanDeliveries).
func sourceFiles(pattern string) (*ingest.DeliveryPlan, error) {
	files, err := expand(pattern)
	if err != nil {
		return nil, err
	}
	return ingest.PlanDeliveries(files), nil
}

// expand turns a path, folder or glob into the sorted list of files it names.
// A pattern that matches nothing is an error: a source that silently yields
// no files would make missing data look like zero spend.
func expand(pattern string) ([]string, error) {
	var files []string
	if strings.ContainsAny(pattern, "*?[") {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("%s: bad pattern: %w", pattern, err)
		}
		for _, p := range m {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				files = append(files, p)
			}
		}
	} else {
		fi, err := os.Stat(pattern)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pattern, err)
		}
		if !fi.IsDir() {
			return []string{pattern}, nil
		}
		err = filepath.WalkDir(pattern, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.HasPrefix(d.Name(), ".") && p != pattern {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pattern, err)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no files match", pattern)
	}
	sort.Strings(files)
	return files, nil
}
