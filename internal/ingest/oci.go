package ingest

// Oracle Cloud (OCI) delivers cost and usage reports of its own format
// (reports/cost-csv and reports/usage-csv in the tenancy's bling bucket,
// columns lineItem/…, product/…, usage/…, cost/…, tags/…) and FOCUS reports
// of the same data (FOCUS Reports/YYYY/MM/DD/…). finops reads the FOCUS ones;
// the native ones are refused by name, with the way to the FOCUS report.
// AWS's CUR also names columns lineItem/…, but never lineItem/tenantId,
// lineItem/intervalUsageStart or cost/myCost, and CUR is detected first.

const ociFOCUSHint = "download OCI's FOCUS report of the same charges instead (finops reads FOCUS): " +
	"in the OCI console, Billing & Cost Management → Cost and Usage Reports → FOCUS Reports, " +
	"or `oci os object list --namespace-name bling --bucket-name <tenancy OCID> --prefix \"FOCUS Reports\"` " +
	"and `oci os object get` of the day's files"

// ociNativeReport is the refusal of an OCI cost or usage report's header, or "".
func ociNativeReport(idx *columns) string {
	oci := idx.col("lineItem/tenantId") >= 0 && idx.col("lineItem/intervalUsageStart") >= 0
	switch {
	case idx.col("cost/myCost") >= 0 && (oci || idx.col("cost/currencyCode") >= 0):
		return "this is an Oracle Cloud (OCI) cost report (reports/cost-csv: lineItem/intervalUsageStart, cost/myCost, …), " +
			"OCI's own format, not read by finops: " + ociFOCUSHint
	case oci:
		return "this is an Oracle Cloud (OCI) usage report (reports/usage-csv: lineItem/intervalUsageStart, usage/consumedQuantity, …), " +
			"OCI's own format, with quantities but no costs, not read by finops: " + ociFOCUSHint
	}
	return ""
}
