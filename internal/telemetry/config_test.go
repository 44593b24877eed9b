package telemetry

import (
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/config"
)

// TestCheckConfig: a Prometheus address that is not http(s) is refused at
// load, shown with its password redacted (moved from config with the check).
func TestCheckConfig(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"utilization:\n  prometheus:\n    - url: prom:9090\n", "want http(s)://"},
		{"utilization: {prometheus: [{url: 'ftp://reader:hunter2@prom:9090/'}]}", `utilization.prometheus[0].url: want http(s)://host:port, got "ftp://reader:xxxxx@prom:9090/"`},
	} {
		_, err := config.Parse("f.yaml", []byte(tc.yaml), CheckConfig)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: err = %v, want it to say %q", tc.yaml, err, tc.want)
		}
	}
	if _, err := config.Parse("f.yaml", []byte("utilization: {prometheus: [{url: 'https://p:9090'}]}"), CheckConfig); err != nil {
		t.Errorf("an https address: %v", err)
	}
}
