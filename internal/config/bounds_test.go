package config

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// purchaseYAML is a valid purchase entry with key set to val (or, when key
// is not one of the required ones, added).
func purchaseYAML(key, val string) string {
	fields := []string{"gpu_model: A100", "price_per_gpu: 1", "depreciation_years: 3", "power_watts: 400", "pue: 1.2",
		"electricity_price: 1", "load: 0.8"}
	var out []string
	for _, f := range fields {
		if !strings.HasPrefix(f, key+":") {
			out = append(out, f)
		}
	}
	return "purchase: [{" + strings.Join(append(out, key+": "+val), ", ") + "}]"
}

// boundCase is one key: a YAML template with %s for the value, the values at
// (or just inside) each end of its range, which must parse, and the values
// just past them, which must be refused with an error naming key.
type boundCase struct {
	key, tmpl string
	ok, bad   []string
}

// boundCases are every number, duration and enum key of finops.yaml. The
// bounds are written by hand from the ranges finops.example.yaml documents
// (not read from bounds.go): a value on each side of each end.
func boundCases() []boundCase {
	th := func(k string) string { return "thresholds: {" + k + ": %s}" }
	prom := func(k string) string { return "utilization: {prometheus: [{url: http://p, " + k + ": %s}]}" }
	price := func(k string) string { return "prices: [{provider: P, gpu_model: G, " + k + ": %s}]" }
	pur := func(k string) string { return strings.Replace(purchaseYAML(k, "%s"), "%", "%", 1) }
	return []boundCase{
		// The default target band is [80, 95]: idle must stay below 80.
		{"thresholds.idle_utilization", th("idle_utilization"), []string{"0.01", "79.9"}, []string{"0", "-1", "80", "100", "150"}},
		{"thresholds.idle_min_span", th("idle_min_span"), []string{"1m", "24h", "1d"}, []string{"0s", "0m", "59s", "90s", "25h"}},
		{"thresholds.lookback", th("lookback"), []string{"1d", "24h", "366d"}, []string{"0d", "0s", "23h", "367d", "53w"}},
		{"thresholds.stale_after", th("stale_after"), []string{"1m", "366d"}, []string{"0s", "30s", "367d"}},
		{"thresholds.release_slack", th("release_slack"), []string{"0", "1"}, []string{"-0.01", "1.01"}},
		{"thresholds.spot_inflation", th("spot_inflation"), []string{"1", "10"}, []string{"0", "0.99", "10.5"}},
		{"thresholds.release_below_hours", th("release_below_hours"), []string{"0", "744"}, []string{"-1", "745"}},
		{"thresholds.min_savings_percent", th("min_savings_percent"), []string{"0", "100"}, []string{"-1", "101"}},
		{"thresholds.min_savings_amount", th("min_savings_amount"), []string{"0", "1000000000000"}, []string{"-1", "1000000000001"}},
		{"thresholds.target_band", th("target_band"), []string{"[11, 12]", "[20, 100]"}, []string{"[95, 80]", "[50, 50]", "[1]", "[1, 2, 3]"}},
		{"thresholds.target_band[0]", th("target_band"), nil, []string{"[-1, 50]"}},
		{"thresholds.target_band[1]", th("target_band"), nil, []string{"[50, 101]"}},
		// idle_utilization 10 (the default) against a band starting at or below it.
		{"thresholds.idle_utilization", th("target_band"), nil, []string{"[10, 50]", "[0, 100]"}},
		{"max_bad_rows", "max_bad_rows: %s", []string{"0", "1000000000"}, []string{"-1", "1000000001"}},
		{"currency", "currency: %s", []string{"CNY", "usd"}, []string{"RMB¥", "US", "EURO"}},
		{"fx.USD", "currency: CNY\nfx: {USD: %s}", []string{`"7.1"`, "0.000000001", "1000000000"},
			[]string{"0", "-7", "abc", "0.0000000001", "1000000001", "1e309"}},
		{"fx.CNY", "currency: CNY\nfx: {CNY: %s}", []string{"1"}, []string{"2"}},
		{"fx.US", "fx: {US: %s}", nil, []string{"7"}},
		{"mappings.m.currency", "mappings: {m: {currency: %s}}", []string{"CNY"}, []string{"元"}},
		{"instance_types[0].gpu_count", "instance_types: [{name: x.large, gpu_model: A100, gpu_count: %s}]", []string{"1", "64"}, []string{"0", "-1", "65"}},
		{"teams[0].monthly_budget", "teams: [{name: nlp, monthly_budget: %s}]", []string{"0", "1000000000000"}, []string{"-1", "-0.01", "1000000000001"}},
		{"prices[0].hourly", price("hourly"), []string{"0.01", "1000000000"}, []string{"0", "-1", "1000000001"}},
		{"prices[0].daily", price("daily"), []string{"0.01"}, []string{"0"}},
		{"prices[0].weekly", price("weekly"), []string{"0.01"}, []string{"0"}},
		{"prices[0].monthly", price("monthly"), []string{"7000"}, []string{"-7000"}},
		{"prices[0].spot", price("spot"), []string{"1000000000"}, []string{"1000000001"}},
		{"prices[0].currency", "prices: [{provider: P, gpu_model: G, hourly: 1, currency: %s}]", []string{"CNY"}, []string{"C"}},
		{"prices[0].as_of", "prices: [{provider: P, gpu_model: G, hourly: 1, as_of: %s}]", []string{`"2026-11-01"`}, []string{`"2026-13-01"`, "Nov 2026"}},
		{"utilization.hot_days", "utilization: {hot_days: %s}", []string{"0", "400"}, []string{"-1", "401"}},
		{"utilization.prometheus[0].step", prom("step"), []string{"1s", "5m", "16s", "45s"}, []string{"0s", "1500ms", "6m", "7s", "13s", "7m"}},
		{"utilization.prometheus[0].timeout", prom("timeout"), []string{"100ms", "1h"}, []string{"0s", "50ms", "2h"}},
		{"utilization.prometheus[0].retries", prom("retries"), []string{"0", "10"}, []string{"-1", "11"}},
		{"utilization.prometheus[0].concurrent_days", prom("concurrent_days"), []string{"1", "32"}, []string{"0", "-1", "33"}},
		{"utilization.prometheus[0].retry_backoff", prom("retry_backoff"), []string{"1ms", "5m"}, []string{"0s", "6m"}},
		{"utilization.prometheus[0].exporter", prom("exporter"), []string{"dcgm", "nvidia_gpu_exporter"}, []string{"node"}},
		{"utilization.dcgm_scrapes[0].interval", "utilization: {dcgm_scrapes: [{path: x, interval: %s}]}", []string{"1s", "5m"}, []string{"0s", "10m"}},
		{"publish.s3.retention_weeks", "publish: {s3: {retention_weeks: %s}}", []string{"0", "520"}, []string{"-1", "521"}},
		{"publish.s3.timeout", "publish: {s3: {timeout: %s}}", []string{"100ms", "24h"}, []string{"0s", "25h"}},
		{"sources.idle_timeout", "sources: {idle_timeout: %s}", []string{"100ms", "1h"}, []string{"0s", "99ms", "61m"}},
		{"publish.smtp.timeout", "publish: {smtp: {timeout: %s}}", []string{"100ms", "1h"}, []string{"0s", "2h"}},
		{"publish.smtp.port", "publish: {smtp: {port: %s}}", []string{"1", "65535"}, []string{"-1", "65536"}},
		{"publish.smtp.tls", "publish: {smtp: {tls: %s}}", []string{"starttls", "implicit"}, []string{"ssl"}},
		{"formats", "formats: [%s]", []string{"xlsx", "json"}, []string{"pdf"}},
		{"purchase[0].price_per_gpu", pur("price_per_gpu"), []string{"0.01", "1000000000000"}, []string{"0", "1000000000001"}},
		{"purchase[0].depreciation_years", pur("depreciation_years"), []string{"0.5", "50"}, []string{"0", "51"}},
		{"purchase[0].power_watts", pur("power_watts"), []string{"0", "100000"}, []string{"-1", "100001"}},
		{"purchase[0].pue", pur("pue"), []string{"1", "5"}, []string{"0.99", "5.1"}},
		{"purchase[0].electricity_price", pur("electricity_price"), []string{"0", "1000000000"}, []string{"-1", "1000000001"}},
		{"purchase[0].load", pur("load"), []string{"0.01", "1"}, []string{"0", "1.01"}},
		{"purchase[0].server_share", pur("server_share"), []string{"0", "1000000000000"}, []string{"-1", "1000000000001"}},
		{"purchase[0].residual", pur("residual"), []string{"0", "0.99"}, []string{"-0.1", "1"}},
		{"purchase[0].hosting_per_gpu_month", pur("hosting_per_gpu_month"), []string{"0"}, []string{"-1", "1000000000001"}},
		{"purchase[0].ops_per_gpu_month", pur("ops_per_gpu_month"), []string{"0"}, []string{"-1", "1000000000001"}},
		{"purchase[0].margin_points", pur("margin_points"), []string{"0", "99.9"}, []string{"-1", "100"}},
		{"purchase[0].min_coverage", pur("min_coverage"), []string{"0", "0.5", "1"}, []string{"-0.1", "1.01"}},
		{"purchase[0].currency", pur("currency"), []string{"CNY"}, []string{"yuan"}},
		{"energy.pue", "energy: {pue: %s}", []string{"1", "5"}, []string{"0", "0.99", "5.1"}},
		{"energy.grid_intensity.default", "energy: {grid_intensity: {default: %s}}", []string{"0", "436", "2000"}, []string{"-1", "2001"}},
		{"energy.grid_intensity.regions.eu-north-1", "energy: {grid_intensity: {regions: {eu-north-1: %s}}}", []string{"0", "2000"}, []string{"-0.5", "2000.5"}},
		{"energy.grid_intensity.providers.aws", "energy: {grid_intensity: {providers: {aws: %s}}}", []string{"380"}, []string{"-1", "2001"}},
	}
}

