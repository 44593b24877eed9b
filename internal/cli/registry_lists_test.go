package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/ingest/prom"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/finops-oss/finops/internal/source"
)

// TestConfigListsFollowRegistries: the config accepts exactly the names the
// registries hold — every billing format a billing source may name
// (ingest.BillingSourceFormats), every exporter dialect (prom.DialectNames)
// and every chat channel kind (publish.WebhookKinds) — and its refusals
// list them. config, a leaf, keeps its own lists of exporters and channel
// kinds (it imports no registry); this test makes a registry entry it does
// not know fail. Billing formats are checked by source.CheckConfig.
func TestConfigListsFollowRegistries(t *testing.T) {
	parse := func(y string) error {
		_, err := config.Parse("c.yaml", []byte(y))
		return err
	}
	// Billing formats are checked by source.CheckConfig, which asks the registry.
	checkBilling := func(format string) error {
		c, err := config.Parse("c.yaml", []byte(fmt.Sprintf("billing:\n  - path: x.csv\n    format: %s\n", format)))
		if err != nil {
			return err
		}
		return errors.Join(source.CheckConfig(c)...)
	}
	for _, f := range ingest.BillingSourceFormats() {
		if err := checkBilling(f); err != nil {
			t.Errorf("billing format %q of the registry: the config's check refuses it: %v", f, err)
		}
	}
	if err := checkBilling("nope"); err == nil ||
		!strings.Contains(err.Error(), "is not one of "+strings.Join(ingest.BillingSourceFormats(), ", ")+" (") {
		t.Errorf("an unknown billing format: %v; want the registry's list %v", err, ingest.BillingSourceFormats())
	}
	for _, d := range prom.DialectNames() {
		if err := parse(fmt.Sprintf("utilization:\n  prometheus:\n    - url: http://p:9090\n      exporter: %s\n", d)); err != nil {
			t.Errorf("exporter %q of the registry: config refuses it: %v", d, err)
		}
	}
	if err := parse("utilization:\n  prometheus:\n    - url: http://p:9090\n      exporter: nope\n"); err == nil ||
		!strings.Contains(err.Error(), "is not "+strings.Join(prom.DialectNames(), " or ")) {
		t.Errorf("an unknown exporter: %v; want the registry's list %v", err, prom.DialectNames())
	}
	for _, k := range publish.WebhookKinds() {
		if err := parse(fmt.Sprintf("watch:\n  channels:\n    - type: %s\n      url_env: X\n", k)); err != nil &&
			strings.Contains(err.Error(), ".type") {
			t.Errorf("channel kind %q of the registry: config refuses it: %v", k, err)
		}
	}
}
