package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/finops-oss/finops/internal/analysis"
)

// reportSchema compiles docs/finops-report.schema.json, the documented shape
// of the JSON summary.
func reportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "docs", "finops-report.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(path)
	if err != nil {
		t.Fatalf("docs schema: %v", err)
	}
	return sch
}

func validateJSON(sch *jsonschema.Schema, raw []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(doc)
}

// TestJSONSchemaValidatesOutput checks the schema in docs/ against what
// finops writes: the demo's summary (e2e's golden, which TestGoldenDemo
// keeps equal to `finops demo`'s output), this package's hand-built result and
// an empty one. The schema forbids unknown keys, so a key added to the Result
// without documenting it fails here.
func TestJSONSchemaValidatesOutput(t *testing.T) {
	sch := reportSchema(t)
	demo, err := os.ReadFile(filepath.Join("..", "..", "e2e", "testdata", "TestGoldenDemo", "summary.json.golden"))
	if err != nil {
		t.Fatal(err)
	}
	_, hand := decodeJSON(t, handResult(t))
	_, empty := decodeJSON(t, emptyResult())
	for name, raw := range map[string][]byte{"demo": demo, "hand": hand, "empty": empty} {
		if err := validateJSON(sch, raw); err != nil {
			t.Errorf("%s output does not match docs/finops-report.schema.json: %v", name, err)
		}
	}
}

// TestJSONSchemaRefuses makes sure the schema is not vacuous: documents that
// break the contract fail.
func TestJSONSchemaRefuses(t *testing.T) {
	sch := reportSchema(t)
	_, good := decodeJSON(t, handResult(t))
	for _, tt := range []struct{ name, from, to string }{
		{"no schema_version", `"schema_version": "2",`, ``},
		{"unknown key", `"currency": "CNY",`, `"currency": "CNY", "extra": 1,`},
		{"money as string", `"cost": 4500,`, `"cost": "4500",`},
		{"bad action", `"action": "`, `"action": "x`},
	} {
		bad := strings.Replace(string(good), tt.from, tt.to, 1)
		if bad == string(good) {
			t.Fatalf("%s: %q not in the output", tt.name, tt.from)
		}
		if !json.Valid([]byte(bad)) {
			t.Fatalf("%s: edit broke the JSON", tt.name)
		}
		if err := validateJSON(sch, []byte(bad)); err == nil {
			t.Errorf("%s: schema accepted it", tt.name)
		}
	}
}

func emptyResult() *analysis.Result { return &analysis.Result{Currency: "USD"} }