func TestConfigBounds(t *testing.T) {
	for _, tc := range boundCases() {
		for _, v := range tc.ok {
			y := fmt.Sprintf(tc.tmpl, v)
			if _, err := Parse("f.yaml", []byte(y)); err != nil {
				t.Errorf("%s = %s: want accepted, got %v", tc.key, v, err)
			}
		}
		for _, v := range tc.bad {
			y := fmt.Sprintf(tc.tmpl, v)
			_, err := Parse("f.yaml", []byte(y))
			if err == nil || !strings.Contains(err.Error(), tc.key+":") {
				t.Errorf("%s = %s: err = %v, want a refusal naming %s", tc.key, v, err, tc.key)
			}
		}
	}
}

// Every float key refuses NaN, the infinities and a number past float64
// (which yaml reads as text), naming the key: nothing non-finite reaches a
// report.
func TestConfigNonFinite(t *testing.T) {
	for _, tc := range boundCases() {
		// the keys whose accepted values are numbers (not durations,
		// enums, codes or lists)
		if len(tc.ok) == 0 || !isPlainNumber(tc.ok[0]) || strings.Contains(tc.key, "fx.") {
			continue
		}
		for _, v := range []string{".nan", ".NaN", ".inf", "-.Inf", "+.inf", "1e309", "-1e309"} {
			_, err := Parse("f.yaml", []byte(fmt.Sprintf(tc.tmpl, v)))
			if err == nil || !strings.Contains(err.Error(), tc.key+":") || !strings.Contains(err.Error(), v) {
				t.Errorf("%s = %s: err = %v, want a refusal naming the key and the value", tc.key, v, err)
			}
		}
	}
	for _, y := range []string{"fx: {USD: 1e309}", "fx: {USD: .inf}", "fx: {USD: .nan}", "thresholds: {target_band: [.nan, 90]}",
		"thresholds: {target_band: [10, .inf]}"} {
		_, err := Parse("f.yaml", []byte(y))
		if err == nil || !(strings.Contains(err.Error(), "fx.USD:") || strings.Contains(err.Error(), "thresholds.target_band[")) {
			t.Errorf("%s: err = %v, want a refusal naming the key", y, err)
		}
	}
}

