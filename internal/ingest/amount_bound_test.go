package ingest

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestImplausibleAmount: an amount of money beyond 1e15 in absolute value
// (a 30-digit BilledCost) is refused naming file, line and cell, in every
// billing reader; 1e15 itself is accepted. The bound is written here as
// digits, not taken from the code.
func TestImplausibleAmount(t *testing.T) {
	huge := "1" + strings.Repeat("0", 29) // 30 digits
	for _, c := range []struct{ file, column, value string }{
		{"focus_sample.csv", "BilledCost", huge},
		{"focus_sample.csv", "EffectiveCost", "-1000000000000000.01"},
		{"focus_sample.csv", "ListCost", "2E+15"},
		{"aws/test_cur.csv", "lineItem/UnblendedCost", huge},
		{"aws/test_cur.csv", "pricing/publicOnDemandCost", huge},
		{"azure/EA_ActualCost_Small.csv", "Cost", huge},
		{"gcp/2022-08-01_5.csv", "cost", huge},
		{"autodl_sample.csv", "应付金额", "¥" + huge},
		{"autodl_sample.csv", "原价", "¥1,000,000,000,000,001.00"},
	} {
		edit := func(v string) func(hdr, row []string) ([]string, []string) {
			return func(hdr, row []string) ([]string, []string) {
				row[index(t, hdr, c.column)] = v
				return hdr, row
			}
		}
		_, _, err := parseString(firstRow(t, c.file, edit(c.value)), "big.csv")
		wantErrParts(t, err, "big.csv:2", fmt.Sprintf("field %q", c.column), "at most 1e15")
		// 1e15 itself passes (as ¥1,000,000,000,000,000.00 in the rental file).
		at := "1000000000000000"
		if strings.HasPrefix(c.value, "¥") {
			at = "¥1,000,000,000,000,000.00"
		}
		if sum, _, err := parseString(firstRow(t, c.file, edit(at)), "edge.csv"); err != nil || sum.Rows != 1 {
			t.Errorf("%s %s = %s: %v", c.file, c.column, at, err)
		}
	}
	runpod := `[{"amount": %s, "gpuTypeId": "NVIDIA H100 80GB HBM3", "podId": "p1", "time": "2026-11-02T00:00:00Z", "timeBilledMs": 3600000}]`
	vast := `{"results": [{"type": "instance", "source": "instance-1", %s, "start": 1791504000, "end": 1791590400}]}`
	gcp, err := os.ReadFile(testdata("gcp/gpu_billing.json"))
	if err != nil {
		t.Fatal(err)
	}
	gcpFirst, _, _ := strings.Cut(string(gcp), "\n")
	for _, c := range []struct{ in, field string }{
		{fmt.Sprintf(runpod, huge), `"[0].amount"`},
		{fmt.Sprintf(runpod, `"-`+huge+`"`), `"[0].amount"`},
		{fmt.Sprintf(vast, `"amount": `+huge), `"results[0].amount"`},
		{fmt.Sprintf(vast, `"amount_cents": 100000000000000001`), `"results[0].amount_cents"`},
		{strings.Replace(gcpFirst, `"cost": `, `"cost": `+huge+`, "x": `, 1), `"cost"`},
	} {
		_, _, err := parseString(c.in, "big.json")
		wantErrParts(t, err, "big.json:1", c.field, "at most 1e15")
	}
}
