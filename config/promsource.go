package config

import (
	"github.com/finops-oss/finops/ingest/dcgm"
	"github.com/finops-oss/finops/ingest/prom"
)

// defaultPromRetries is how often a failed request is retried when the
// server's block does not say.
const defaultPromRetries = 3

// PromSource turns a configured Prometheus server into the fetcher's source:
// the exporter's default queries with the configured ones over them, the
// deadlines, retries and labels, and the config's GPU catalog. getenv reads
// the variables that hold its secrets, when the fetcher connects.
func (c *Config) PromSource(p Prometheus, getenv func(string) string) (prom.Source, error) {
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
		BasicAuthUser: p.BasicAuthUser, BasicAuthPasswordEnv: p.BasicAuthPasswordEnv, Catalog: c.Catalog(),
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
