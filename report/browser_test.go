package report

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

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/internal/testenv"
	"github.com/finops-oss/finops/templates"
)

// The HTML report in a real browser: headless Chromium opens the file from
// disk with networking off (quality.md §Real parts), and the test checks what
// a reader would see: every chart drawn, nothing in the console, no request
// leaving the machine, and hostile labels shown as text, never run.

// chromiumPath finds headless Chromium: $FINOPS_CHROMIUM, else the usual names.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("FINOPS_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Missing(t, "chromium not found: install it with `apt-get install -y chromium` (or set FINOPS_CHROMIUM)")
	return ""
}

// browserPage is what the browser saw of one page.
type browserPage struct {
	Charts   map[string]int // chart container id → drawn SVG/canvas elements inside it
	Pwned    string         // typeof window.__pwned
	Banner   bool           // the no-charts banner is shown
	Problems []string       // console errors, exceptions, network requests
}

// openPages opens each HTML file in one headless Chromium, one tab each, and
// reports what it found. The browser runs behind a proxy that does not exist
// and a resolver that resolves nothing, and any request that is not for the
// file itself is reported as a problem.
func openPages(t *testing.T, files ...string) []browserPage {
	t.Helper()
	browser := startBrowser(t, 1280, 1600)
	var out []browserPage
	for _, file := range files {
		out = append(out, openPage(t, browser, file))
	}
	return out
}

// startBrowser starts headless Chromium with a window of w × h CSS pixels and
// networking off; it is closed when the test ends.
func startBrowser(t *testing.T, w, h int) context.Context {
	t.Helper()
	exe := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("metrics-recording-only", true),
		// Networking off: every request would go to a dead proxy, and no
		// name resolves. The file itself is read from disk.
		chromedp.ProxyServer("127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.WindowSize(w, h),
	)
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(browser); err != nil { // start the browser
		t.Fatalf("start chromium: %v", err)
	}
	return browser
}

func openPage(t *testing.T, browser context.Context, file string) browserPage {
	t.Helper()
	tab, cancel := chromedp.NewContext(browser)
	defer cancel()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	fileURL := (&url.URL{Scheme: "file", Path: abs}).String()

	var mu sync.Mutex
	var problems []string
	add := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	if err := chromedp.Listen(tab, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				add("console.%s: %s", ev.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				text += " " + d.Exception.Description
			}
			add("exception: %s", text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				add("log %s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; u != fileURL && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "about:") {
				add("network request: %s", u)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(fileURL)); err != nil {
		t.Fatalf("open %s: %v", file, err)
	}

	// Every chart container must hold a drawn SVG (the page renders with the
	// SVG renderer) or a canvas. Wait until each has shapes, up to a limit.
	const countShapes = `(() => {
		const out = {};
		document.querySelectorAll('.chart').forEach(el => {
			out[el.id] = el.querySelectorAll('svg path, svg rect, svg text, canvas').length;
		});
		return out;
	})()`
	waitCtx, cancelWait := context.WithTimeout(tab, 10*time.Second)
	_, _ = chromedp.Run(waitCtx, chromedp.Poll[bool](`(() => {
		const els = [...document.querySelectorAll('.chart')];
		return document.body.classList.contains('no-charts') ||
			els.every(el => el.querySelector('svg path, svg rect, canvas') !== null);
	})()`, chromedp.WithPollingInterval(50*time.Millisecond)))
	cancelWait()

	var p browserPage
	if p.Charts, err = chromedp.Run(tab, chromedp.Evaluate[map[string]int](countShapes)); err != nil {
		t.Fatal(err)
	}
	if p.Pwned, err = chromedp.Run(tab, chromedp.Evaluate[string](`typeof window.__pwned`)); err != nil {
		t.Fatal(err)
	}
	if p.Banner, err = chromedp.Run(tab, chromedp.Evaluate[bool](`document.querySelector('.banner') !== null`)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	p.Problems = slices.Clone(problems)
	mu.Unlock()
	return p
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
		t.Fatal("templates/assets/echarts.min.js is committed; restore it (git checkout templates/assets)")
	}
	chromiumPath(t) // skip early, before rendering
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
