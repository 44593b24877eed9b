package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/finops-oss/finops/analysis"
	"github.com/finops-oss/finops/templates"
)

// fakeECharts stands in for the library; the marker lets tests find it.
const fakeECharts = `/*FAKE-ECHARTS*/window.echarts={init:function(){return{setOption:function(){},resize:function(){}}}};`

func renderHTML(t *testing.T, r *analysis.Result, echarts []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := writeHTML(&buf, r, testMeta(), echarts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

var (
	scriptSrc = regexp.MustCompile(`(?i)<script[^>]*\bsrc\s*=`)
	remoteRef = regexp.MustCompile(`(?i)\b(src|href)\s*=\s*["']?\s*(https?:)?//`)
)

func TestWriteHTMLChartsInlined(t *testing.T) {
	out := renderHTML(t, handResult(t), []byte(fakeECharts))
	for _, id := range []string{"chart-daily-team", "chart-daily-model", "chart-util-heatmap", "chart-idle-resource"} {
		if n := strings.Count(out, `id="`+id+`"`); n != 1 {
			t.Errorf("%d containers with id %s, want 1", n, id)
		}
	}
	if !strings.Contains(out, "/*FAKE-ECHARTS*/") {
		t.Error("the ECharts library is not inlined")
	}
	if strings.Contains(out, noChartsBanner) || strings.Contains(out, `class="banner"`) {
		t.Error("banner shown although the library is present")
	}
	if scriptSrc.MatchString(out) || remoteRef.MatchString(out) {
		t.Error("page loads a script or resource from elsewhere")
	}
	if strings.Contains(out, "go-echarts.github.io") || strings.Contains(out, "cdn") {
		t.Error("page references the go-echarts assets host")
	}
	// The chart options must be valid JSON holding one spec per container.
	specs := chartSpecsFrom(t, out)
	if len(specs) != 4 {
		t.Errorf("%d chart specs, want 4", len(specs))
	}
}

func TestWriteHTMLWithoutLibraryShowsBanner(t *testing.T) {
	out := renderHTML(t, handResult(t), nil)
	if !strings.Contains(out, noChartsBanner) {
		t.Errorf("no banner; want %q", noChartsBanner)
	}
	if i, j := strings.Index(out, noChartsBanner), strings.Index(out, "<main>"); i > j {
		t.Error("banner is not at the top of the page")
	}
	if strings.Contains(out, "<script") {
		t.Error("page without the library still has scripts")
	}
	if strings.Count(out, `class="chart"`) != 4 {
		t.Error("chart containers missing without the library")
	}
}

func TestWriteHTMLEscapesHostileData(t *testing.T) {
	out := renderHTML(t, handResult(t), []byte(fakeECharts))
	for _, bad := range []string{"</script><script>alert(1)", "<script>alert", hostileFormula, "<!--"} {
		if bad == hostileFormula {
			// Harmless in HTML, but it must arrive escaped, never as markup.
			if !strings.Contains(out, "=HYPERLINK(&#34;http://x&#34;,&#34;y&#34;)") {
				t.Error("team name not HTML-escaped as expected")
			}
			continue
		}
		if strings.Contains(out, bad) {
			t.Errorf("output contains %q", bad)
		}
	}
	// Exactly our two scripts: the library and the chart init.
	if n := strings.Count(strings.ToLower(out), "<script"); n != 2 {
		t.Errorf("%d <script> tags, want 2", n)
	}
	// The hostile id is shown, escaped, in the tables.
	if !strings.Contains(out, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("hostile resource id not shown escaped in the tables")
	}
	// go-echarts turns "__f__…__f__" strings into raw JS. In our chart JSON the
	// hostile label must be a quoted string without the marker.
	specs := chartSpecsFrom(t, out)
	js, _ := json.Marshal(specs)
	if bytes.Contains(js, []byte("__f__")) {
		t.Errorf("chart options still carry the __f__ marker")
	}
	if !bytes.Contains(js, []byte(`function(){}_f_`)) {
		t.Errorf("hostile label missing from the chart options (neutralised form expected)")
	}
}

// chartSpecsFrom extracts and decodes the chart option JSON of the init script;
// a decoding error means something was not inert data.
func chartSpecsFrom(t *testing.T, page string) []map[string]any {
	t.Helper()
	const start = "var specs = "
	i := strings.Index(page, start)
	if i < 0 {
		t.Fatal("no chart specs in page")
	}
	rest := page[i+len(start):]
	j := strings.Index(rest, ";\n")
	if j < 0 {
		t.Fatal("chart specs not terminated")
	}
	var specs []map[string]any
	if err := json.Unmarshal([]byte(rest[:j]), &specs); err != nil {
		t.Fatalf("chart specs are not plain JSON: %v", err)
	}
	return specs
}

func TestWriteHTMLContent(t *testing.T) {
	out := renderHTML(t, handResult(t), []byte(fakeECharts))
	wants := []string{
		"<title>finops 2026-W47</title>",
		"2026-11-16 – 2026-11-22", // exclusive end shown as the last day
		"¥4,500.00",               // total cost
		"¥830.00",                 // idle cost
		"18.4% of total cost",     // 830 / 4500
		"¥5,040.00",               // savings available
		"52.0%",                   // avg utilization
		"2.9% of GPU-hours unmonitored",
		"Switch to hourly",
		"¥1,000.00 / run", // unit cost
		"last sample 3 days before the window end",
		"2 rows rejected: unknown currency XYZ",
		"@media print",
		`name="viewport"`,
		"Generated 2026-11-23 09:30 &#43;08:00 by finops v0.1.0-test", // html/template escapes +,
	}
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	// Top actions: savings > 0 only, largest first (A100 4800 before L40S 240).
	actions := out[strings.Index(out, `id="h-actions"`):strings.Index(out, `aria-label="Charts"`)]
	if strings.Count(actions, "<li>") != 2 {
		t.Errorf("top actions: want 2 items (keep has no savings)")
	}
	if a, b := strings.Index(actions, "¥4,800.00"), strings.Index(actions, "¥240.00"); a < 0 || b < 0 || a > b {
		t.Errorf("top actions not ordered by savings")
	}
}

func TestWriteHTMLEmptyResult(t *testing.T) {
	out := renderHTML(t, &analysis.Result{}, []byte(fakeECharts))
	if strings.Count(out, "No data for this period.") != 4 {
		t.Error("want a no-data note per chart")
	}
}

func TestWriteHTMLEmbeddedLibrary(t *testing.T) {
	lib := templates.ECharts()
	if lib == nil {
		t.Skip("templates/assets/echarts.min.js not fetched (make assets)")
	}
	if _, ok := inlineScript(lib); !ok {
		t.Fatal("the pinned ECharts library cannot be inlined safely")
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, handResult(t), testMeta()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), lib) {
		t.Error("page does not contain the embedded library")
	}
	if scriptSrc.Match(buf.Bytes()) {
		t.Error("page has a script src")
	}
}

func TestInlineScriptRefusesBreakouts(t *testing.T) {
	for _, js := range []string{"", "a='</SCRIPT>'", "b='<!--'", "c='<script>'"} {
		if _, ok := inlineScript([]byte(js)); ok {
			t.Errorf("inlineScript(%q) accepted", js)
		}
	}
	if _, ok := inlineScript([]byte("var a = 1 < 2;")); !ok {
		t.Error("plain script refused")
	}
}
