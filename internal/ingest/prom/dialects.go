package prom

import (
	"fmt"
	"strings"

	"github.com/finops-oss/finops/internal/ingest/dcgm"
)

// Dialect is one GPU exporter whose series finops reads, from Prometheus or
// from its scrape files, with every fact about it in one entry: adding an
// exporter is an entry here (and its metric names in ingest/dcgm);
// TestDialectRegistryFacts refuses an entry that lacks a fact.
type Dialect struct {
	// Name is the config's exporter: and --exporter.
	Name string
	// Exporter names the project: "NVIDIA dcgm-exporter".
	Exporter string
	// Default: the dialect of a source that names none.
	Default bool
	// Queries are its default queries: each in the unit Queries names.
	Queries Queries
	// Sample is a scrape file of it under testdata/telemetry, which reads
	// as ScrapeFormat and holds a metric its Util query reads.
	Sample string
	// ScrapeFormat is the format its scrape files are read as (ingest/dcgm).
	ScrapeFormat string
	// Doc is where its series are documented: "docs/INGEST.md#…".
	Doc string
}

// Dialects is the table of exporters, in the order messages list them; a
// fresh copy each call (no package state).
func Dialects() []Dialect {
	const doc = "docs/INGEST.md#telemetry-files-scrapes-backfill-files-and-nvidia-smi-logs"
	return []Dialect{
		{Name: ExporterDCGM, Exporter: "NVIDIA dcgm-exporter", Default: true, Doc: doc,
			// Utilization is DCGM_FI_PROF_GR_ENGINE_ACTIVE (a ratio) where the
			// GPU has profiling metrics, else DCGM_FI_DEV_GPU_UTIL: `or`
			// matches series on every label but the metric name, so a GPU
			// with both keeps the profiling one.
			Queries: Queries{
				Util:    dcgm.GREngineActive + " * 100 or " + dcgm.GPUUtil,
				MemUsed: dcgm.FBUsed,
				// FB_TOTAL is not in the default counters: used + free (+ reserved where exported).
				MemTotal: dcgm.FBUsed + " + " + dcgm.FBFree + " + " + dcgm.FBReserved + " or " + dcgm.FBUsed + " + " + dcgm.FBFree,
				Power:    dcgm.PowerUsage,
			},
			Sample: "dcgm-mig-a100-80gb.prom", ScrapeFormat: dcgm.Format},
		{Name: ExporterNvidiaSMI, Exporter: "utkuozdemir/nvidia_gpu_exporter", Doc: doc,
			Queries: Queries{
				Util:     dcgm.SMIUtil + " * 100",
				MemUsed:  dcgm.SMIMemUsed + " / 1048576",
				MemTotal: dcgm.SMIMemTotal + " / 1048576",
				Power:    dcgm.SMIPower,
			},
			Sample: "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.metrics", ScrapeFormat: dcgm.ExporterFormat},
	}
}

// DialectNames lists the exporters' names, for the config's checks.
func DialectNames() []string {
	var out []string
	for _, d := range Dialects() {
		out = append(out, d.Name)
	}
	return out
}

// DefaultQueries returns the query set of an exporter ("" is the default
// one).
func DefaultQueries(exporter string) (Queries, error) {
	for _, d := range Dialects() {
		if d.Name == exporter || exporter == "" && d.Default {
			return d.Queries, nil
		}
	}
	return Queries{}, fmt.Errorf("exporter %q: want %s (or give your own queries)", exporter, strings.Join(DialectNames(), " or "))
}
