package cli

import (
	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/source"
)

// configuredIngest is what `finops ingest` reads when it is named no path:
// the config's sources, each with its own format, mapping, host and zone, as
// `finops run` reads them. The flags that describe named files would
// contradict them, so they are refused rather than applied to some.
func configuredIngest(c *config.Config, cmd *cobra.Command, replace bool) ([]source.Spec, error) {
	for _, name := range []string{"format", "fields", "host", "tz", "currency", "at"} {
		// --format json is no file format but the results as JSON, and is
		// cleared before this.
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed && f.Value.String() != "" {
			return nil, usagef("--%s describes the files named on the command line; name them, or leave it out to import the config's sources as they are configured", name)
		}
	}
	specs, err := source.FromConfig(c)
	if err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		return nil, usagef("no paths and no sources configured: name the files to import, or add billing, utilization or tasks paths to the config (see finops.example.yaml)")
	}
	for i := range specs {
		specs[i].Replace = replace
	}
	return specs, nil
}
