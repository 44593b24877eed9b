package e2e

import (
	"testing"

	"github.com/finops-oss/finops/internal/browsertest"
)

// renderedPage is what Chromium made of one HTML file (internal/browsertest).
type renderedPage struct {
	charts   map[string]int // chart container id → drawn SVG/canvas elements in it
	problems []string       // console errors, uncaught exceptions, network requests
	// trendWeeks are the week labels on the drawn trend chart's axis, as
	// ECharts holds them (without an anomaly mark); nil when there is none.
	trendWeeks []string
}

// renderPages opens each file in one headless Chromium, a tab each.
func renderPages(t *testing.T, files ...string) []renderedPage {
	t.Helper()
	browser := browsertest.Start(t, 1280, 1600)
	const weeks = `(() => { const el = document.getElementById('chart-trend');
		const c = el && window.echarts && echarts.getInstanceByDom(el);
		return c ? c.getOption().xAxis[0].data.map(String).map(l => l.replace(/[^0-9W-]/g, '')) : []; })()`
	var out []renderedPage
	for _, f := range files {
		p := browsertest.Open(t, browser, f)
		out = append(out, renderedPage{charts: p.Charts, problems: p.Problems,
			trendWeeks: browsertest.Eval[[]string](t, p.Tab, weeks)})
	}
	return out
}