func isPlainNumber(s string) bool {
	_, err := fmt.Sscanf(s, "%g", new(float64))
	return err == nil && !strings.ContainsAny(s, "smhdw[")
}

func TestConfigNamedTwice(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"teams: [{name: cv}, {name: nlp}, {name: ops}, {name: nlp}]", `teams[3].name: "nlp" is named twice (first at teams[1])`},
		{"teams: [{name: nlp}, {name: NLP}]", `teams[1].name: "NLP" is named twice (first at teams[0])`},
		{"teams: [{name: nlp}, {name: cv, tag: nlp}]", `teams[1].tag: "nlp" is named twice (first at teams[0])`},
		{"teams: [{name: a, tag: x}, {name: b, tag: x}]", `teams[1].tag: "x" is named twice (first at teams[0])`},
		{"instance_types: [{name: g.large, gpu_model: A100, gpu_count: 1}, {name: G.Large, gpu_model: H100, gpu_count: 8}]",
			`instance_types[1].name: "G.Large" is named twice (first at instance_types[0])`},
		{"fx: {USD: 7, usd: 7.1}", `is named twice (first at fx.USD)`},
	} {
		_, err := Parse("f.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
	// A team's tag may be its own name.
	if _, err := Parse("f.yaml", []byte("teams: [{name: nlp, tag: NLP}, {name: cv, tag: cv}]")); err != nil {
		t.Errorf("own name as tag: %v", err)
	}
}

func TestConfigOneDocument(t *testing.T) {
	for _, y := range []string{"currency: CNY\n---\ncurrency: USD\n", "teams: [{name: a}]\n---\n", "---\ntimezone: UTC\n---\nfx: {USD: 7}\n"} {
		_, err := Parse("f.yaml", []byte(y))
		if err == nil || !strings.Contains(err.Error(), "second YAML document") {
			t.Errorf("%q: err = %v, want a refusal of the second document", y, err)
		}
	}
	for _, y := range []string{"---\ncurrency: CNY\n", "currency: CNY\n...\n", ""} {
		if _, err := Parse("f.yaml", []byte(y)); err != nil {
			t.Errorf("%q: one document refused: %v", y, err)
		}
	}
}

func TestFmtDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 10 * time.Second: "10s", 100 * time.Millisecond: "100ms",
		time.Minute: "1m", 90 * time.Minute: "1h30m", 5 * time.Hour: "5h", 48 * time.Hour: "2d", 25 * time.Hour: "25h"} {
		if got := fmtDuration(d); got != want {
			t.Errorf("fmtDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
