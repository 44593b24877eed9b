package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

func TestRentalAutoDL(t *testing.T) {
	sum, sink := mustParse(t, "autodl_sample.csv", Options{})
	if sum.Format != FormatRental || sum.Kind != KindBilling {
		t.Errorf("format %q kind %q", sum.Format, sum.Kind)
	}
	// 应付金额: 12.60 + 1,234.50 + 899.00 + (-3.60) + 0.50 = 2143.00
	if want := decimal.RequireFromString("2143.00"); !sum.TotalCost.Equal(want) {
		t.Errorf("TotalCost %s, want %s", sum.TotalCost, want)
	}
	// 原价: 14.00 + 1,300.00 + 999.00 + 0.00 + 0.60 = 2313.60
	var list decimal.Decimal
	for _, l := range sink.lines {
		list = list.Add(*l.ListCost)
	}
	if want := decimal.RequireFromString("2313.60"); !list.Equal(want) {
		t.Errorf("Σ ListCost %s, want %s", list, want)
	}
	if sum.Rows != 5 || sum.GPULines != 4 {
		t.Errorf("rows %d GPU lines %d, want 5 and 4", sum.Rows, sum.GPULines)
	}
	if got := strings.Join(sum.Currencies, ","); got != "CNY" {
		t.Errorf("currencies %q", got)
	}
	utc := func(y, mo, d, h, mi int) time.Time { return time.Date(y, time.Month(mo), d, h, mi, 0, 0, time.UTC) }
	// Times are China time (UTC+8): 2026-11-02 09:00 is 01:00 UTC.
	cases := []struct {
		line       int
		id, name   string
		start, end time.Time
		mode       string
		model      string
		count      int
		cost       string
	}{
		{2, "autodl-a1", "训练机1", utc(2026, 11, 2, 1, 0), utc(2026, 11, 2, 4, 30), finops.ModeHourly, "RTX 4090", 2, "12.60"},
		{3, "autodl-b2", "推理机", utc(2026, 11, 2, 16, 0), utc(2026, 11, 3, 16, 0), finops.ModeDaily, "A100-80GB", 1, "1234.50"},
		{4, "autodl-c3", "", utc(2026, 10, 31, 16, 0), utc(2026, 11, 30, 16, 0), finops.ModeMonthly, "RTX 3090", 1, "899.00"},
		{5, "autodl-a1", "训练机1", utc(2026, 11, 5, 2, 0), utc(2026, 11, 5, 3, 0), finops.ModeHourly, "RTX 4090", 2, "-3.60"},
		{6, "autodl-d4", "cpu机", utc(2026, 11, 6, 0, 0), utc(2026, 11, 6, 2, 0), finops.ModeHourly, "", 0, "0.50"},
	}
	for i, w := range cases {
		l := sink.lines[i]
		if l.Line != w.line || l.ResourceID != w.id || l.ResourceName != w.name || !l.ChargeStart.Equal(w.start) ||
			!l.ChargeEnd.Equal(w.end) || l.PricingMode != w.mode || l.GPUModel != w.model || l.GPUCount != w.count {
			t.Errorf("row %d: got %+v\nwant %+v", i, *l, w)
		}
		if l.Provider != "AutoDL" || l.Currency != "CNY" || l.ChargeCategory != finops.ChargeUsage {
			t.Errorf("row %d: provider %q currency %q category %q", i, l.Provider, l.Currency, l.ChargeCategory)
		}
		if !l.BilledCost.Equal(decimal.RequireFromString(w.cost)) || !l.EffectiveCost.Equal(*l.BilledCost) {
			t.Errorf("row %d: billed %s effective %s, want %s", i, l.BilledCost, l.EffectiveCost, w.cost)
		}
	}
	if got := sink.lines[4].Tags["gpu"]; got != "无卡模式" {
		t.Errorf("unknown GPU text kept as %q", got)
	}
}

