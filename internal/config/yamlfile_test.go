package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/capped"
)

// bigYAML is a valid config padded with comments to size bytes: only its
// size is wrong.
func bigYAML(size int) []byte {
	b := []byte("currency: CNY\n")
	line := "# " + strings.Repeat("x", 77) + "\n"
	for len(b)+len(line) <= size {
		b = append(b, line...)
	}
	return append(b, strings.Repeat("#", size-len(b))...)
}

// A config or price catalog over 4 MiB is refused by name, size and limit;
// one of exactly 4 MiB loads. /dev/zero (an endless file whose size reads 0)
// is refused from its stat, as a device (TestConfigFileNotRegular).
func TestConfigFileSizeCap(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	at := write("at.yaml", bigYAML(4<<20))
	if _, err := Load(at, true, capped.ReadRegular); err != nil {
		t.Errorf("a config of exactly 4 MiB: %v", err)
	}
	// 5 MiB + 1 byte: "5.0 MiB" by hand (5,242,881 / 1,048,576 = 5.000001).
	over := write("over.yaml", bigYAML(5<<20+1))
	_, err := Load(over, true, capped.ReadRegular)
	if err == nil || !strings.Contains(err.Error(), over+" is 5.0 MiB, over the 4 MiB limit") {
		t.Errorf("5 MiB config: err = %v", err)
	}
	cfg := write("finops.yaml", []byte("price_catalog: prices.yaml\n"))
	write("prices.yaml", bigYAML(4<<20+1))
	_, err = Load(cfg, true, capped.ReadRegular)
	if err == nil || !strings.Contains(err.Error(), "price_catalog: "+filepath.Join(dir, "prices.yaml")+" is 4.0 MiB, over the 4 MiB limit") {
		t.Errorf("large price catalog: err = %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		write("zero.yaml", []byte("price_catalog: /dev/zero\n"))
		start := time.Now()
		_, err = Load(filepath.Join(dir, "zero.yaml"), true, capped.ReadRegular)
		if err == nil || !strings.Contains(err.Error(), "price_catalog: /dev/zero: a character device, not a regular file") {
			t.Errorf("price_catalog: /dev/zero: err = %v", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("/dev/zero took %v to refuse", d)
		}
	}
	// Parse, for callers holding the bytes already, keeps the same cap.
	if _, err := Parse("mem.yaml", bigYAML(4<<20+1)); err == nil || !strings.Contains(err.Error(), "over the 4 MiB limit") {
		t.Errorf("Parse of 4 MiB + 1: err = %v", err)
	}
}

// billionLaughs is testdata/yaml/billion-laughs.yaml with its last level
// under the key top.
func billionLaughs(t *testing.T, top string) string {
	b, err := os.ReadFile("../../testdata/yaml/billion-laughs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Replace(string(b), "i: &i", top+": &i", 1)
}

// An alias bomb is refused in well under a second, in the config and its
// price catalog: under keys the config does not have (unknown), and under
// keys it has (the wrong shape). Decoded into a type that could hold the
// expansion, yaml (go.yaml.in/yaml/v3) refuses it itself ("excessive
// aliasing"): decodeStrict keeps that guard, and walks the parsed tree
// without following aliases.
func TestConfigAliasBomb(t *testing.T) {
	for _, top := range []string{"i", "formats", "teams", "prices"} {
		start := time.Now()
		_, err := Parse("bomb.yaml", []byte(billionLaughs(t, top)))
		if err == nil || !strings.Contains(err.Error(), "bomb.yaml") {
			t.Errorf("%s: err = %v, want a refusal naming the file", top, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %v", top, d)
		}
	}
	var anything map[string]any
	if err := decodeStrict([]byte(billionLaughs(t, "i")), &anything); err == nil || !strings.Contains(err.Error(), "excessive aliasing") {
		t.Errorf("into map[string]any: err = %v, want yaml's excessive aliasing refusal", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(billionLaughs(t, "prices")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.yaml"), []byte("price_catalog: p.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(filepath.Join(dir, "f.yaml"), true, capped.ReadRegular); err == nil || !strings.Contains(err.Error(), "p.yaml") {
		t.Errorf("price catalog bomb: err = %v", err)
	}
}
