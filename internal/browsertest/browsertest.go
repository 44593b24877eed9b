// Package browsertest opens the HTML pages finops writes in a real headless
// Chromium, offline (quality.md §Real parts), and says what a reader would
// see: which charts were drawn, and every console error, uncaught exception,
// browser log error and network request the page made. The report's own
// tests and e2e's tests of published pages share it. Only tests
// import it.
package browsertest

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
	"github.com/finops-oss/finops/internal/testenv"
)

// Path finds headless Chromium: $FINOPS_CHROMIUM, else the usual names.
// Where there is none the test ends as a missing part (internal/testenv).
func Path(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("FINOPS_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Missing(tb, "chromium not found: install it with `apt-get install -y chromium` (or set FINOPS_CHROMIUM)")
	return ""
}

// Start starts headless Chromium with a window of w × h CSS pixels and
// networking off: every request would go to a dead proxy, and no name
// resolves; the pages are read from disk. It is closed when the test ends.
func Start(tb testing.TB, w, h int) context.Context {
	tb.Helper()
	exe := Path(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	tb.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.ProxyServer("127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.WindowSize(w, h),
	)
	tb.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	tb.Cleanup(cancelBrowser)
	if err := chromedp.Do(browser); err != nil { // start the browser
		tb.Fatalf("start chromium: %v", err)
	}
	return browser
}

// Page is what the browser made of one HTML file.
type Page struct {
	// Tab is the page's tab, still open (until the test ends) for what a
	// test reads of it besides the charts (Eval).
	Tab context.Context
	// Charts maps each chart container's id (class "chart") to the drawn
	// SVG or canvas elements inside it.
	Charts map[string]int
	// Problems are the console errors and failed assertions, uncaught
	// exceptions, browser log errors and network requests other than
	// for the file itself, up to when the charts were counted.
	Problems []string
}

// Open opens file in a new tab of browser and waits, up to a limit, until
// every chart container holds shapes (or the page shows its no-charts
// banner), then counts them: a chart still empty is the test's failure to
// report, not Open's.
func Open(tb testing.TB, browser context.Context, file string) Page {
	tb.Helper()
	tab, cancel := chromedp.NewContext(browser)
	tb.Cleanup(cancel)
	abs, err := filepath.Abs(file)
	if err != nil {
		tb.Fatal(err)
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
		tb.Fatal(err)
	}
	if _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); err != nil {
		tb.Fatal(err)
	}
	if _, err := chromedp.Call(tab, log.Enable, cdp.Empty{}); err != nil {
		tb.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(fileURL)); err != nil {
		tb.Fatalf("open %s: %v", file, err)
	}

	// Every chart container must hold a drawn SVG (the pages render with
	// the SVG renderer) or a canvas. Charts draw after load.
	waitCtx, cancelWait := context.WithTimeout(tab, 10*time.Second)
	_, _ = chromedp.Run(waitCtx, chromedp.Poll[bool](`(() => {
		const els = [...document.querySelectorAll('.chart')];
		return document.body.classList.contains('no-charts') ||
			els.every(el => el.querySelector('svg path, svg rect, canvas') !== null);
	})()`, chromedp.WithPollingInterval(50*time.Millisecond)))
	cancelWait()

	p := Page{Tab: tab}
	p.Charts = Eval[map[string]int](tb, tab, `(() => {
		const out = {};
		document.querySelectorAll('.chart').forEach(el => {
			out[el.id] = el.querySelectorAll('svg path, svg rect, svg text, canvas').length;
		});
		return out;
	})()`)
	mu.Lock()
	p.Problems = slices.Clone(problems)
	mu.Unlock()
	return p
}

// Eval evaluates the script js in tab and returns its value as a T; an
// error ends the test.
func Eval[T any](tb testing.TB, tab context.Context, js string) T {
	tb.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](js))
	if err != nil {
		tb.Fatalf("evaluate %.60q: %v", js, err)
	}
	return v
}
