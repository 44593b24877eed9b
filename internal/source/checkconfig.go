package source

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/sanitize"
)

// CheckConfig is the config.Check of what the sources' settings name that
// ingest owns: billing formats, column mappings (built-in ones too) and
// their encodings, nvidia-smi field lists; and no token parameter in the
// addresses of the S3, Azure and GCS endpoints or link_base_url
// (sanitize's rule). The CLI runs it at load,
// so its errors read as config's own.
func CheckConfig(c *config.Config) []error {
	var errs []error
	// The formats a billing source may name: the registry's
	// (ingest.Format.ConfigKeys), never a list kept here.
	formats := ingest.BillingSourceFormats()
	for i, s := range c.Billing {
		if s.Mapping != "" {
			if _, ok := c.Mappings[s.Mapping]; !ok && !builtinMapping(s.Mapping) {
				errs = append(errs, fmt.Errorf("billing[%d]: mapping %q is not defined under mappings", i, s.Mapping))
			}
		}
		if s.Format != "" && !slices.Contains(formats, s.Format) {
			errs = append(errs, fmt.Errorf("billing[%d].format: %q is not one of %s (leave it out to detect the format from the header)",
				i, s.Format, strings.Join(formats, ", ")))
		}
	}
	for _, name := range sortedKeys(c.Mappings) {
		if _, err := ingest.NormalizeEncoding(c.Mappings[name].Encoding); err != nil {
			errs = append(errs, fmt.Errorf("mappings.%s.encoding: %w", name, err))
		}
	}
	for i, h := range c.Telemetry.NvidiaSMI {
		if _, err := SMIFields(h); err != nil {
			errs = append(errs, fmt.Errorf("utilization.nvidia_smi[%d].fields: %w", i, err))
		}
	}
	errs = append(errs, URLSecret("publish.s3.endpoint", c.Publish.S3.Endpoint))
	errs = append(errs, URLSecret("publish.link_base_url", c.Publish.LinkBaseURL))
	errs = append(errs, URLSecret("sources.azure.endpoint", c.Sources.Azure.Endpoint))
	errs = append(errs, URLSecret("sources.gcs.endpoint", c.Sources.GCS.Endpoint))
	return slices.DeleteFunc(errs, func(err error) bool { return err == nil })
}

// URLSecret refuses an http(s) address under key that carries a token
// parameter (sanitize.URL would redact it); one with a password, or no
// http(s) address at all, config itself refuses.
func URLSecret(key, s string) error {
	u, err := url.Parse(s)
	if s == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		sanitize.URL(s) == s {
		return nil
	}
	return fmt.Errorf("%s: must not contain credentials (a password or a token parameter): secrets come from environment variables or files", key)
}

func builtinMapping(name string) bool {
	return slices.ContainsFunc(ingest.BuiltinMappings(), func(m ingest.ColumnMapping) bool { return m.Name == name })
}

// SMIFields is the field list of the source's headerless logs; nil when
// none is given.
func SMIFields(h config.HostLog) ([]string, error) {
	if strings.TrimSpace(h.Fields) == "" {
		return nil, nil
	}
	return ingest.ParseSMIFields(h.Fields)
}

// ColumnMappings returns the configured rental mappings, named, in a stable
// order, ahead of the built-in ones.
func ColumnMappings(c *config.Config) ([]ingest.ColumnMapping, error) {
	var out []ingest.ColumnMapping
	for _, name := range sortedKeys(c.Mappings) {
		m := c.Mappings[name]
		cm := ingest.ColumnMapping{Name: name, Provider: m.Provider, Currency: m.Currency, Columns: m.Columns, Modes: m.Modes,
			Encoding: m.Encoding}
		if m.Timezone != "" {
			loc, err := time.LoadLocation(m.Timezone)
			if err != nil {
				return nil, fmt.Errorf("config: mappings.%s.timezone: %w", name, err)
			}
			cm.Location = loc
		}
		if err := cm.Validate(); err != nil {
			return nil, fmt.Errorf("config: mappings.%s: %w", name, err)
		}
		out = append(out, cm)
	}
	return append(out, ingest.BuiltinMappings()...), nil
}

// Catalog is the built-in GPU instance catalog extended by instance_types,
// whose gpu_model is read as a bill's is: an instance type declared with
// "A100-SXM4-80GB" bills the A100-80GB that other sources name.
func Catalog(c *config.Config) *gpu.Catalog {
	cat := gpu.NewCatalog()
	for _, it := range c.Instances {
		cat.Add(it.Name, gpu.Model(it.GPUModel), it.GPUCount)
	}
	return cat
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
