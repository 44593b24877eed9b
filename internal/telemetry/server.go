package telemetry

import (
	"cmp"
	"fmt"
	"maps"
	"strings"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest/prom"
)

// Overrides is what `finops ingest prometheus --url` says of the server it
// reads: Server.URL and the values of the other flags, and Set, which says
// whether a flag was given by its name (exporter, query, name,
// bearer-token-env, basic-auth-user, basic-auth-password-env, step,
// timeout, retry-backoff, retries, max-response-bytes, concurrent-days,
// task-label, team-label, kind-label).
type Overrides struct {
	Server                          config.Prometheus
	Step, Timeout, RetryBackoff     string
	Retries, ConcurrentDays         int
	TaskLabel, TeamLabel, KindLabel string
	Set                             func(flag string) bool
}

// baseServer is the configured server with that URL (found), else one
// with the defaults and the configured servers' smallest caps.
func baseServer(conf []config.Prometheus, url string) (fc config.Prometheus, found bool) {
	fc = config.Prometheus{URL: url}
	for _, p := range conf {
		if strings.TrimRight(p.URL, "/") == strings.TrimRight(url, "/") {
			fc = p
			fc.Labels = maps.Clone(p.Labels)
			return fc, true
		}
	}
	for _, p := range conf {
		if mrb := cmp.Or(p.MaxResponseBytes, prom.DefaultMaxResponseBytes); fc.MaxResponseBytes == 0 || mrb < fc.MaxResponseBytes {
			fc.MaxResponseBytes = mrb
		}
		if cd := p.ConcurrentDays; cd != nil && *cd > 0 && (fc.ConcurrentDays == nil || *cd < *fc.ConcurrentDays) {
			fc.ConcurrentDays = cd
		}
	}
	return fc, false
}

// setLabels applies the --task-label, --team-label and --kind-label flags
// given: an empty one removes the configured label.
func setLabels(fc *config.Prometheus, o Overrides) {
	set := o.Set
	if fc.Labels == nil {
		fc.Labels = map[string]string{}
	}
	for _, r := range []struct{ flag, role, v string }{{"task-label", "task", o.TaskLabel}, {"team-label", "team", o.TeamLabel}, {"kind-label", "kind", o.KindLabel}} {
		if !set(r.flag) {
			continue
		}
		if r.v == "" {
			delete(fc.Labels, r.role)
		} else {
			fc.Labels[r.role] = r.v
		}
	}
}

// URLServer is the server `finops ingest prometheus --url` reads: the
// configured server with that URL (so a day is stored under the name and
// read with the limits `finops run` uses), else one with the defaults and
// the configured servers' smallest max_response_bytes and concurrent_days
// (the caps bound this machine's memory, whichever server it reads); the
// flags given replace either. Its errors name the flag.
func URLServer(conf []config.Prometheus, o Overrides) (config.Prometheus, error) {
	fl, set := o.Server, o.Set
	fc, found := baseServer(conf, fl.URL)
	if set("exporter") {
		// The exporter names a query set: the configured queries were
		// written for the other one.
		fc.Exporter, fc.Query, fc.Queries = fl.Exporter, "", config.PromQueries{}
	}
	if set("query") {
		fc.Query, fc.Queries.Util = fl.Query, "" // queries.util would win over it (PromSource)
	}
	for _, s := range []struct {
		flag     string
		from, to *string
	}{{"name", &fl.Name, &fc.Name}, {"bearer-token-env", &fl.BearerTokenEnv, &fc.BearerTokenEnv},
		{"basic-auth-user", &fl.BasicAuthUser, &fc.BasicAuthUser}, {"basic-auth-password-env", &fl.BasicAuthPasswordEnv, &fc.BasicAuthPasswordEnv}} {
		if set(s.flag) {
			*s.to = *s.from
		}
	}
	for _, dur := range []struct {
		flag string
		v    string
		dst  *config.Duration
	}{{"step", o.Step, &fc.Step}, {"timeout", o.Timeout, &fc.Timeout}, {"retry-backoff", o.RetryBackoff, &fc.RetryBackoff}} {
		if !set(dur.flag) {
			continue
		}
		v, err := config.ParseDuration(dur.v)
		if err != nil {
			return fc, fmt.Errorf("--%s: %v", dur.flag, err)
		}
		dur.dst.Duration = v
	}
	if set("retries") || !found {
		retries := o.Retries
		fc.Retries = &retries // the flag's default, 3, is the config's
	}
	if set("max-response-bytes") {
		fc.MaxResponseBytes = fl.MaxResponseBytes
	}
	if set("concurrent-days") {
		days := o.ConcurrentDays
		fc.ConcurrentDays = &days
	}
	setLabels(&fc, o)
	return fc, nil
}