// A configured mapping with English headers, its own modes, team/task
// columns, a zone of its own and gpu_model + gpu_count columns.
func TestRentalConfiguredMapping(t *testing.T) {
	csv := "Instance,Model,GPUs,Plan,From,To,Paid,Team,Job\n" +
		"vm-1,NVIDIA H100 80GB HBM3,8,reserved-1w,2026-11-02 00:00,2026-11-09 00:00,\"$12,000.00\",ml,pretrain\n" +
		"vm-2,RTX PRO 6000 Blackwell,2,Hourly,2026-11-02 00:00,2026-11-02 02:00,$1.50,,\n" +
		"vm-3,L4,1,quarterly,2026-11-02 00:00,2026-11-02 01:00,(0.25),,\n"
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	m := ColumnMapping{
		Name: "lab", Provider: "GPU Lab", Currency: "usd", Location: ny,
		Columns: map[string]string{"resource_id": "instance", "gpu_model": "Model", "gpu_count": "GPUs",
			"pricing_mode": "Plan", "start": "From", "end": "To", "cost": "Paid", "team": "Team", "task": "Job"},
		Modes: map[string]string{"Reserved-1W": finops.ModeWeekly},
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	sink := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(csv), Options{Name: "lab.csv", Mappings: []ColumnMapping{m}}, sink)
	if err != nil {
		t.Fatal(err)
	}
	// 12,000.00 + 1.50 + (0.25 refunded) = 12000.00 + 1.50 - 0.25 = 12001.25
	if want := decimal.RequireFromString("12001.25"); !sum.TotalCost.Equal(want) {
		t.Errorf("TotalCost %s, want %s", sum.TotalCost, want)
	}
	l := sink.lines
	// New York is UTC-5 in November (after the first Sunday).
	if want := time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC); !l[0].ChargeStart.Equal(want) {
		t.Errorf("start %v, want %v", l[0].ChargeStart, want)
	}
	if l[0].Provider != "GPU Lab" || l[0].Currency != "USD" || l[0].PricingMode != finops.ModeWeekly ||
		l[0].GPUModel != "H100" || l[0].GPUCount != 8 || l[0].Tags["team"] != "ml" || l[0].Tags["task"] != "pretrain" {
		t.Errorf("row 1: %+v", *l[0])
	}
	// An unknown GPU stays a GPU line under its own name and is reported.
	if l[1].PricingMode != finops.ModeHourly || l[1].GPUModel != "RTX PRO 6000 Blackwell" || l[1].GPUCount != 2 ||
		len(l[1].Tags) != 1 || l[1].Tags[UnknownGPUTag] != "RTX PRO 6000 Blackwell" {
		t.Errorf("row 2 (unknown GPU kept by name): %+v", *l[1])
	}
	if l[2].PricingMode != "" || l[2].Tags["pricing_mode"] != "quarterly" || l[2].GPUModel != "L4" {
		t.Errorf("row 3 (unknown mode kept in tags): %+v", *l[2])
	}
}

func TestRentalRowErrors(t *testing.T) {
	head := "实例ID,GPU型号,计费方式,开始时间,结束时间,应付金额\n"
	cases := []struct {
		name, row, field, found string
	}{
		{"end before start", "a,RTX 4090 * 1,按量,2026-11-02 10:00,2026-11-02 09:00,1.00", "结束时间", "2026-11-02 09:00"},
		{"decimal comma", "a,RTX 4090 * 1,按量,2026-11-02 09:00,2026-11-02 10:00,\"1,5\"", "应付金额", "1,5"},
		{"no cost", "a,RTX 4090 * 1,按量,2026-11-02 09:00,2026-11-02 10:00,", "应付金额", ""},
		{"bad time", "a,RTX 4090 * 1,按量,2026-11-02 9h,2026-11-02 10:00,1", "开始时间", "9h"},
		{"no id", ",RTX 4090 * 1,按量,2026-11-02 09:00,2026-11-02 10:00,1", "实例ID", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(t.Context(), strings.NewReader(head+c.row+"\n"), Options{Name: "bill.csv"}, &countSink{})
			wantErrParts(t, err, "bill.csv:2", c.field, c.found)
		})
	}
}

func TestParseAmount(t *testing.T) {
	cases := []struct{ in, want string }{
		{"¥1,234.50", "1234.50"}, {"$12.00", "12"}, {"-¥3.60", "-3.6"}, {"¥-3.60", "-3.6"},
		{"(3.00)", "-3"}, {"12.5 元", "12.5"}, {"￥0.50", "0.5"}, {"1,234,567.891", "1234567.891"},
		{"CNY 7", "7"}, {"1.5e2", "150"},
	}
	for _, c := range cases {
		got, err := parseAmount(c.in)
		if err != nil || !got.Equal(decimal.RequireFromString(c.want)) {
			t.Errorf("parseAmount(%q) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"1,5", "12,34.5", "", "¥", "abc", "--1", "1.2.3", "NaN", "Inf", ",123", "1,2345"} {
		if got, err := parseAmount(bad); err == nil {
			t.Errorf("parseAmount(%q) = %s, want an error", bad, got)
		}
	}
}
