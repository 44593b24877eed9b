package ingest

import (
	"strings"
	"testing"
)

// The headers of OCI's native reports, as in project-koku/koku @
// 4d1a9e63ebea4095d2f668a00bb4b0d907bb9864
// koku/masu/test/data/oci/reports_cost-csv_0001000000603747.csv and @
// 97c7da708bc618032798486be4a8668a68720c27
// koku/masu/test/data/oci/reports_usage-csv_0001000000829494.csv (Apache-2.0).
const (
	ociCostHeader = "lineItem/referenceNo,lineItem/tenantId,lineItem/intervalUsageStart,lineItem/intervalUsageEnd,product/service," +
		"product/compartmentId,product/compartmentName,product/region,product/availabilityDomain,product/resourceId," +
		"usage/billedQuantity,usage/billedQuantityOverage,cost/subscriptionId,cost/productSku,product/Description,cost/unitPrice," +
		"cost/unitPriceOverage,cost/myCost,cost/myCostOverage,cost/currencyCode,cost/billingUnitReadable,cost/skuUnitDescription," +
		"cost/overageFlag,lineItem/isCorrection,lineItem/backreferenceNo,tags/Oracle-Tags.CreatedBy,tags/Oracle-Tags.CreatedOn," +
		"tags/Oracle-Tags.test,tags/free-form-tag,tags/gatewayId,tags/new-tags.tarnished-tags,tags/orcl-cloud.free-tier-retained"
	ociUsageHeader = "lineItem/referenceNo,lineItem/tenantId,lineItem/intervalUsageStart,lineItem/intervalUsageEnd,product/service," +
		"product/resource,product/compartmentId,product/compartmentName,product/region,product/availabilityDomain,product/resourceId," +
		"usage/consumedQuantity,usage/billedQuantity,usage/consumedQuantityUnits,usage/consumedQuantityMeasure,lineItem/isCorrection," +
		"lineItem/backreferenceNo,tags/Oracle-Tags.CreatedBy,tags/Oracle-Tags.CreatedOn,tags/Oracle-Tags.test,tags/free-form-tag," +
		"tags/gatewayId,tags/new-tags.tarnished-tags,tags/orcl-cloud.free-tier-retained"
	// The row of the koku cost report with a cost (API Calls, GBP).
	ociCostRow = "my-resource-no4,ocid1.tenancy.oc1..aaaaaaaa,2022-04-21T09:00Z,2022-04-21T10:00Z,API_GATEWAY,ocid1.tenancy.oc1..aaaaaaaa," +
		"testing,uk-london-1,,ocid1.apigateway.oc1.uk-london-1.amaaaaaac,0.000019000000,0.000019000000,15649487,B92072,API Calls," +
		"2.139000000000,2.139000000000,0.000040641000,0.000040641000,GBP,1000000 GATEWAY_REQUESTS,1M API Calls,Y,false,," +
		"default/testing@redhat.com,2022-04-14T13:14:25.177Z,,,,,"
)

// OCI's native cost and usage reports are refused naming them and pointing
// at OCI's FOCUS report; AWS's CUR, whose columns are also lineItem/…, is
// never taken for one, nor one for a CUR.
func TestOCINativeReportRefused(t *testing.T) {
	for _, c := range []struct {
		name, csv string
		format    string
		want, not []string
	}{
		{
			name: "cost report", csv: ociCostHeader + "\n" + ociCostRow + "\n",
			want: []string{"oci.csv:1", "Oracle Cloud (OCI) cost report", "reports/cost-csv", "FOCUS Reports", "finops reads"},
			not:  []string{"AWS", "unrecognised header"},
		},
		{
			name: "usage report", csv: ociUsageHeader + "\n",
			want: []string{"oci.csv:1", "Oracle Cloud (OCI) usage report", "no costs", "FOCUS Reports"},
			not:  []string{"AWS"},
		},
		{
			name: "cost report, cost columns only", csv: "lineItem/intervalUsageStart,lineItem/intervalUsageEnd,cost/myCost,cost/currencyCode\n",
			want: []string{"OCI) cost report"},
		},
		{
			name: "cost report under --format rental", csv: ociCostHeader + "\n" + ociCostRow + "\n", format: FormatRental,
			want: []string{"oci.csv:1", "no column mapping matches this header", "OCI) cost report", "FOCUS Reports"},
		},
		{
			name: "a CUR without its line item type is a CUR", csv: "lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/UnblendedCost,lineItem/ResourceId\n",
			want: []string{"oci.csv:1", "AWS Cost and Usage Report", "lineItem/LineItemType"},
			not:  []string{"Oracle", "OCI"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(t.Context(), strings.NewReader(c.csv), Options{Name: "oci.csv", Format: c.format}, &countSink{})
			wantErrParts(t, err, c.want...)
			for _, n := range c.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("error mentions %q: %v", n, err)
				}
			}
		})
	}
	// koku's legacy CUR sample, lineItem/… columns and all, is still a CUR.
	hdr, _ := csvTable(t, "aws/test_cur.csv")
	if got, _, err := DetectFormat(hdr, BuiltinMappings()); got != FormatCUR || err != nil {
		t.Errorf("test_cur.csv: %q, %v; want %s", got, err, FormatCUR)
	}
}
