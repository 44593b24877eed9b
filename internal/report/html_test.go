package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/templates"
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
	for _, id := range chartIDs {
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
	if len(specs) != len(chartIDs) {
		t.Errorf("%d chart specs, want %d", len(specs), len(chartIDs))
	}
}

// chartIDs are the page's chart containers, all of which handResult fills.
var chartIDs = []string{"chart-daily-team", "chart-daily-model", "chart-util-heatmap", "chart-idle-resource",
	"chart-unit-cost", "chart-budget"}

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
	if strings.Count(out, `class="chart"`) != len(chartIDs) {
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
	// Findings, in the order analysis ranked them, with their money.
	findings := out[strings.Index(out, `id="h-findings"`):strings.Index(out, `aria-label="Charts"`)]
	if strings.Count(findings, `class="finding"`) != 4 {
		t.Errorf("want 4 findings:\n%s", findings)
	}
	for _, w := range []string{"Switch to hourly", "¥4,800.00/mo", "Allocated but idle", "¥600.00", "sev-bad", "sev-warn", "sev-info"} {
		if !strings.Contains(findings, w) {
			t.Errorf("findings lack %q", w)
		}
	}
	// Teams: week over week and the month-end forecast flagged over budget.
	teams := out[strings.Index(out, `id="h-teams"`):strings.Index(out, `id="h-tasks"`)]
	for _, w := range []string{"¥3,700.00", "&#43;12.4%", "¥9,000.00", `<td class="num over">¥21,000.00</td>`} {
		if !strings.Contains(teams, w) {
			t.Errorf("teams table lacks %q", w)
		}
	}
	if !strings.Contains(out, "&#43;12.5% vs previous period") {
		t.Error("total cost card lacks the change vs the previous period")
	}
	if !strings.Contains(out, `id="h-pools"`) || !strings.Contains(out, "¥2,400.00") {
		t.Error("pools table missing")
	}
	// With findings, the top actions would repeat them: the table has them all.
	if strings.Contains(out, `id="h-actions"`) {
		t.Error("top actions shown next to the findings")
	}
	// Without findings, the top actions: savings > 0 only, largest first (A100
	// 4800 before L40S 240).
	r := handResult(t)
	r.Findings = nil
	out = renderHTML(t, r, []byte(fakeECharts))
	if !strings.Contains(out, "Nothing needs attention in this period.") {
		t.Error("no empty-findings note")
	}
	actions := out[strings.Index(out, `id="h-actions"`):strings.Index(out, `aria-label="Charts"`)]
	if strings.Count(actions, "<li>") != 2 {
		t.Errorf("top actions: want 2 items (keep has no savings)")
	}
	if a, b := strings.Index(actions, "¥4,800.00"), strings.Index(actions, "¥240.00"); a < 0 || b < 0 || a > b {
		t.Errorf("top actions not ordered by savings")
	}
}

func TestWriteHTMLNewCharts(t *testing.T) {
	out := renderHTML(t, handResult(t), []byte(fakeECharts))
	specs := map[string]map[string]any{}
	for _, s := range chartSpecsFrom(t, out) {
		specs[s["id"].(string)] = s["option"].(map[string]any)
	}
	// Unit cost: 1,000 and 900 per run, a gap on the 18th, 1,100 on the 19th.
	series := specs["chart-unit-cost"]["series"].([]any)
	if len(series) != 1 {
		t.Fatalf("unit cost series = %d, want 1 (the task without units has no line)", len(series))
	}
	line := series[0].(map[string]any)
	if line["name"] != "train-llm (per run)" {
		t.Errorf("series name = %v", line["name"])
	}
	var values []any
	for _, d := range line["data"].([]any) {
		values = append(values, d.(map[string]any)["value"])
	}
	if want := []any{1000.0, 900.0, "-", 1100.0}; fmt.Sprint(values) != fmt.Sprint(want) {
		t.Errorf("unit costs = %v, want %v", values, want)
	}
	// Budget: month to date, forecast (over budget in red), budget.
	bars := specs["chart-budget"]["series"].([]any)
	if len(bars) != 3 {
		t.Fatalf("budget series = %d, want 3", len(bars))
	}
	forecast := bars[1].(map[string]any)["data"].([]any)[0].(map[string]any)
	if forecast["value"] != 21000.0 || forecast["itemStyle"] == nil {
		t.Errorf("ml-train forecast = %v, want 21000 marked over budget", forecast)
	}
	budget := bars[2].(map[string]any)["data"].([]any)
	if budget[0].(map[string]any)["value"] != 20000.0 || budget[1].(map[string]any)["value"] != "-" {
		t.Errorf("budgets = %v, want 20000 and none", budget)
	}
}

func TestWriteHTMLTeamTitle(t *testing.T) {
	var buf bytes.Buffer
	meta := testMeta()
	meta.Team = "<b>nlp</b>"
	if err := writeHTML(&buf, handResult(t), meta, nil); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "<title>finops 2026-W47 · team &lt;b&gt;nlp&lt;/b&gt;</title>") ||
		!strings.Contains(out, `<span class="team">team &lt;b&gt;nlp&lt;/b&gt;</span>`) {
		t.Errorf("team not in the title, escaped")
	}
}

func TestWriteHTMLEmptyResult(t *testing.T) {
	out := renderHTML(t, &analysis.Result{}, []byte(fakeECharts))
	if strings.Count(out, "No data for this period.") != len(chartTitles) {
		t.Error("want a no-data note per chart")
	}
}

func TestWriteHTMLEmbeddedLibrary(t *testing.T) {
	lib := templates.ECharts()
	if lib == nil {
		t.Fatal("internal/templates/assets/echarts.min.js is committed; restore it (git checkout internal/templates/assets)")
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
