package config

import (
	"fmt"
	"path/filepath"
)

// loadPriceCatalog appends the rows of the price_catalog file (a path
// relative to the config file) to c.Prices, so a dated catalog can be shared
// and refreshed apart from the config.
func (c *Config) loadPriceCatalog(read ReadFunc, configPath string) error {
	if c.PriceCatalog == "" {
		return nil
	}
	path := c.PriceCatalog
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(configPath), path)
	}
	b, err := readFile(read, path, "a price catalog")
	if err != nil {
		return fmt.Errorf("price_catalog: %w", err)
	}
	var cat struct {
		Prices []Price `yaml:"prices"`
	}
	if err := decodeStrict(b, &cat); err != nil {
		return fmt.Errorf("price_catalog %s: %w", path, err)
	}
	c.catalogPath, c.catalogFrom = path, len(c.Prices)
	c.Prices = append(c.Prices, cat.Prices...)
	return nil
}
