package report

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/browsertest"
)

// layoutResult is handResult with what made the demo's recommendations table
// too wide: instance ids of one long hex part and sentence-long reasons.
func layoutResult(t *testing.T) *analysis.Result {
	r := handResult(t)
	const reason = "busy 420 h/month per GPU but billed 720 h/month; stopping it when idle saves ¥1,843/month"
	for i := range r.Recommendations {
		r.Recommendations[i].Reason = reason
	}
	r.Recommendations[1].ResourceID = "i-0a10g00000000001"
	r.ByResource[1].ResourceID = "i-0a10g00000000001"
	r.ByResource[1].Team = "platform" // the hand result's formula-like team name is one 40-character word
	return r
}

// writeLayoutPage writes the HTML page of layoutResult, without the chart
// library (the tables do not depend on it), and returns its absolute path.
func writeLayoutPage(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeHTML(f, layoutResult(t), testMeta(), nil); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// openAt opens the page at the absolute path in a new tab of browser whose
// viewport is w × h CSS pixels; the tab closes when t ends.
func openAt(t *testing.T, browser context.Context, path string, w, h int64, opts ...chromedp.EmulateViewportOption) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	if err := chromedp.Do(tab, chromedp.EmulateViewport(w, h, opts...), chromedp.Navigate("file://"+path)); err != nil {
		t.Fatal(err)
	}
	return tab
}

// recsLayout measures the recommendations table as the browser laid it out.
type recsLayout struct {
	Fits         bool     // the table is no wider than its box: nothing scrolls off
	Visible      []string // header cells fully inside the page's width
	Hidden       []string // header cells not displayed
	IDPartBroken bool     // the id's hex part was split across lines
}

// measureTable is the script that measures the first table matching sel.
func measureTable(sel string) string {
	return `(() => {
	const table = document.querySelector('` + sel + `');
	const wrap = table.parentElement;
	const right = Math.min(wrap.getBoundingClientRect().right, document.documentElement.clientWidth) + 0.5;
	const out = {Fits: table.scrollWidth <= wrap.clientWidth + 0.5, Visible: [], Hidden: [], IDPartBroken: false};
	table.querySelectorAll('th').forEach(th => {
		const name = th.firstChild.textContent.trim();
		if (th.offsetWidth === 0) { out.Hidden.push(name); return; }
		if (th.getBoundingClientRect().right <= right) { out.Visible.push(name); }
	});
	table.querySelectorAll('td.id').forEach(td => {
		const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
		for (let n = walker.nextNode(); n; n = walker.nextNode()) {
			const i = n.data.indexOf('0a10g');
			if (i < 0) { continue; }
			const range = document.createRange();
			range.setStart(n, i);
			range.setEnd(n, n.data.length);
			const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
			if (lines.size > 1) { out.IDPartBroken = true; }
		}
	});
	return out;
})()`
}

// TestHTMLRecommendationsFit opens the page in a 1,400 px window and in print
// (A4 portrait is about 700 CSS px between the margins): every column of the
// recommendations table, Confidence and Reason included, is on the screen,
// an instance id wraps only at its separators, and the print keeps Reason.
// It renders without the chart library: the tables do not depend on it.
func TestHTMLRecommendationsFit(t *testing.T) {
	browser := browsertest.Start(t, 1400, 900)
	tab := openAt(t, browser, writeLayoutPage(t), 1400, 900)
	screen, err := chromedp.Run(tab, chromedp.Evaluate[recsLayout](measureTable("table.recs")))
	if err != nil {
		t.Fatal(err)
	}
	// The first screen: the headline sentence and the key figures, each
	// saying its period, are above the fold.
	fold, err := chromedp.Run(tab, chromedp.Evaluate[bool](`(() => {
		const h = document.querySelector('.headline');
		const k = document.querySelector('.kpis');
		return h !== null && k !== null && k.getBoundingClientRect().bottom <= window.innerHeight &&
			[...k.querySelectorAll('.kpi')].every(c => c.querySelector('.kpi-period') !== null);
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if !fold {
		t.Error("at 1,400 × 900: the headline and the KPI cards with their periods are not on the first screen")
	}
	if err := chromedp.Do(tab, chromedp.EmulateViewport(700, 1000)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
		t.Fatal(err)
	}
	print, err := chromedp.Run(tab, chromedp.Evaluate[recsLayout](measureTable("table.recs")))
	if err != nil {
		t.Fatal(err)
	}

	all := []string{"Id", "Resource", "Team", "GPU", "Action", "Current / month", "Recommended / month", "Savings / month",
		"Active h / month / GPU", "Breakeven h / month", "Confidence", "Reason"}
	if !screen.Fits || len(screen.Visible) != len(all) {
		t.Errorf("at 1,400 px: fits %v, visible columns %q, want all of %q", screen.Fits, screen.Visible, all)
	}
	if screen.IDPartBroken {
		t.Error("at 1,400 px: the id i-0a10g00000000001 breaks inside its hex part")
	}
	wantPrint := []string{"Id", "Resource", "Team", "GPU", "Action", "Current / month", "Recommended / month", "Savings / month",
		"Confidence", "Reason"}
	if !print.Fits || len(print.Visible) != len(wantPrint) || print.Visible[len(print.Visible)-1] != "Reason" {
		t.Errorf("in print: fits %v, visible columns %q, want %q", print.Fits, print.Visible, wantPrint)
	}
	if len(print.Hidden) != 2 {
		t.Errorf("in print: hidden columns %q, want the two per-GPU hour columns", print.Hidden)
	}

	// The review page's verdict table, in the same window.
	review := filepath.Join(t.TempDir(), "review.html")
	rf, err := os.Create(review)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteReviewHTML(rf, reviewFixture(t), testMeta()); err != nil {
		t.Fatal(err)
	}
	rf.Close()
	if _, err := chromedp.Call(tab, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1400, 900), chromedp.Navigate("file://"+review)); err != nil {
		t.Fatal(err)
	}
	verdicts, err := chromedp.Run(tab, chromedp.Evaluate[recsLayout](measureTable("table.verdicts")))
	if err != nil {
		t.Fatal(err)
	}
	if !verdicts.Fits || len(verdicts.Visible) != 12 {
		t.Errorf("review at 1,400 px: fits %v, visible columns %q, want all 12", verdicts.Fits, verdicts.Visible)
	}
}
