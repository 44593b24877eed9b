package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestTencentBuiltin: a Tencent Cloud bill with the English header
// Tencent documents (docs/INGEST.md, "Built in: tencent") is recognised by the
// built-in mapping without any config, and imported.
func TestIngestTencentBuiltin(t *testing.T) {
	dir := t.TempDir()
	bill := filepath.Join(dir, "tencent_bill_202611.csv")
	// Two made-up rows under the documented header; Σ Total Amount After
	// Discount (Excluding Tax) = 3.15 + 1080.00 = 1083.15 (by hand).
	csv := "Payer Account ID,Owner Account ID,Operator Account ID,ProductName,BillingMode,ProjectName,Region," +
		"Availability Zone,InstanceID,InstanceName,SubproductName,TransactionType,TransactionID,TransactionTime," +
		"Usage Start Time,Usage End Time,ComponentType,ComponentName,Component List Price,Component Contracted Price," +
		"Component Price Measurement Unit,Component Usage,Component Usage Unit,Usage Duration,Duration Unit," +
		"Reserved Instances,OriginalCost,DiscountRate,Currency,Total Amount After Discount (Excluding Tax)," +
		"Voucher Deduction,Amount Before Tax,TaxRate,TaxAmount,Total Cost (Including Tax)\n" +
		"100012345678,100012345678,100012345678,Cloud Virtual Machine,Pay-as-You-Go resources,Default Project,Singapore," +
		"Singapore Zone 1,ins-a1b2c3d4,gpu-train-1,CVM - GPU,Hourly settlement,t-1,2026-11-02 01:05:00," +
		"2026-11-02 00:00:00,2026-11-02 01:00:00,CPU,CPU,3.50,3.15,USD/hour,1,Unit,1,Hour,-,3.50,0.9,USD,3.15,0,3.15,0,0,3.15\n" +
		"100012345678,100087654321,100087654321,Cloud Virtual Machine,Monthly subscription,Default Project,Silicon Valley," +
		"Silicon Valley Zone 2,ins-e5f6g7h8,infer-1,CVM - GPU,Purchase,t-2,2026-11-01 00:00:05," +
		"2026-11-01 00:00:00,2026-12-01 00:00:00,CPU,CPU,1200.00,1080.00,USD/month,1,Unit,1,Month,-,1200.00,0.9,USD,1080.00,80.00,1000.00,0,0,1000.00\n"
	if err := os.WriteFile(bill, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "f.db")
	for _, args := range [][]string{{"ingest", "--check"}, {"ingest"}} {
		args = append(append([]string{"--db", db}, args...), bill)
		code, out, errs := runFinops(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		if !strings.Contains(out, `mapping "tencent"`) && !strings.Contains(out, "mapping tencent") {
			t.Errorf("%v: not read through the tencent mapping:\n%s", args, out)
		}
		if !strings.Contains(out, "1083.15 USD") {
			t.Errorf("%v: total 1083.15 USD not reported:\n%s", args, out)
		}
	}
}
