package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// loadPriceCatalog appends the rows of the price_catalog file (a path
// relative to the config file) to c.Prices, so a dated catalog can be shared
// and refreshed apart from the config.
func (c *Config) loadPriceCatalog(configPath string) error {
	if c.PriceCatalog == "" {
		return nil
	}
	path := c.PriceCatalog
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(configPath), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("price_catalog: %w", err)
	}
	var cat struct {
		Prices []Price `yaml:"prices"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&cat); err != nil {
		return fmt.Errorf("price_catalog %s: %w", path, err)
	}
	c.Prices = append(c.Prices, cat.Prices...)
	return nil
}
