package plan

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: scenario files are YAML users write. Any bytes give a file
// that plans (or reports its problems), or an error naming the file, never
// a panic; problems found at a place name a line > 0.
func FuzzParse(f *testing.F) {
	for _, n := range []string{"scenarios.example.yaml", filepath.Join("TestWorkedCase", "scenarios.yaml")} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"scenarios: [{name: a, model: 7B, deadline_day: 3}]",
		"scenarios: [{name: a, params: -7B}]\nprices: [{provider: p}]",
		"scenarios:\n  - name: x\n    gpus: many\n", "a: &a [*a, *a]\nb: *a", "scenarios: {}", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			return
		}
		const name = "fuzz-scenarios.yaml"
		file, err := Parse(name, data)
		if err == nil {
			var r *Result
			if r, err = Plan(file, Options{}); err == nil {
				if err := WriteJSON(io.Discard, r); err != nil {
					t.Fatalf("WriteJSON: %v", err)
				}
				return
			}
		}
		if !strings.HasPrefix(err.Error(), "plan: ") || !strings.Contains(err.Error(), name) {
			t.Fatalf("error does not name the file: %v", err)
		}
		var fe *FileError
		if errors.As(err, &fe) {
			for _, p := range fe.Problems {
				if p.Line < 0 || p.Msg == "" {
					t.Fatalf("problem %+v", p)
				}
			}
		}
	})
}

// FuzzParseCount: parameter and token counts ("7B", "6.74e9", "1_000") are
// never negative, NaN or infinite.
func FuzzParseCount(f *testing.F) {
	for _, s := range []string{"7B", "6.74e9", "500M", "2T", "200k", "1_000_000", "-1", "NaN", "1e308T", " 3 G "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseCount(s); err == nil && (v < 0 || math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("ParseCount(%q) = %v", s, v)
		}
	})
}
