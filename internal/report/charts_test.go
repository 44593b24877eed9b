package report

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/analysis"
)

// optionJSON decodes a chart option as the page's script receives it.
func optionJSON(t *testing.T, opt map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(opt)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func first(v any) map[string]any {
	if a, ok := v.([]any); ok && len(a) > 0 {
		v = a[0]
	}
	m, _ := v.(map[string]any)
	return m
}

func TestHeatmapRowsNameResourceAndGPUIndex(t *testing.T) {
	u := 50.0
	h := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	hours := []analysis.GPUHours{
		{GPU: "GPU-b1c2d3e4-0000-1111-2222-333344445555", ResourceID: "autodl-a100x2", Start: h, Util: []float64{u}},
		{GPU: "GPU-a1000000-0000-1111-2222-333344445555", ResourceID: "autodl-a100x2", Start: h, Util: []float64{u}},
		{GPU: "GPU-40900000-0000-1111-2222-333344445555", ResourceID: "arn:aws:ec2:us-east-1:1:instance/i-0abc", Start: h, Util: []float64{u}},
		{GPU: "orphan-gpu", ResourceID: "", Start: h, Util: []float64{u}},
	}
	opt, _, _ := utilHeatmap(hours, time.UTC)
	got := first(optionJSON(t, opt)["yAxis"])["data"]
	// By hand: rows sorted by "resource / GPU id"; within autodl-a100x2 the
	// a1… UUID sorts before b1…, so it is GPU 0. A GPU without a resource
	// keeps its own name.
	want := []any{"autodl-a100x2 · GPU 0", "autodl-a100x2 · GPU 1", "i-0abc · GPU 0", "orphan-gpu"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("heatmap rows = %v, want %v", got, want)
	}
}

// TestHeatmapCells: each monitored GPU-hour is one cell [hour column, GPU
// row, utilization to 0.1] and an unmonitored one none, also where rows start
// at different hours. By hand: the columns are the hours of all rows, sorted:
// 00:00, 00:30, 01:00, 02:00; rows A, B, C. A (from 00:00: 10, —, 30.04) is
// columns 0 and 3; B (from 01:00: 40, 50) columns 2 and 3; C (from 00:30:
// 60) column 1.
func TestHeatmapCells(t *testing.T) {
	h0 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	hours := []analysis.GPUHours{
		{GPU: "A", Start: h0, Util: []float64{10, math.NaN(), 30.04}},
		{GPU: "B", Start: h0.Add(time.Hour), Util: []float64{40, 50}},
		{GPU: "C", Start: h0.Add(30 * time.Minute), Util: []float64{60}},
	}
	opt, _, _ := utilHeatmap(hours, time.UTC)
	m := optionJSON(t, opt)
	var got [][]any
	for _, c := range first(m["series"])["data"].([]any) {
		got = append(got, c.(map[string]any)["value"].([]any))
	}
	want := [][]any{{0.0, 0.0, 10.0}, {3.0, 0.0, 30.0}, {2.0, 1.0, 40.0}, {3.0, 1.0, 50.0}, {1.0, 2.0, 60.0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells = %v, want %v", got, want)
	}
	if x := first(m["xAxis"])["data"]; !reflect.DeepEqual(x, []any{"11-23 00:00", "11-23 00:30", "11-23 01:00", "11-23 02:00"}) {
		t.Errorf("columns = %v", x)
	}
}

func TestUnitCostLegendWrapsInsteadOfPaging(t *testing.T) {
	day := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	var days []analysis.TaskDay
	var tasks []analysis.TaskCost
	for i, n := range []string{"chat-api", "lora-qwen2.5-7b", "batch-embeddings", "cv-detector-train", "search-rerank"} {
		days = append(days, analysis.TaskDay{Day: day, Task: n, Cost: float64(50 - 10*i), Units: 5}) // ranked in this order
		tasks = append(tasks, analysis.TaskCost{Task: n, Unit: "1M tokens"})
	}
	opt, _, rows := unitCostTrend(days, tasks, time.UTC, "CNY")
	m := optionJSON(t, opt)
	if typ := first(m["legend"])["type"]; typ == "scroll" {
		t.Error(`legend type is "scroll": it pages and hides series`)
	}
	// By hand: each name is 40 px + 7 px a rune: chat-api (per 1M tokens)
	// 24 runes, 208 px; then 257, 264, 271, 243 px. Rows of 480 px: 208+257,
	// 264, 271, 243: 4 rows.
	if rows != 4 {
		t.Errorf("legend rows = %d, want 4", rows)
	}
	if b := first(m["grid"])["bottom"]; b != "112" { // 16 + 24×4
		t.Errorf("grid bottom = %v, want 112 (room for 4 legend rows)", b)
	}
	for _, s := range m["series"].([]any) {
		if !strings.Contains(s.(map[string]any)["name"].(string), "(per 1M tokens)") {
			t.Errorf("series %v lacks its unit", s)
		}
	}
}

func TestCurrencyAxisNamesHaveRoom(t *testing.T) {
	bar := optionJSON(t, idleBar([]labelled{{Label: "gpu-a", Value: 10}}, "CNY"))
	if x := first(bar["xAxis"]); x["name"] != "CNY" || x["nameLocation"] != "middle" {
		t.Errorf("idle chart x axis = %v, want CNY centred under the axis", x)
	}
	m := optionJSON(t, stackedBar(matrix{Days: []string{"2026-11-23"}, Series: []string{"nlp"}, Values: [][]float64{{1}}}, "CNY"))
	if g := first(m["grid"])["left"]; g != axisNameRoom {
		t.Errorf("stacked bar grid left = %v, want %s so the centred axis name is not cut", g, axisNameRoom)
	}
}

// TestHeatmapShowsTheMostIdleGPUs: past maxHeatmapGPUs the heatmap keeps the
// GPUs with the most idle hours (then the lowest mean), says how many it
// shows of how many, and leaves smaller fleets whole. By hand: 1,003 GPUs of
// two hours each; g0000–g0002 are busy both hours (0 idle hours), g0003 is
// idle one hour at 9 % (mean 49.5), every other GPU idle one hour at 5 %
// (mean 47.5). The 1,000 kept are g0003–g1002; g0000–g0002 go. g0000–g0003
// are the GPUs of one resource, box.
func TestHeatmapShowsTheMostIdleGPUs(t *testing.T) {
	h0 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	var hours []analysis.GPUHours
	for i := range maxHeatmapGPUs + 3 {
		util := []float64{5, 90}
		switch {
		case i < 3:
			util = []float64{90, 90}
		case i == 3:
			util = []float64{9, 90}
		}
		hours = append(hours, analysis.GPUHours{GPU: fmt.Sprintf("g%04d", i), Start: h0, Util: util})
		if i < 4 {
			hours[i].ResourceID = "box" // its GPU 3 (g0003) is shown, GPUs 0–2 are not
		}
	}
	opt, rows, note := utilHeatmap(hours, time.UTC)
	labels := first(optionJSON(t, opt)["yAxis"])["data"].([]any)
	// The rows are named among all of box's GPUs, not the shown ones: g0003
	// stays "box · GPU 3" (and sorts first: "box / …" before "g…").
	if rows != maxHeatmapGPUs || len(labels) != maxHeatmapGPUs || labels[0] != "box · GPU 3" || labels[len(labels)-1] != "g1002" {
		t.Errorf("%d rows, %d labels from %v to %v; want 1000, box · GPU 3 to g1002", rows, len(labels), labels[0], labels[len(labels)-1])
	}
	if want := "The 1,000 of 1,003 GPUs with the most idle hours"; !strings.HasPrefix(note, want) {
		t.Errorf("note %q, want it to start %q", note, want)
	}
	// Ranked by mean where idle hours tie: with room for 1,000 − 1 of the
	// 1,000 idle-once GPUs, g0003 (the highest mean of them) is the one left out.
	kept, _ := mostIdleGPUs(hours, maxHeatmapGPUs-1)
	for _, h := range kept {
		if h.GPU == "g0003" || h.GPU < "g0003" {
			t.Errorf("kept %s with room for %d", h.GPU, maxHeatmapGPUs-1)
		}
	}
	if all, note := mostIdleGPUs(hours[:maxHeatmapGPUs], maxHeatmapGPUs); len(all) != maxHeatmapGPUs || note != "" {
		t.Errorf("1,000 GPUs: %d kept, note %q; want all and none", len(all), note)
	}
}
