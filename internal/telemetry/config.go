package telemetry

import (
	"fmt"
	"strings"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
	"github.com/finops-oss/finops/internal/ingest/prom"
	"github.com/finops-oss/finops/internal/sanitize"
)

// defaultPromRetries is how often a failed request is retried when the
// server's block does not say.
const defaultPromRetries = 3

// PromSource turns a configured Prometheus server into the fetcher's source:
// the exporter's default queries with the configured ones over them, the
// deadlines, retries and labels, and the config's GPU catalog. getenv reads
// the variables that hold its secrets, when the fetcher connects.
func PromSource(c *config.Config, p config.Prometheus, getenv func(string) string) (prom.Source, error) {
	q, err := prom.DefaultQueries(p.Exporter)
	if err != nil {
		return prom.Source{}, err
	}
	if p.Query != "" {
		q.Util = p.Query
	}
	for _, o := range []struct{ src, dst *string }{{&p.Queries.Util, &q.Util}, {&p.Queries.MemUsed, &q.MemUsed},
		{&p.Queries.MemTotal, &q.MemTotal}, {&p.Queries.Power, &q.Power}} {
		if *o.src != "" {
			*o.dst = *o.src
		}
	}
	src := prom.Source{Name: p.Name, URL: p.URL, Queries: q, Step: p.Step.Duration, Timeout: p.Timeout.Duration,
		Retries: defaultPromRetries, Backoff: p.RetryBackoff.Duration, BearerTokenEnv: p.BearerTokenEnv,
		BasicAuthUser: p.BasicAuthUser, BasicAuthPasswordEnv: p.BasicAuthPasswordEnv, Catalog: catalog(c),
		Getenv: getenv, MaxResponseBytes: p.MaxResponseBytes}
	if p.Retries != nil {
		src.Retries = *p.Retries
	}
	if p.ConcurrentDays != nil {
		src.ConcurrentDays = *p.ConcurrentDays
	}
	labels := p.PromLabels()
	src.TaskLabels = dcgm.TaskLabels{Task: labels["task"], Team: labels["team"], Kind: labels["kind"]}
	return src, nil
}

// catalog is the built-in GPU instance catalog extended by instance_types,
// each gpu_model read as a bill's (as source.Catalog, which telemetry
// cannot import: source reaches publish).
func catalog(c *config.Config) *gpu.Catalog {
	cat := gpu.NewCatalog()
	for _, it := range c.Instances {
		cat.Add(it.Name, gpu.Model(it.GPUModel), it.GPUCount)
	}
	return cat
}

// CheckConfig is the config.Check of the Prometheus servers' addresses: an
// http(s) URL, shown redacted (sanitize.URL) when it is not one.
func CheckConfig(c *config.Config) []error {
	var errs []error
	for i, p := range c.Telemetry.Prometheus {
		if !strings.HasPrefix(p.URL, "http://") && !strings.HasPrefix(p.URL, "https://") {
			errs = append(errs, fmt.Errorf("utilization.prometheus[%d].url: want http(s)://host:port, got %q", i, sanitize.URL(p.URL)))
		}
	}
	return errs
}
