package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

func renderReview(t *testing.T, rv *analysis.Review) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteReviewHTML(&buf, rv, testMeta()); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestWriteReviewHTMLContent(t *testing.T) {
	page := renderReview(t, reviewFixture(t))
	for _, want := range []string{
		"Rent-or-buy review <span class=\"label\">2026Q1</span>",
		"2026-01-01 – 2026-03-31",
		"compared with 2025Q4",
		`<span class="verdict verdict-buy">Buy</span>`,
		"¥3,792.00",   // owned per GPU-month
		"¥7,000.00",   // rent (monthly)
		"¥6,416.00",   // savings a month, both GPUs
		"¥240,000.00", // purchase cost
		"34.6%",       // breakeven
		"60.0%",       // observed
		"50.0%",       // previous quarter
		"19.3 months", // payback
		"¥3,000.00",   // depreciation
		"¥292.00",     // power
		"depreciation 2 years", "48.3%", "price −20%", "40.1%",
		"<svg class=\"bars\"",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Offline and inert: no scripts, nothing loaded (the hostile model's
	// "http://evil" is escaped text, not a reference).
	for _, bad := range []string{"<script", "src=", "href=", "<link", "url(", "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
}

func TestWriteReviewHTMLEscapesHostileData(t *testing.T) {
	page := renderReview(t, reviewFixture(t))
	if strings.Contains(page, "<script>alert(1)") || strings.Contains(page, "\x1b") {
		t.Error("hostile GPU model reached the page unescaped")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("hostile GPU model not shown escaped")
	}
}

func TestWriteReviewHTMLInProgress(t *testing.T) {
	asOf := time.Date(2026, 2, 15, 0, 0, 0, 0, time.UTC)
	rv := &analysis.Review{Quarter: analysis.Period{Label: "2026Q1", TimeZone: "UTC",
		Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)},
		Currency: "CNY", InProgress: true, AsOf: &asOf}
	page := renderReview(t, rv)
	if !strings.Contains(page, "2026Q1 is still in progress: this review covers it up to 2026-02-15 00:00") ||
		!strings.Contains(page, "No GPU model was billed in this quarter.") {
		t.Error("in-progress, empty review: note or empty state missing")
	}
}
