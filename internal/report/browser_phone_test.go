package report

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/finops-oss/finops/internal/browsertest"
)

// phoneTable is how a wide table looks in a phone's width.
type phoneTable struct {
	PageScrolls  bool   // the page itself is wider than the screen
	Scrolls      bool   // the table's box scrolls sideways (it is wider than the screen)
	Hint         string // the scroll hint's text, "" when none is displayed
	HintOnScreen bool   // the hint is inside the screen's width
	SavingsShown bool   // "Savings / month" is on the screen as the page opens
	SavingsAfter bool   // … and once the table is scrolled to it
}

// TestHTMLPhoneTablesScroll: issue #27, on a 390 px phone the
// recommendations table was cut off before the savings column with nothing
// saying there was more. The table's box scrolls sideways, a hint above it
// says so, and scrolled sideways the savings column comes on the screen. In a
// desktop window, where the table fits, there is no hint.
func TestHTMLPhoneTablesScroll(t *testing.T) {
	browser := browsertest.Start(t, 390, 844)
	abs := writeLayoutPage(t)
	const measure = `(() => {
	const table = document.querySelector('table.recs');
	const wrap = table.closest('.table-wrap');
	const width = document.documentElement.clientWidth;
	const savings = () => {
		const th = [...table.querySelectorAll('th')].find(th => th.textContent.trim() === 'Savings / month');
		const r = th.getBoundingClientRect();
		return r.left >= 0 && r.right <= width + 0.5;
	};
	const hint = table.closest('section').querySelector('.scroll-hint');
	const shown = hint !== null && hint.offsetHeight > 0 && getComputedStyle(hint).visibility !== 'hidden';
	const out = {
		PageScrolls: document.documentElement.scrollWidth > width + 0.5,
		Scrolls: getComputedStyle(wrap).overflowX !== 'visible' && wrap.scrollWidth > wrap.clientWidth + 0.5,
		Hint: shown ? hint.textContent.trim() : '',
		HintOnScreen: shown && hint.getBoundingClientRect().right <= width + 0.5,
		SavingsShown: savings(),
	};
	const th = [...table.querySelectorAll('th')].find(th => th.textContent.trim() === 'Savings / month');
	wrap.scrollLeft += th.getBoundingClientRect().left - wrap.getBoundingClientRect().left;
	out.SavingsAfter = savings();
	return out;
})()`
	for _, tc := range []struct {
		name          string
		width, height int64
		want          phoneTable
	}{
		{"phone", 390, 844, phoneTable{Scrolls: true, Hint: "Scroll the table sideways for the savings, confidence and reason →",
			HintOnScreen: true, SavingsShown: false, SavingsAfter: true}},
		{"desktop", 1400, 900, phoneTable{SavingsShown: true, SavingsAfter: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []chromedp.EmulateViewportOption
			if tc.width < 600 {
				opts = append(opts, chromedp.EmulateMobile)
			}
			got := browsertest.Eval[phoneTable](t, openAt(t, browser, abs, tc.width, tc.height, opts...), measure)
			if got != tc.want {
				t.Errorf("at %d px: %+v\nwant %+v", tc.width, got, tc.want)
			}
		})
	}
}
