package config

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Prometheus is one Prometheus server finops reads GPU utilization from
// (utilization.prometheus[]). Secrets come from environment variables only.
type Prometheus struct {
	Name     string `yaml:"name"`     // short name in the data-quality box; default the URL's host
	URL      string `yaml:"url"`      // http(s)://host:9090[/prefix]
	Exporter string `yaml:"exporter"` // dcgm (default) or nvidia_gpu_exporter: the default queries
	// Query replaces the utilization query (PromQL giving percent 0–100 per
	// GPU); Queries replaces any of the four.
	Query        string      `yaml:"query"`
	Queries      PromQueries `yaml:"queries"`
	Step         Duration    `yaml:"step"`          // default 60s
	Timeout      Duration    `yaml:"timeout"`       // per request, default 2m
	Retries      *int        `yaml:"retries"`       // default 3
	RetryBackoff Duration    `yaml:"retry_backoff"` // first wait, doubled per retry; default 2s
	// MaxResponseBytes caps one query_range answer (default 256 MiB); a
	// larger answer is fetched in parts: shorter ranges, then per host.
	MaxResponseBytes int64 `yaml:"max_response_bytes"`
	// ConcurrentDays is how many days are asked for at once (and held in
	// memory); default 4.
	ConcurrentDays       *int              `yaml:"concurrent_days"`
	BearerTokenEnv       string            `yaml:"bearer_token_env"`
	BasicAuthUser        string            `yaml:"basic_auth_user"`
	BasicAuthPasswordEnv string            `yaml:"basic_auth_password_env"`
	Labels               map[string]string `yaml:"labels"` // task, team, kind → label names, comma-separated
}

// PromQueries are custom PromQL per measure (see ingest/prom.Queries).
type PromQueries struct {
	Util     string `yaml:"util"`
	MemUsed  string `yaml:"memory_used"`
	MemTotal string `yaml:"memory_total"`
	Power    string `yaml:"power"`
}

// Scrapes is a set of dcgm-exporter scrape files logged by one host
// (utilization.dcgm_scrapes[]); each file is one scrape, stamped with its
// modification time unless its samples carry timestamps.
type Scrapes struct {
	Path     string   `yaml:"path"`
	Host     string   `yaml:"host"`     // for series without a Hostname label
	Interval Duration `yaml:"interval"` // how often the host logs a scrape; default 30s
}

// Spool is a folder `finops collect nvml --out` writes (utilization.nvml_spool[]).
type Spool struct {
	Path string `yaml:"path"`
}

// PromLabels returns a source's task labels: role (task, team, kind) → the
// label names to try in order.
func (p Prometheus) PromLabels() map[string][]string {
	out := map[string][]string{}
	for role, v := range p.Labels {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				out[role] = append(out[role], n)
			}
		}
	}
	return out
}

// DefaultPromMaxResponseBytes is utilization.prometheus[].max_response_bytes
// left out (prom.DefaultMaxResponseBytes; TestDefaultsMatchOwners keeps them
// equal).
const DefaultPromMaxResponseBytes = 256 << 20

// validate checks the utilization sources; each Prometheus server's URL is
// telemetry.CheckConfig's (its redaction is sanitize's).
func (t *Telemetry) validate() error {
	var errs refusals
	if t.HotDays < 0 || t.HotDays > 400 {
		errs.add(fmt.Errorf("utilization.hot_days: %d is not between 1 and 400 (0 for the default)", t.HotDays))
	}
	names := map[string]bool{}
	for i, p := range t.Prometheus {
		at := fmt.Sprintf("utilization.prometheus[%d]", i)
		errs = append(errs, p.validate(at)...)
		if n := p.Name; n != "" {
			if names[n] {
				errs.add(fmt.Errorf("%s.name: %q appears twice", at, n))
			}
			names[n] = true
		}
	}
	for i, s := range t.DCGMScrapes {
		if s.Path == "" {
			errs.add(fmt.Errorf("utilization.dcgm_scrapes[%d]: path is required", i))
		}
		errs.add(durRange{lo: time.Second, hi: maxSampling}.check(fmt.Sprintf("utilization.dcgm_scrapes[%d].interval", i), s.Interval))
	}
	for i, s := range t.NVMLSpool {
		if s.Path == "" {
			errs.add(fmt.Errorf("utilization.nvml_spool[%d]: path is required", i))
		}
	}
	return errors.Join(errs...)
}

