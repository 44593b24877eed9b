package prom

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/docanchor"
	"github.com/finops-oss/finops/internal/ingest/dcgm"
)

type countSamples struct{ n int }

func (s *countSamples) Billing(*finops.BillingLine) error { return nil }
func (s *countSamples) Sample(*finops.GPUSample) error    { s.n++; return nil }
func (s *countSamples) TaskRun(*finops.TaskRun) error     { return nil }

// TestDialectRegistryFacts: every exporter of the table has a name (once),
// its project, every default query, a docs anchor that exists and a sample
// scrape that reads as its scrape format, yields samples and holds a metric
// its utilization query reads; exactly one is the default, and
// DefaultQueries answers from the table.
func TestDialectRegistryFacts(t *testing.T) {
	anchors, err := docanchor.Anchors(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	defaults := 0
	seen := map[string]bool{}
	for _, d := range Dialects() {
		if d.Name == "" || seen[d.Name] || d.Exporter == "" || d.ScrapeFormat == "" || d.Sample == "" {
			t.Fatalf("dialect %+v lacks a fact (name once, exporter, scrape format, sample)", d)
		}
		seen[d.Name] = true
		if d.Default {
			defaults++
		}
		checkDialect(t, d, anchors)
	}
	if defaults != 1 {
		t.Errorf("%d default dialects, want exactly one", defaults)
	}
	def, _ := DefaultQueries(ExporterDCGM)
	if q, err := DefaultQueries(""); err != nil || q != def {
		t.Errorf("DefaultQueries(\"\") = %+v, %v; want the default dialect's", q, err)
	}
	if _, err := DefaultQueries("nope"); err == nil || !strings.Contains(err.Error(), strings.Join(DialectNames(), " or ")) {
		t.Errorf("an unknown exporter: %v, want one naming %v", err, DialectNames())
	}
}

// checkDialect checks one dialect's queries, docs anchor and sample scrape.
func checkDialect(t *testing.T, d Dialect, anchors map[string]bool) {
	t.Helper()
	metric := regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	if d.Queries.Util == "" || d.Queries.MemUsed == "" || d.Queries.MemTotal == "" || d.Queries.Power == "" {
		t.Errorf("dialect %s: a default query is missing: %+v", d.Name, d.Queries)
	}
	if !anchors[d.Doc] {
		t.Errorf("dialect %s: docs anchor %q names no heading", d.Name, d.Doc)
	}
	if q, err := DefaultQueries(d.Name); err != nil || q != d.Queries {
		t.Errorf("DefaultQueries(%q) = %+v, %v; the table says %+v", d.Name, q, err, d.Queries)
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "telemetry", d.Sample))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(metric.FindAllString(d.Queries.Util, -1), func(m string) bool {
		return strings.Contains(string(raw), m+"{")
	}) {
		t.Errorf("dialect %s: its sample %s holds no metric of its Util query %q", d.Name, d.Sample, d.Queries.Util)
	}
	var sink countSamples
	sum, err := dcgm.Parse(context.Background(), strings.NewReader(string(raw)),
		dcgm.Options{Name: d.Sample, Host: "h", ScrapeTime: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}, &sink)
	if err != nil || sum.Format != d.ScrapeFormat || sink.n == 0 {
		t.Errorf("dialect %s: sample %s read as %q with %d samples (%v), want %q", d.Name, d.Sample, sum.Format, sink.n, err, d.ScrapeFormat)
	}
}
