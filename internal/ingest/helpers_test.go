package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops"
)

// testdata is where this package's fixtures live (see testdata/README).
func testdata(name string) string {
	return filepath.Join("..", "..", "testdata", "ingest", name)
}

// recSink keeps everything it is given.
type recSink struct {
	lines   []*finops.BillingLine
	samples []*finops.GPUSample
	tasks   []*finops.TaskRun
}

func (s *recSink) Billing(l *finops.BillingLine) error { s.lines = append(s.lines, l); return nil }
func (s *recSink) Sample(x *finops.GPUSample) error    { s.samples = append(s.samples, x); return nil }
func (s *recSink) TaskRun(t *finops.TaskRun) error     { s.tasks = append(s.tasks, t); return nil }

// countSink keeps nothing, for large or fuzzed inputs.
type countSink struct{ n int }

func (s *countSink) Billing(*finops.BillingLine) error { s.n++; return nil }
func (s *countSink) Sample(*finops.GPUSample) error    { s.n++; return nil }
func (s *countSink) TaskRun(*finops.TaskRun) error     { s.n++; return nil }

// parseFile opens a testdata file through Open and parses it.
func parseFile(t *testing.T, name string, opt Options) (*Summary, *recSink, error) {
	t.Helper()
	path := testdata(name)
	f, err := Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	if opt.Name == "" {
		opt.Name = path
	}
	sink := &recSink{}
	sum, err := Parse(context.Background(), f, opt, sink)
	return sum, sink, err
}

// mustParse is parseFile for inputs that must parse cleanly.
func mustParse(t *testing.T, name string, opt Options) (*Summary, *recSink) {
	t.Helper()
	sum, sink, err := parseFile(t, name, opt)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	if len(sum.Rejected) > 0 {
		t.Fatalf("parse %s: rejected %v", name, sum.Rejected)
	}
	return sum, sink
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantErrParts checks that err mentions every part (file name, line, field).
func wantErrParts(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
}
