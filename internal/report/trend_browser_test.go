package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/browsertest"

	"github.com/finops-oss/finops/internal/templates"
)

// TestHTMLTrendInChromium: the trend chart (bars stacked by team and the
// idle line on one axis) draws in headless Chromium without errors, next to
// every other chart, on a page whose team and resource names are hostile.
func TestHTMLTrendInChromium(t *testing.T) {
	browsertest.Path(t) // skip early, before rendering
	path := filepath.Join(t.TempDir(), "trend.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeHTML(f, trendResult(t), testMeta(), templates.ECharts()); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	p := openPages(t, path)[0]
	if len(p.Problems) > 0 {
		t.Errorf("problems in the browser:\n%s", strings.Join(p.Problems, "\n"))
	}
	for _, id := range append(chartIDs, "chart-trend") {
		if p.Charts[id] == 0 {
			t.Errorf("chart %s did not render (%v)", id, p.Charts)
		}
	}
	if p.Pwned != "undefined" {
		t.Errorf("hostile data ran script: typeof window.__pwned = %s", p.Pwned)
	}
}
