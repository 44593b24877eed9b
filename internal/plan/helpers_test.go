package plan

import (
	"strings"
	"testing"
)

// planYAML parses and plans a scenario file given as text.
func planYAML(t *testing.T, yaml string) *Result {
	t.Helper()
	f, err := Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	r, err := Plan(f, Options{})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return r
}

// planError parses and plans a scenario file that must be rejected.
func planError(t *testing.T, yaml string) string {
	t.Helper()
	f, err := Parse("test.yaml", []byte(yaml))
	if err == nil {
		_, err = Plan(f, Options{})
	}
	if err == nil {
		t.Fatalf("no error for:\n%s", yaml)
	}
	return err.Error()
}

func scenario(t *testing.T, r *Result, name string) ScenarioResult {
	t.Helper()
	for _, s := range r.Scenarios {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no scenario %q", name)
	return ScenarioResult{}
}

func gpuFit(t *testing.T, s ScenarioResult, model string) GPUFit {
	t.Helper()
	for _, g := range s.GPUs {
		if g.GPUModel == model {
			return g
		}
	}
	t.Fatalf("scenario %q: no GPU %q", s.Name, model)
	return GPUFit{}
}

func option(t *testing.T, s ScenarioResult, gpu, mode string) Option {
	t.Helper()
	for _, o := range s.Options {
		if o.GPUModel == gpu && o.Mode == mode {
			return o
		}
	}
	t.Fatalf("scenario %q: no %s %s option", s.Name, gpu, mode)
	return Option{}
}

func contains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}
