package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// TestLineCheck: the checks every billing reader's lines pass (checkLine),
// on FOCUS and on other formats. Expectations are from the rows by hand.
func TestLineCheck(t *testing.T) {
	const focusHead = "ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency,ChargeCategory,ChargeFrequency\n"
	const curHead = "lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/UnblendedCost,lineItem/CurrencyCode\n"
	const gcpRec = `{"usage_start_time":"2026-11-02T00:00:00Z","usage_end_time":"%s","cost":1.5,"currency":"%s"}` + "\n"
	hengyuan := ColumnMapping{Name: "hengyuan", Columns: map[string]string{"resource_id": "实例", "start": "开始", "end": "结束", "cost": "金额"}}
	cases := []struct {
		name string
		in   string
		opt  Options
		// err: parts of the refusal; "" = accepted
		err      []string
		currency string // of the accepted line
		warn     []string
	}{
		{name: "FOCUS blank currency", in: focusHead + "2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,1.5,,Usage,Usage-Based\n",
			err: []string{"b.csv:2", `"BillingCurrency"`, "currency is blank", "--currency"}},
		{name: "FOCUS blank currency, --currency", in: focusHead + "2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,1.5,,Usage,Usage-Based\n",
			opt: Options{Currency: "usd"}, currency: "USD"},
		{name: "FOCUS currency given wins over --currency", in: focusHead + "2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,1.5,EUR,Usage,Usage-Based\n",
			opt: Options{Currency: "USD"}, currency: "EUR"},
		{name: "CUR without a currency column", in: "lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/UnblendedCost\nUsage,2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,1.5\n",
			err: []string{"b.csv:2", `"lineItem/CurrencyCode (no such column)"`, "currency is blank"}},
		{name: "CUR blank currency", in: curHead + "Usage,2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,1.5,\n",
			err: []string{"b.csv:2", `"lineItem/CurrencyCode"`}},
		{name: "GCP JSON blank currency", in: fmt.Sprintf(gcpRec, "2026-11-02T01:00:00Z", ""),
			err: []string{"b.csv:1", `"currency"`}},
		{name: "rental mapping without currency", in: "实例,开始,结束,金额\nr1,2026-11-02 00:00,2026-11-02 01:00,1.5\n",
			opt: Options{Mappings: []ColumnMapping{hengyuan}}, err: []string{"b.csv:2", `"currency"`, `mapping "hengyuan"`}},
		{name: "FOCUS end in 9999", in: focusHead + "2026-11-02T00:00:00Z,9999-12-31T00:00:00Z,1.5,USD,Usage,Usage-Based\n",
			err: []string{"b.csv:2", `"ChargePeriodEnd"`, "between 2000 and 2100", "9999-12-31"}},
		{name: "FOCUS start in year 1", in: focusHead + "0001-01-01T00:00:00Z,2026-11-02T01:00:00Z,1.5,USD,Usage,Usage-Based\n",
			err: []string{"b.csv:2", `"ChargePeriodStart"`, "0001-01-01"}},
		{name: "CUR end in 2101", in: curHead + "Usage,2026-11-02T00:00:00Z,2101-01-01T00:00:00Z,1.5,USD\n",
			err: []string{"b.csv:2", `"lineItem/UsageEndDate"`, "2101-01-01"}},
		{name: "rental end in 9999", in: "实例,开始,结束,金额\nr1,2026-11-02 00:00,9999-01-01 00:00,1.5\n",
			opt: Options{Mappings: []ColumnMapping{hengyuan}, Currency: "CNY"}, err: []string{"b.csv:2", `"结束"`, "9999-01-01"}},
		{name: "GCP JSON end in 9999", in: fmt.Sprintf(gcpRec, "9999-12-31T00:00:00Z", "USD"),
			err: []string{"b.csv:1", `"usage_end_time"`}},
		// 2026-11-01 .. 2026-12-31 is 60 days; 2026-12-01 .. 2027-01-01 is 31 days, a month.
		{name: "FOCUS 60-day recurring line warned", in: focusHead + "2026-11-01T00:00:00Z,2026-12-31T00:00:00Z,1.5,USD,Usage,Recurring\n",
			currency: "USD", warn: []string{"b.csv:2", `"ChargePeriodEnd"`, "60.0 days", "more than a billing period"}},
		{name: "FOCUS 60-day one-time line", in: focusHead + "2026-11-01T00:00:00Z,2026-12-31T00:00:00Z,1.5,USD,Purchase,One-Time\n",
			currency: "USD"},
		{name: "FOCUS 31-day month", in: focusHead + "2026-12-01T00:00:00Z,2027-01-01T00:00:00Z,1.5,USD,Usage,Recurring\n",
			currency: "USD"},
		{name: "CUR 400-day line warned", in: curHead + "Usage,2026-01-01T00:00:00Z,2027-02-05T00:00:00Z,1.5,USD\n",
			currency: "USD", warn: []string{"b.csv:2", `"lineItem/UsageEndDate"`, "400.0 days"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opt := c.opt
			opt.Name = "b.csv"
			sink := &recSink{}
			sum, err := Parse(t.Context(), strings.NewReader(c.in), opt, sink)
			if len(c.err) > 0 {
				wantErrParts(t, err, c.err...)
				if len(sink.lines) != 0 {
					t.Errorf("a refused line reached the sink: %+v", *sink.lines[0])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.lines) != 1 || sink.lines[0].Currency != c.currency {
				t.Fatalf("%d lines, want 1 in %s: %+v", len(sink.lines), c.currency, sink.lines)
			}
			if len(c.warn) == 0 {
				if sum.WarningCount != 0 {
					t.Errorf("warnings %v", sum.Warnings)
				}
				return
			}
			if sum.WarningCount != 1 || len(sum.Warnings) != 1 {
				t.Fatalf("%d warnings, want 1", sum.WarningCount)
			}
			wantErrParts(t, sum.Warnings[0], c.warn...)
		})
	}
}

// TestLineCheckWarningsBounded: a file of many long lines keeps the first
// maxWarnings warnings and counts them all.
func TestLineCheckWarningsBounded(t *testing.T) {
	in := "ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency\n" +
		strings.Repeat("2026-01-01T00:00:00Z,2026-06-01T00:00:00Z,1,USD\n", maxWarnings+5)
	sum, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "b.csv"}, &countSink{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.WarningCount != maxWarnings+5 || len(sum.Warnings) != maxWarnings {
		t.Errorf("%d warnings kept of %d", len(sum.Warnings), sum.WarningCount)
	}
}