// validate checks one Prometheus server's block, at its key.
func (p Prometheus) validate(at string) []error {
	var errs refusals
	switch p.Exporter {
	case "", "dcgm", "nvidia_gpu_exporter":
	default:
		errs.add(fmt.Errorf("%s.exporter: %q is not dcgm or nvidia_gpu_exporter", at, p.Exporter))
	}
	if p.Query != "" && p.Queries.Util != "" {
		errs.add(fmt.Errorf("%s: give query or queries.util, not both", at))
	}
	// A step over five minutes would leave minutes between samples
	// unmonitored: analysis extends a sample over at most five.
	errs.add(durRange{lo: time.Second, hi: maxSampling, step: time.Second, stepName: "seconds"}.check(at+".step", p.Step))
	// Days are fetched one query_range each, starting at midnight; a
	// step that does not divide a day puts the grid off the server's
	// alignment, and VictoriaMetrics' response cache then answers such
	// a query with no samples at all (measured with v1.151.0, see
	// docs/SCALE.md) — telemetry silently lost, so refuse it here.
	if p.Step.Duration > 0 && p.Step.Duration%time.Second == 0 && (24*time.Hour)%p.Step.Duration != 0 {
		errs.add(fmt.Errorf("%s.step: %s does not divide a day; want a step such as 15s, 30s, 60s or 5m (a day is fetched as one range, and VictoriaMetrics answers misaligned steps with no samples)", at, fmtDuration(p.Step.Duration)))
	}
	errs.add(durRange{lo: 100 * time.Millisecond, hi: time.Hour}.check(at+".timeout", p.Timeout))
	errs.add(durRange{lo: time.Millisecond, hi: 5 * time.Minute}.check(at+".retry_backoff", p.RetryBackoff))
	if p.MaxResponseBytes < 0 {
		errs.add(fmt.Errorf("%s.max_response_bytes: want 0 or more bytes (0 for the default, %d)", at, DefaultPromMaxResponseBytes))
	}
	if p.Retries != nil {
		errs.add(numRange{lo: 0, hi: 10}.check(at+".retries", float64(*p.Retries)))
	}
	if p.ConcurrentDays != nil {
		// Each day in flight holds its samples (40 bytes a GPU-step):
		// past 32 the server, not finops, is what is being tested.
		errs.add(numRange{lo: 1, hi: 32}.check(at+".concurrent_days", float64(*p.ConcurrentDays)))
	}
	return append(errs, p.validateAuth(at)...)
}

// validateAuth checks the credentials' and task labels' keys of a server.
func (p Prometheus) validateAuth(at string) []error {
	var errs refusals
	if p.BasicAuthPasswordEnv != "" && p.BasicAuthUser == "" {
		errs.add(fmt.Errorf("%s: basic_auth_password_env needs basic_auth_user", at))
	}
	if p.BearerTokenEnv != "" && p.BasicAuthUser != "" {
		errs.add(fmt.Errorf("%s: give a bearer token or basic auth, not both", at))
	}
	for _, role := range sortedNames(p.Labels) {
		if role != "task" && role != "team" && role != "kind" {
			errs.add(fmt.Errorf("%s.labels: %q is not task, team or kind", at, role))
		}
	}
	if len(p.Labels) > 0 && p.Labels["task"] == "" {
		errs.add(fmt.Errorf("%s.labels: task (e.g. pod, exported_pod) is required to attribute tasks", at))
	}
	return errs
}
