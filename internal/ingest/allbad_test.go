package ingest

import (
	"strings"
	"testing"
)

// --max-bad-rows lets a few bad rows through a good file; a file with rows,
// every one of them bad, is refused whatever it allows — never "imported,
// 0 rows". Files without bad rows and without rows (a header, an empty
// array) are still months without usage.
func TestAllRowsBadRefused(t *testing.T) {
	focus := "ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency,ChargeCategory\n"
	gcp := `{"usage_start_time": "2026-01-20 08:00:00 UTC", "usage_end_time": "2026-01-20 09:00:00 UTC", "cost": %s, "currency": "USD", "credits": [], "cost_type": "regular", "sku": {"description": "Nvidia L4 GPU running in Americas"}}` + "\n"
	for _, c := range []struct {
		name, in string
		rows     int      // rows read, when the file imports
		want     []string // parts of the refusal; nil: the file imports
	}{
		{
			name: "FOCUS CSV, both rows bad",
			in:   focus + "2026-11-01 00:00:00,2026-11-01 01:00:00,1;50,USD,Usage\n2026-11-01 01:00:00,yesterday,2.00,USD,Usage\n",
			want: []string{"bill:", "all 2 rows are bad", `bill:2: field "BilledCost"`, "whatever --max-bad-rows allows"},
		},
		{
			name: "FOCUS CSV, its one row bad",
			in:   focus + "2026-11-01 00:00:00,2026-11-01 01:00:00,1;50,USD,Usage\n",
			want: []string{"its one row is bad", `bill:2: field "BilledCost"`},
		},
		{
			name: "FOCUS CSV, a cut-off row and a bad one",
			in:   focus + "2026-11-01 00:00:00,2026-11-01 01:00:00\n2026-11-01 00:00:00,2026-11-01 01:00:00,x,USD,Usage\n",
			want: []string{"all 2 rows are bad", "bill:2"},
		},
		{
			name: "FOCUS CSV, one good row among bad ones",
			in:   focus + "2026-11-01 00:00:00,2026-11-01 01:00:00,1;50,USD,Usage\n2026-11-01 01:00:00,2026-11-01 02:00:00,2.00,USD,Usage\n",
			rows: 1,
		},
		{
			name: "FOCUS CSV, header only",
			in:   focus,
		},
		{
			name: "rental CSV, every row bad",
			in:   "实例ID,GPU型号,计费方式,开始时间,结束时间,应付金额\na,RTX 4090,按量,2026-11-02 10:00,2026-11-02 09:00,1.00\nb,RTX 4090,按量,2026-11-02 09:00,2026-11-02 10:00,\"1,5\"\n",
			want: []string{"all 2 rows are bad", `bill:2: field "结束时间"`},
		},
		{
			name: "RunPod JSON, every record bad",
			in:   `[{"amount": "lots", "podId": "a", "time": "2026-11-02T00:00:00Z"}, {"amount": 2, "podId": "b", "time": "noon"}]`,
			want: []string{"all 2 rows are bad", `bill:1: field "[0].amount"`},
		},
		{
			name: "RunPod JSON, empty",
			in:   `[]`,
		},
		{
			name: "Vast.ai page: deposits skipped, the one charge bad",
			in: `{"invoices": [{"when": 1762041600, "service": "stripe_payments", "amount_cents": 1000, "is_credit": true},
 {"type": "charge", "description": "Instance 123 GPU charge: hours * $/hr", "timestamp": 1633036800, "quantity": "10.000", "rate": "0.1000", "amount": "ten", "instance_id": 123}]}`,
			want: []string{"its one row is bad (and 1 skipped: not charges)", "amount"},
		},
		{
			name: "GCP JSON, every record bad",
			in:   strings.Replace(gcp, "%s", `"abc"`, 1) + strings.Replace(gcp, "%s", `"1,5"`, 1),
			want: []string{"all 2 rows are bad", "bill:1", "cost"},
		},
		{
			name: "GCP JSON, one good record",
			in:   strings.Replace(gcp, "%s", `"abc"`, 1) + strings.Replace(gcp, "%s", `0.56`, 1),
			rows: 1,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			sum, err := Parse(t.Context(), strings.NewReader(c.in), Options{Name: "bill", MaxBadRows: 10}, &countSink{})
			if c.want == nil {
				if err != nil || sum.Rows != c.rows {
					t.Fatalf("err %v rows %v, want it read with %d rows", err, sum, c.rows)
				}
				return
			}
			wantErrParts(t, err, c.want...)
			if sum == nil || sum.Rows != 0 || len(sum.Rejected) == 0 {
				t.Errorf("summary %+v: want the bad rows listed", sum)
			}
		})
	}
}
