package source

import (
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/sanitize"
)

// parse loads YAML as the CLI does, with this package's check.
func parse(y string) (*config.Config, error) {
	return config.Parse("f.yaml", []byte(y), CheckConfig)
}

// TestCheckConfigRefusals: what the sources name that ingest owns is
// refused at load, each error naming its key (moved from config with the
// check; the wording is the one config gave).
func TestCheckConfigRefusals(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"billing: [{path: x, mapping: nope}]", `billing[0]: mapping "nope" is not defined under mappings`},
		{"billing: [{path: x, format: pdf}]", `billing[0].format: "pdf" is not one of focus, rental, aws-cur, aws-cur2, azure, gcp, runpod, vast (leave it out`},
		{"billing: [{path: x, format: nvidia-smi}]", "billing[0].format:"},
		{"billing: [{path: x, format: FOCUS}]", "billing[0].format:"},
		{"mappings: {hy: {encoding: latin1, columns: {resource_id: a, start: b, end: c, cost: d}}}", "mappings.hy.encoding"},
		{"utilization:\n  nvidia_smi:\n    - {path: a.csv, host: a, fields: 'timestamp,uuid,gpu_util'}\n",
			`utilization.nvidia_smi[0].fields: "gpu_util" is not an nvidia-smi --query-gpu field`},
		{"utilization:\n  nvidia_smi:\n    - {path: a.csv, host: a, fields: 'name,uuid'}\n", "utilization.nvidia_smi[0].fields: \"name,uuid\" has no timestamp"},
		{"sources: {azure: {endpoint: 'https://a.blob.core.windows.net/?sig=abc'}}", "sources.azure.endpoint: must not contain credentials"},
		{"sources: {gcs: {endpoint: 'https://gcs.example.com/?access_token=abc'}}", "sources.gcs.endpoint: must not contain credentials"},
		{"publish: {s3: {bucket: b, endpoint: 'https://minio:9000/?X-Amz-Security-Token=hunter2'}}", "publish.s3.endpoint: must not contain credentials"},
		{"publish: {link_base_url: 'https://cdn.example.com/r?sig=hunter2'}", "publish.link_base_url: must not contain credentials"},
	} {
		_, err := parse(tc.yaml)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to say %q", tc.yaml, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the error shows the secret: %v", tc.yaml, err)
		}
	}
	for _, ok := range []string{"billing: [{path: x, format: focus}]", "billing: [{path: x, format: aws-cur2}]",
		"billing: [{path: x, format: vast}]", "billing: [{path: a.csv, mapping: alibaba}]",
		"mappings: {hy: {encoding: GBK, columns: {resource_id: 实例, start: 开始, end: 结束, cost: 金额}}}\nbilling: [{path: b.csv, mapping: hy}]"} {
		if _, err := parse(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestAddressSecretsGenerated is the invariant of the split between config
// (a password in the address) and CheckConfig (a token parameter): an http(s)
// address under any of the four keys loads exactly when sanitize.URL leaves
// it as it is, i.e. when it holds nothing sanitize would redact; checked on
// 2,000 seeded random addresses.
func TestAddressSecretsGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(36))
	params := []string{"sig", "token", "X-Amz-Security-Token", "prefix", "api_key", "region", "page", "client_secret", "v"}
	keys := []struct{ key, tmpl string }{
		{"publish.s3.endpoint", "publish: {s3: {bucket: b, endpoint: '%s'}}"},
		{"publish.link_base_url", "publish: {link_base_url: '%s'}"},
		{"sources.azure.endpoint", "sources: {azure: {endpoint: '%s'}}"},
		{"sources.gcs.endpoint", "sources: {gcs: {endpoint: '%s'}}"},
	}
	refused := 0
	for n := 0; n < 2000; n++ {
		u := []string{"http://", "https://"}[rng.Intn(2)]
		if rng.Intn(5) == 0 {
			u += "user:pw@"
		}
		u += fmt.Sprintf("host%d.example.com", rng.Intn(9))
		if rng.Intn(2) == 0 {
			u += "/path"
		}
		for i, k := 0, rng.Intn(3); i < k; i++ {
			sep := "?"
			if strings.Contains(u, "?") {
				sep = "&"
			}
			u += sep + params[rng.Intn(len(params))] + "=" + []string{"x1", ""}[rng.Intn(2)]
		}
		key := keys[rng.Intn(len(keys))]
		_, err := parse(fmt.Sprintf(key.tmpl, u))
		// By hand: a user:password or a non-empty credential parameter is
		// what sanitize.URL would change.
		clean := sanitize.URL(u) == u
		if clean != (err == nil) {
			t.Fatalf("%s = %s: err = %v, but sanitize.URL leaves it unchanged: %v", key.key, u, err, clean)
		}
		if err != nil && !strings.Contains(err.Error(), key.key+": must not contain credentials") {
			t.Fatalf("%s = %s: refused for another reason: %v", key.key, u, err)
		}
		if err != nil {
			refused++
		}
	}
	if refused < 200 || refused > 1800 {
		t.Errorf("%d of 2,000 addresses refused: the generator no longer makes both kinds", refused)
	}
}

// TestColumnMappings: the configured mappings come named, in a stable order,
// ahead of the built-in ones, each validated (moved from config).
func TestColumnMappings(t *testing.T) {
	b, err := os.ReadFile("../../finops.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse("finops.example.yaml", b, CheckConfig)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ColumnMappings(c)
	if err != nil || ms[0].Name != "mycloud" {
		t.Errorf("mappings = %+v, %v", ms, err)
	}
	if f, err := SMIFields(c.Telemetry.NvidiaSMI[1]); err != nil || len(f) != 9 || f[4] != "uuid" {
		t.Errorf("nvidia_smi[1].fields %v, %v", f, err)
	}
	// A mapping without the required cost column is refused before any file is read.
	c, err = parse("mappings: {m: {columns: {resource_id: ID, start: S, end: E}}}")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ColumnMappings(c); err == nil || !strings.Contains(err.Error(), "mappings.m") {
		t.Errorf("err = %v, want an error naming mappings.m", err)
	}
	c, err = parse("mappings: {hy: {encoding: GBK, columns: {resource_id: 实例, start: 开始, end: 结束, cost: 金额}}}\n" +
		"billing: [{path: a.csv, mapping: alibaba}, {path: b.csv, mapping: hy}]")
	if err != nil {
		t.Fatal(err)
	}
	ms, err = ColumnMappings(c)
	if err != nil || ms[0].Name != "hy" || ms[0].Encoding != "GBK" {
		t.Fatalf("mappings = %+v, %v", ms, err)
	}
	_, err = parse("mappings: {hy: {encoding: latin1, columns: {resource_id: a, start: b, end: c, cost: d}}}")
	if err == nil || !strings.Contains(err.Error(), "mappings.hy.encoding") || !strings.Contains(err.Error(), "gbk") {
		t.Errorf("err = %v, want one naming mappings.hy.encoding and the valid encodings", err)
	}
}
