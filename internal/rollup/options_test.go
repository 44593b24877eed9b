package rollup

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/finops-oss/finops/internal/analysis"
)

// TestNewOptions: the config's fx rates and the --rate flags together; a
// malformed flag is a refusal naming it.
func TestNewOptions(t *testing.T) {
	fx := map[string]decimal.Decimal{"USD": decimal.RequireFromString("7.1")}
	opt, err := NewOptions("CNY", fx, []string{"EUR/CNY=7.7"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range opt.Rates {
		got = append(got, r.String())
	}
	// One USD is 7.1 CNY (the config's fx), one EUR 7.7 (the flag).
	if opt.Currency != "CNY" || strings.Join(got, " ") != "USD/CNY=7.1 EUR/CNY=7.7" {
		t.Errorf("options %s %q", opt.Currency, got)
	}
	if _, err := NewOptions("CNY", nil, []string{"EUR-CNY"}); !IsRefusal(err) || !strings.Contains(err.Error(), `--rate "EUR-CNY"`) {
		t.Errorf("a malformed rate: %v, want a refusal naming it", err)
	}
}

// TestCheckOut: a rollup whose files (finops-<period>.<format>) would land
// on a shard it reads is refused; another folder, or another format, is not.
func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	shards := []Shard{{Name: "eu", Path: filepath.Join(dir, "finops-2026-W48.json")}}
	res := &analysis.Result{Period: analysis.Period{Label: "2026-W48"}}
	for _, tc := range []struct {
		name    string
		dir     string
		formats []string
		refused bool
	}{
		{"over the shard", dir, []string{"xlsx", "json"}, true},
		{"another folder", t.TempDir(), []string{"json"}, false},
		{"another format", dir, []string{"html"}, false},
	} {
		err := CheckOut(tc.dir, shards, res, tc.formats)
		if IsRefusal(err) != tc.refused || (err != nil) != tc.refused {
			t.Errorf("%s: %v, want refused %v", tc.name, err, tc.refused)
		}
	}
}
