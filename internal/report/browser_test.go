package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/browsertest"
	"github.com/finops-oss/finops/internal/templates"
)

// The HTML report in a real browser: headless Chromium opens the file from
// disk with networking off (quality.md §Real parts), and the test checks what
// a reader would see: every chart drawn, nothing in the console, no request
// leaving the machine, and hostile labels shown as text, never run.

// browserPage is what the browser saw of one page.
type browserPage struct {
	Charts   map[string]int // chart container id → drawn SVG/canvas elements inside it
	Pwned    string         // typeof window.__pwned
	Banner   bool           // the no-charts banner is shown
	Problems []string       // console errors, exceptions, network requests
}

// openPages opens each HTML file in one headless Chromium, one tab each, and
// reports what it found (internal/browsertest: networking off, and any
// request that is not for the file itself reported as a problem).
func openPages(t *testing.T, files ...string) []browserPage {
	t.Helper()
	browser := browsertest.Start(t, 1280, 1600)
	var out []browserPage
	for _, file := range files {
		p := browsertest.Open(t, browser, file)
		out = append(out, browserPage{Charts: p.Charts, Problems: p.Problems,
			Pwned:  browsertest.Eval[string](t, p.Tab, `typeof window.__pwned`),
			Banner: browsertest.Eval[bool](t, p.Tab, `document.querySelector('.banner') !== null`)})
	}
	return out
}

// hostileResult is handResult with labels that try every way out of their
// context: closing the script element, the go-echarts function marker, an
// event handler, and an attribute break-out. Each would set window.__pwned.
func hostileResult(t *testing.T) *analysis.Result {
	r := handResult(t)
	const (
		breakout = `</script><script>window.__pwned=1</script>`
		marker   = `__f__function(){window.__pwned=2}__f__`
		handler  = `<img src=x onerror="window.__pwned=3">`
		attr     = `" onmouseover="window.__pwned=4" x="`
	)
	r.ByTeam[1].Team = breakout + marker
	r.ByResource[1].ResourceID = handler + breakout
	r.ByResource[1].Team = breakout + marker
	r.Tasks[0].Task = marker + attr
	r.TaskDaily[0].Task, r.TaskDaily[1].Task, r.TaskDaily[2].Task = r.Tasks[0].Task, r.Tasks[0].Task, r.Tasks[0].Task
	r.Tasks[0].Unit = breakout
	for i := range r.Daily {
		if r.Daily[i].Team == hostileFormula {
			r.Daily[i].Team = breakout + marker
		}
	}
	r.Daily[0].GPUModel = handler
	for i := range r.HourlyUtil {
		if r.HourlyUtil[i].ResourceID == hostileScript {
			r.HourlyUtil[i].ResourceID = handler + breakout
			r.HourlyUtil[i].GPU = marker
		}
	}
	r.Findings[0].Text = handler + breakout
	r.Recommendations[1].Reason = attr + breakout
	r.DataQuality.Warnings = append(r.DataQuality.Warnings, breakout+handler)
	r.Period.Label = breakout
	// A rollup's shard names come from --name or file names (rollup package).
	r.Shards = []analysis.Shard{{Name: breakout + handler, Period: attr, Currency: "USD", Cost: 1, GPUHoursBilled: 1, Incomplete: true}}
	return r
}

func TestHTMLInChromium(t *testing.T) {
	lib := templates.ECharts()
	if lib == nil {
		t.Fatal("internal/templates/assets/echarts.min.js is committed; restore it (git checkout internal/templates/assets)")
	}
	browsertest.Path(t) // skip early, before rendering
	dir := t.TempDir()
	write := func(name string, r *analysis.Result, echarts []byte) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		meta := testMeta()
		meta.Team = `<script>window.__pwned=5</script>`
		if err := writeHTML(f, r, meta, echarts); err != nil {
			t.Fatal(err)
		}
		return path
	}
	pages := openPages(t,
		write("report.html", handResult(t), lib),
		write("hostile.html", hostileResult(t), lib),
		write("no-library.html", handResult(t), nil),
	)

	for i, name := range []string{"report", "hostile"} {
		p := pages[i]
		t.Run(name, func(t *testing.T) {
			if len(p.Problems) > 0 {
				t.Errorf("problems in the browser:\n%s", strings.Join(p.Problems, "\n"))
			}
			for _, id := range chartIDs {
				if p.Charts[id] == 0 {
					t.Errorf("chart %s did not render (%v)", id, p.Charts)
				}
			}
			if len(p.Charts) != len(chartIDs) {
				t.Errorf("chart containers = %v, want %v", p.Charts, chartIDs)
			}
			if p.Pwned != "undefined" {
				t.Errorf("hostile data ran script: typeof window.__pwned = %s", p.Pwned)
			}
			if p.Banner {
				t.Error("no-charts banner shown although the library is inlined")
			}
		})
	}
	t.Run("without library", func(t *testing.T) {
		p := pages[2]
		if !p.Banner {
			t.Error("no banner when the page has no chart library")
		}
		if len(p.Problems) > 0 {
			t.Errorf("problems in the browser:\n%s", strings.Join(p.Problems, "\n"))
		}
	})
}
