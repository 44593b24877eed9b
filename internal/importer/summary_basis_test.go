package importer

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
)

type nopSink struct{}

func (nopSink) Billing(*finops.BillingLine) error { return nil }
func (nopSink) Sample(*finops.GPUSample) error    { return nil }
func (nopSink) TaskRun(*finops.TaskRun) error     { return nil }

// TestSummaryTotalBasis: a billing file's summary total is its effective
// cost in every format, with the billed cost beside it, in the ingest line
// and the ingest JSON. The amounts are worked by hand under each file.
func TestSummaryTotalBasis(t *testing.T) {
	const azureHdr = "Date,MeterCategory,MeterName,CostInBillingCurrency,BillingCurrencyCode,ChargeType,PricingModel,ReservationName,Quantity,UnitOfMeasure,SubscriptionId,ResourceId\n"
	cases := []struct {
		name, in, line, total, billed string
		fromBilled                    int
	}{{
		// FOCUS: billed 130 + 5 = 135; effective 120 + 5 = 125.
		name: "focus.csv",
		in: "BilledCost,EffectiveCost,BillingCurrency,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,ResourceId\n" +
			"130,120,USD,Usage,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,r1\n" +
			"5,5,USD,Usage,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,r2\n",
		line: "total 125.00 USD effective (billed 135.00)", total: "125.00", billed: "135.00",
	}, {
		// Azure amortized: on-demand usage 10 (billed 10, effective 10);
		// reserved usage 5 (billed 0, effective 5); unused reservation 3
		// (billed 0, effective 3); the reservation's purchase at 0 (no billed
		// cost, effective 0). Effective 10 + 5 + 3 + 0 = 18, billed 10.
		name: "amortized.csv",
		in: azureHdr +
			"2026-11-01,Virtual Machines,NC24ads A100 v4,10,USD,Usage,OnDemand,,1,1 Hour,sub1,/r/vm1\n" +
			"2026-11-01,Virtual Machines,NC24ads A100 v4,5,USD,Usage,Reservation,ri1,1,1 Hour,sub1,/r/vm2\n" +
			"2026-11-01,Virtual Machines,NC24ads A100 v4,3,USD,UnusedReservation,Reservation,ri1,1,1 Hour,sub1,/r/vm3\n" +
			"2026-11-01,Virtual Machines,Reservation,0,USD,Purchase,Reservation,ri1,1,1,sub1,\n",
		line: "total 18.00 USD effective (billed 10.00)", total: "18.00", billed: "10.00",
	}, {
		// Azure actual: on-demand usage 10 (both 10); reserved usage at 0 and
		// the reservation's purchase at 120 have no effective cost in this
		// export and count at billed: effective 10 + 0 + 120 = 130, billed 130.
		name: "actual.csv",
		in: azureHdr +
			"2026-11-01,Virtual Machines,NC24ads A100 v4,10,USD,Usage,OnDemand,,1,1 Hour,sub1,/r/vm1\n" +
			"2026-11-01,Virtual Machines,NC24ads A100 v4,0,USD,Usage,Reservation,ri1,1,1 Hour,sub1,/r/vm2\n" +
			"2026-11-01,Virtual Machines,Reservation,120,USD,Purchase,Reservation,ri1,1,1,sub1,\n",
		line:  "total 130.00 USD effective (billed 130.00; 2 lines have no effective cost and count at billed)",
		total: "130.00", billed: "130.00", fromBilled: 2,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sum, err := ingest.Parse(context.Background(), strings.NewReader(c.in), ingest.Options{Name: c.name}, nopSink{})
			if err != nil {
				t.Fatal(err)
			}
			if d := Describe(sum); !strings.Contains(d, ", "+c.line+", ") {
				t.Errorf("%s\nwant %q", d, c.line)
			}
			var got map[string]any
			b, _ := json.Marshal(newFileResult(c.name, "ok", sum, nil))
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if got["total_cost"] != c.total || got["billed_cost"] != c.billed || got["cost_basis"] != "effective" {
				t.Errorf("JSON %s: want total_cost %s, billed_cost %s, cost_basis effective", b, c.total, c.billed)
			}
			if n, _ := got["lines_effective_from_billed"].(float64); int(n) != c.fromBilled {
				t.Errorf("JSON %s: want lines_effective_from_billed %d", b, c.fromBilled)
			}
		})
	}
}
