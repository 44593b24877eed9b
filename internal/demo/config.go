package demo

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/finops-oss/finops/internal/config"
	"go.yaml.in/yaml/v3"
)

// PriceAsOf is the as-of date of the demo's example price catalog.
const PriceAsOf = "2026-11-01"

func ptr(v float64) *float64 { return &v }

// config builds the finops.yaml that reads the generated files.
func (g *gen) config() *config.Config {
	telemetry := func(host, zone string) config.HostLog {
		return config.HostLog{Path: g.path("telemetry", host, "*.csv"), Host: host, Timezone: zone}
	}
	team := func(name string, budget float64) config.Team {
		return config.Team{Name: name, Tag: name, Leads: []string{name + "-lead@example.com"}, MonthlyBudget: ptr(budget)}
	}
	autodl := func(model string, hourly, monthly, spot *float64) config.Price {
		return config.Price{Provider: "AutoDL", GPUModel: model, Hourly: hourly, Monthly: monthly, Spot: spot, Currency: "CNY", AsOf: PriceAsOf}
	}
	return &config.Config{
		Database: g.path("finops.db"),
		Timezone: Zone,
		Currency: "CNY",
		FX:       map[string]string{"USD": "7.1"},
		Billing: []config.Source{
			{Path: g.path("billing", "autodl.csv"), Mapping: "autodl"},
			{Path: g.path("billing", "aws-focus.csv")},
		},
		Telemetry: config.Telemetry{NvidiaSMI: []config.HostLog{
			telemetry(HostA100, Zone),
			telemetry(Host4090, Zone),
			telemetry(HostL40S, Zone),
			telemetry(HostA10G, "UTC"),
		}},
		Tasks: []config.Source{{Path: g.path("tasks.csv")}},
		Resources: []config.Resource{
			{ID: ResA100, Hosts: []string{HostA100}, Team: "nlp"},
			{ID: Res4090, Hosts: []string{Host4090}, Team: "cv"},
			{ID: ResL40S, Hosts: []string{HostL40S}, Team: "search", Interruptible: true},
			{ID: ResA10G, Hosts: []string{HostA10G}, Team: "platform"},
		},
		Teams: []config.Team{
			team("nlp", 20000),
			team("cv", 1500),
			team("search", 2000),
			team("platform", 6000),
		},
		Prices: []config.Price{
			autodl("A100-80GB", ptr(15.00), ptr(7000), ptr(6.0)),
			autodl("RTX 4090", ptr(2.00), ptr(1200), nil),
			autodl("L40S", ptr(4.50), ptr(2600), ptr(1.80)),
			{Provider: "AWS", GPUModel: "A10G", Hourly: ptr(1.006), Monthly: ptr(520), Spot: ptr(0.40), Currency: "USD", AsOf: PriceAsOf},
		},
	}
}

// writeConfig writes dir/finops.yaml: only the keys the demo sets, in the
// order of the config file's documentation. It is built as a YAML node tree
// rather than by marshalling config.Config whole, because config.Duration has
// no MarshalYAML (zero thresholds would come out as maps that do not parse
// back) and because empty keys would only clutter the file.
func (g *gen) writeConfig(c *config.Config) error {
	root := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key, comment string, v any) error {
		var n yaml.Node
		if err := n.Encode(v); err != nil {
			return fmt.Errorf("finops.yaml: %s: %w", key, err)
		}
		prune(&n)
		root.Content = append(root.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, HeadComment: comment}, &n)
		return nil
	}
	keys := []struct {
		key, comment string
		v            any
	}{
		{"database", "the demo's own database: `finops --config THIS report` reads it", c.Database},
		{"timezone", "", c.Timezone},
		{"currency", "", c.Currency},
		{"fx", "1 USD = 7.1 CNY (example rate)", c.FX},
		{"billing", "", c.Billing},
		{"utilization", "nvidia-smi logs are in each host's local time", c.Telemetry},
		{"tasks", "", c.Tasks},
		{"resources", "", c.Resources},
		{"teams", "monthly budgets in the reporting currency", c.Teams},
		{"prices", "EXAMPLE prices as of " + PriceAsOf + ", per GPU (hourly and spot per GPU-hour, monthly per GPU-month): not quotes", c.Prices},
	}
	for _, k := range keys {
		if err := add(k.key, k.comment, k.v); err != nil {
			return err
		}
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root},
		HeadComment: fmt.Sprintf("finops demo fleet, written by `finops demo` (seed %d, report week %s).\n"+
			"Every path points at a generated file; edit and reuse freely.", g.seed, g.week.Label)}

	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("finops.yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("finops.yaml: %w", err)
	}
	p := filepath.Join(g.dir, "finops.yaml")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		return err
	}
	g.files = append(g.files, p)
	return nil
}

// prune drops mapping entries whose value is null, an empty string, false or
// an empty sequence or mapping: the config's defaults.
func prune(n *yaml.Node) {
	for _, c := range n.Content {
		prune(c)
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	kept := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		if v := n.Content[i+1]; !empty(v) {
			kept = append(kept, n.Content[i], v)
		}
	}
	n.Content = kept
}

func empty(v *yaml.Node) bool {
	switch v.Kind {
	case yaml.ScalarNode:
		return v.Tag == "!!null" || (v.Tag == "!!str" && v.Value == "") || (v.Tag == "!!bool" && v.Value == "false")
	case yaml.SequenceNode, yaml.MappingNode:
		return len(v.Content) == 0
	}
	return false
}
