package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/finops-oss/finops/internal/testenv"
)

// A small copy of report/browser_test.go's way of opening a page: headless
// Chromium, networking off, and what a reader would see. That helper lives
// in another package's test file; this is only what these tests need.

// renderedPage is what Chromium made of one HTML file.
type renderedPage struct {
	charts   map[string]int // chart container id → drawn SVG/canvas elements in it
	problems []string       // console errors and uncaught exceptions
	// trendWeeks are the week labels on the drawn trend chart's axis, as
	// ECharts holds them (without an anomaly mark); nil when there is none.
	trendWeeks []string
}

// renderPages opens each file in one headless Chromium, a tab each.
func renderPages(t *testing.T, files ...string) []renderedPage {
	t.Helper()
	exe := os.Getenv("FINOPS_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if exe != "" {
			break
		}
		exe, _ = exec.LookPath(name)
	}
	if exe == "" {
		testenv.Missing(t, "chromium not found: install it with `apt-get install -y chromium` (or set FINOPS_CHROMIUM)")
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-extensions", true),
		// Networking off: the page must be whole offline.
		chromedp.ProxyServer("127.0.0.1:9"), chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.WindowSize(1280, 1600))
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	var out []renderedPage
	for _, f := range files {
		out = append(out, renderPage(t, browser, f))
	}
	return out
}

func renderPage(t *testing.T, browser context.Context, file string) renderedPage {
	t.Helper()
	tab, cancel := chromedp.NewContext(browser)
	defer cancel()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(tab, func(ev any) {
		var p string
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				p = "console.error: " + strings.Join(args, " ")
			}
		case *runtime.EventExceptionThrown:
			p = "exception: " + ev.ExceptionDetails.Text
			if ex := ev.ExceptionDetails.Exception; ex != nil {
				p += " " + ex.Description
			}
		}
		if p != "" {
			mu.Lock()
			problems = append(problems, p)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate((&url.URL{Scheme: "file", Path: abs}).String())); err != nil {
		t.Fatalf("open %s: %v", file, err)
	}
	// Charts draw after load: wait until each container holds shapes, or a
	// limit, then count what is there (a chart still empty is the failure).
	const allDrawn = `[...document.querySelectorAll('.chart')].every(el => el.querySelector('svg path, svg rect, canvas') !== null)`
	wait, cancelWait := context.WithTimeout(tab, 10*time.Second)
	_, _ = chromedp.Run(wait, chromedp.Poll[bool](allDrawn, chromedp.WithPollingInterval(50*time.Millisecond)))
	cancelWait()
	var p renderedPage
	const count = `(() => { const out = {}; document.querySelectorAll('.chart').forEach(el => {
		out[el.id] = el.querySelectorAll('svg path, svg rect, svg text, canvas').length; }); return out; })()`
	if p.charts, err = chromedp.Run(tab, chromedp.Evaluate[map[string]int](count)); err != nil {
		t.Fatal(fmt.Errorf("count the charts of %s: %w", file, err))
	}
	const weeks = `(() => { const el = document.getElementById('chart-trend');
		const c = el && window.echarts && echarts.getInstanceByDom(el);
		return c ? c.getOption().xAxis[0].data.map(String).map(l => l.replace(/[^0-9W-]/g, '')) : []; })()`
	if p.trendWeeks, err = chromedp.Run(tab, chromedp.Evaluate[[]string](weeks)); err != nil {
		t.Fatal(fmt.Errorf("read the trend of %s: %w", file, err))
	}
	mu.Lock()
	p.problems = slices.Clone(problems)
	mu.Unlock()
	return p
}
