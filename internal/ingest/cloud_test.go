package ingest

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// Tests of the cloud billing exports (AWS CUR, Azure, GCP). Every expected
// total is computed here from the file itself with encoding/csv or
// encoding/json, never copied from finops' own output.

// csvTable reads a testdata CSV independently of the parsers: gzip by name,
// BOM stripped, rows of any width.
func csvTable(t *testing.T, name string) (hdr []string, rows [][]string) {
	t.Helper()
	b := readFile(t, testdata(name))
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs[0], recs[1:]
}

// column finds the first of names in a header, exactly; -1 when absent.
func column(hdr []string, names ...string) int {
	for _, n := range names {
		for i, h := range hdr {
			if h == n {
				return i
			}
		}
	}
	return -1
}

func at(row []string, i int) string {
	if i < 0 || i >= len(row) {
		return ""
	}
	return row[i]
}

func decOr0(s string) decimal.Decimal {
	if s == "" {
		return decimal.Zero
	}
	return decimal.RequireFromString(s)
}

// sumCost adds up Cost() over the lines (nulls skipped) and BilledCost.
func sumCost(lines []*finops.BillingLine) (cost, billed decimal.Decimal) {
	for _, l := range lines {
		if c, ok := l.Cost(); ok {
			cost = cost.Add(c)
		}
		if l.BilledCost != nil {
			billed = billed.Add(*l.BilledCost)
		}
	}
	return cost, billed
}

// curAmortized is AWS's documented amortized cost of one CUR row (Cost
// Explorer's "amortized costs"; Well-Architected CUR query library), written
// out here on the raw cells.
func curAmortized(hdr, row []string) (amortized, unblended decimal.Decimal) {
	get := func(slash, snake string) string { return at(row, column(hdr, slash, snake)) }
	unblended = decOr0(get("lineItem/UnblendedCost", "line_item_unblended_cost"))
	switch get("lineItem/LineItemType", "line_item_line_item_type") {
	case "SavingsPlanCoveredUsage":
		return decOr0(get("savingsPlan/SavingsPlanEffectiveCost", "savings_plan_savings_plan_effective_cost")), unblended
	case "SavingsPlanRecurringFee":
		return decOr0(get("savingsPlan/TotalCommitmentToDate", "savings_plan_total_commitment_to_date")).
			Sub(decOr0(get("savingsPlan/UsedCommitment", "savings_plan_used_commitment"))), unblended
	case "SavingsPlanNegation", "SavingsPlanUpfrontFee":
		return decimal.Zero, unblended
	case "DiscountedUsage":
		return decOr0(get("reservation/EffectiveCost", "reservation_effective_cost")), unblended
	case "RIFee":
		return decOr0(get("reservation/UnusedAmortizedUpfrontFeeForBillingPeriod", "reservation_unused_amortized_upfront_fee_for_billing_period")).
			Add(decOr0(get("reservation/UnusedRecurringFee", "reservation_unused_recurring_fee"))), unblended
	case "Fee":
		if get("reservation/ReservationARN", "reservation_reservation_a_r_n") != "" {
			return decimal.Zero, unblended
		}
	}
	return unblended, unblended
}

const (
	curDeliveryB = "aws/delivery/cur/gpu-report/20260101-20260201/bbbb-2222/"
	curPeriod2   = "aws/delivery/cur/gpu-report/20260201-20260301/cccc-3333/gpu-report-1.csv.gz"
	cur2Data     = "aws/cur2/exports/gpu-export/data/BILLING_PERIOD=2026-01/gpu-export-00001.csv.gz"
)

// TestCURFiles: every AWS file imports with its row count, its invoice total
// (Σ lineItem/UnblendedCost) as BilledCost and the amortized total as cost.
func TestCURFiles(t *testing.T) {
	for _, c := range []struct {
		file, format string
	}{
		{"aws/test_cur.csv", FormatCUR},
		{"aws/test_cur.csv.gz", FormatCUR},
		{"aws/2023-06-01.csv", FormatCUR},
		{"aws/2022-07-01-alt-columns.csv", FormatCUR},
		{curDeliveryB + "gpu-report-1.csv.gz", FormatCUR},
		{curDeliveryB + "gpu-report-2.csv.gz", FormatCUR},
		{"aws/delivery/cur/gpu-report/20260101-20260201/aaaa-1111/gpu-report-1.csv.gz", FormatCUR},
		{curPeriod2, FormatCUR},
		{cur2Data, FormatCUR2},
	} {
		t.Run(c.file, func(t *testing.T) {
			hdr, rows := csvTable(t, c.file)
			var wantCost, wantBilled decimal.Decimal
			for _, r := range rows {
				a, u := curAmortized(hdr, r)
				wantCost, wantBilled = wantCost.Add(a), wantBilled.Add(u)
			}
			sum, sink := mustParse(t, c.file, Options{})
			if sum.Format != c.format || sum.Kind != KindBilling {
				t.Errorf("format %s/%s, want %s/billing", sum.Format, sum.Kind, c.format)
			}
			if sum.Rows != len(rows) || len(sink.lines) != len(rows) {
				t.Errorf("%d rows (sink %d), the file has %d", sum.Rows, len(sink.lines), len(rows))
			}
			cost, billed := sumCost(sink.lines)
			if !cost.Equal(wantCost) || !sum.TotalCost.Equal(wantCost) {
				t.Errorf("amortized total %s (summary %s), want %s", cost, sum.TotalCost, wantCost)
			}
			if !billed.Equal(wantBilled) {
				t.Errorf("billed total %s, want Σ unblended %s", billed, wantBilled)
			}
			for _, l := range sink.lines {
				if l.Provider != "AWS" || l.ChargeCategory == "" || l.ChargeStart.Location() != time.UTC {
					t.Errorf("line %d: provider %q, category %q, start %v", l.Line, l.Provider, l.ChargeCategory, l.ChargeStart)
				}
			}
		})
	}
}

// TestCURInvoiceTotal: with no-upfront commitments the amortized total of a
// delivery equals its invoice: covered usage, negations and recurring fees
// net out; with an upfront fee the fee moves into the months it covers.
func TestCURInvoiceTotal(t *testing.T) {
	var cost, billed decimal.Decimal
	for _, f := range []string{curDeliveryB + "gpu-report-1.csv.gz", curDeliveryB + "gpu-report-2.csv.gz"} {
		_, sink := mustParse(t, f, Options{})
		c, b := sumCost(sink.lines)
		cost, billed = cost.Add(c), billed.Add(b)
	}
	if !cost.Equal(billed) {
		t.Errorf("amortized total %s ≠ invoice total %s", cost, billed)
	}
	_, sink := mustParse(t, curPeriod2, Options{})
	c, b := sumCost(sink.lines)
	// Invoice: 1000 upfront + 0.50 RI fee − 0.75 refund; amortized: 1.10 used + 0.30 unused − 0.75.
	if !b.Equal(decimal.RequireFromString("999.75")) || !c.Equal(decimal.RequireFromString("0.65")) {
		t.Errorf("upfront period: invoice %s, amortized %s; want 999.75 and 0.65", b, c)
	}
}

func lineBy(t *testing.T, lines []*finops.BillingLine, pred func(*finops.BillingLine) bool) *finops.BillingLine {
	t.Helper()
	for _, l := range lines {
		if pred(l) {
			return l
		}
	}
	t.Fatal("no such line")
	return nil
}

func byResource(id string) func(*finops.BillingLine) bool {
	return func(l *finops.BillingLine) bool { return l.ResourceID == id }
}

func TestCURLineTypes(t *testing.T) {
	_, sink := mustParse(t, curDeliveryB+"gpu-report-2.csv.gz", Options{})
	ls := sink.lines
	checkCURUsageLines(t, ls)
	checkCURCommitmentLines(t, ls)
	checkCURChargeLines(t, ls)

	_, sink = mustParse(t, curDeliveryB+"gpu-report-1.csv.gz", Options{})
	sm := lineBy(t, sink.lines, func(l *finops.BillingLine) bool { return strings.Contains(l.ResourceID, "training-job") })
	if sm.GPUModel != "A10G" || sm.GPUCount != 1 || sm.InstanceType != "ml.g5.2xlarge" || sm.ListCost.String() != "1.515" {
		t.Errorf("SageMaker line: %+v", *sm)
	}
}

// checkCURUsageLines checks an on-demand GPU line (model, count, tags and
// cost categories) and a spot one.
func checkCURUsageLines(t *testing.T, ls []*finops.BillingLine) {
	t.Helper()
	p4d := lineBy(t, ls, byResource("i-0p4d"))
	if p4d.GPUModel != "A100-40GB" || p4d.GPUCount != 8 || p4d.PricingMode != finops.ModeHourly || !p4d.IsGPUUsage() ||
		p4d.Tags["team"] != "ml" || p4d.Tags["project"] != "llm" || p4d.Tags["costCategory/Team"] != "ML Platform" {
		t.Errorf("p4d line: %+v", *p4d)
	}
	spot := lineBy(t, ls, byResource("i-0g5spot"))
	if spot.PricingMode != finops.ModeSpot || spot.GPUModel != "A10G" || spot.GPUCount != 1 {
		t.Errorf("spot line: mode %q, %d × %q", spot.PricingMode, spot.GPUCount, spot.GPUModel)
	}
}

// checkCURCommitmentLines checks Savings Plan covered usage and its
// negation, the unused commitment fees and RI covered usage.
func checkCURCommitmentLines(t *testing.T, ls []*finops.BillingLine) {
	t.Helper()
	covered := lineBy(t, ls, func(l *finops.BillingLine) bool { return l.ResourceID == "i-0g512" && l.CommitmentStatus == "used" })
	if covered.EffectiveCost.String() != "3.5" || covered.BilledCost.String() != "5.672" || covered.GPUCount != 4 ||
		covered.PricingMode != finops.ModeCommitted || !strings.Contains(covered.CommitmentID, "savingsplan") {
		t.Errorf("SP covered usage: %+v", *covered)
	}
	negation := lineBy(t, ls, func(l *finops.BillingLine) bool { return l.ResourceID == "i-0g512" && l.CommitmentStatus == "" })
	if negation.IsGPUUsage() || !negation.EffectiveCost.IsZero() {
		t.Errorf("SP negation must cost 0 and not be a GPU line: %+v", *negation)
	}
	var unused []string
	for _, l := range ls {
		if l.CommitmentStatus == "unused" {
			unused = append(unused, l.EffectiveCost.String())
		}
	}
	if strings.Join(unused, ",") != "0.5,0.4" {
		t.Errorf("unused commitment lines %v, want the SP fee's 0.5 and the RI fee's 0.4", unused)
	}
	ri := lineBy(t, ls, byResource("i-0p3"))
	if ri.EffectiveCost.String() != "1.9" || ri.GPUModel != "V100" || ri.CommitmentStatus != "used" {
		t.Errorf("RI covered usage: %+v", *ri)
	}
}

// checkCURChargeLines counts the tax, credit and purchase lines and checks
// an instance of a GPU the catalog does not know.
func checkCURChargeLines(t *testing.T, ls []*finops.BillingLine) {
	t.Helper()
	for cat, n := range map[string]int{finops.ChargeTax: 1, finops.ChargeCredit: 2, finops.ChargePurchase: 2} {
		got := 0
		for _, l := range ls {
			if l.ChargeCategory == cat {
				got++
			}
		}
		if got != n {
			t.Errorf("%d %s lines, want %d", got, cat, n)
		}
	}
	b200 := lineBy(t, ls, byResource("i-0b200"))
	if b200.GPUModel != "" || b200.Tags[UnknownGPUTag] != "p6-b200.48xlarge" {
		t.Errorf("unknown GPU instance: model %q, tags %v", b200.GPUModel, b200.Tags)
	}
}

func TestCUR2MapColumns(t *testing.T) {
	_, sink := mustParse(t, cur2Data, Options{})
	p5 := lineBy(t, sink.lines, byResource("i-0p5"))
	if p5.GPUModel != "H100" || p5.GPUCount != 8 || p5.InstanceType != "p5.48xlarge" || p5.Service != "Amazon Elastic Compute Cloud" ||
		p5.Tags["team"] != "ml" || p5.Tags["project"] != "pretrain" || p5.Tags["costCategory/Team"] != "ML Platform" || p5.BillingAccount != "111122223333" {
		t.Errorf("p5 line (instance type and tags from the product and resource_tags maps): %+v", *p5)
	}
	g6 := lineBy(t, sink.lines, byResource("i-0g6"))
	if g6.Tags["team"] != "infer" || g6.GPUModel != "L4" {
		t.Errorf(`"user:team" map key: %+v`, *g6)
	}
	if d := time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC); !p5.ChargeStart.Equal(d) || !p5.ChargeEnd.Equal(d.Add(time.Hour)) {
		t.Errorf("period %v – %v", p5.ChargeStart, p5.ChargeEnd)
	}
}

// TestCURZip: CUR deliveries may be report-1.csv.zip.
func TestCURZip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gpu-report-1.csv.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, err := zw.Create("gpu-report-1.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(readFile(t, testdata("aws/test_cur.csv"))); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rc, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	sum, err := Parse(t.Context(), rc, Options{Name: path}, &countSink{})
	if err != nil || sum.Format != FormatCUR || sum.Rows != 19 {
		t.Errorf("zip: %v %+v", err, sum)
	}
}

// TestCURSampleDetails: koku's real headers — CRLF, a 131-column header with
// rows one cell short, NOK, snake_case Athena columns and their tags.
func TestCURSampleDetails(t *testing.T) {
	sum, sink := mustParse(t, "aws/test_cur.csv", Options{})
	if sum.Currencies[0] != "USD" || sink.lines[0].ResourceID != "i-16847552" || sink.lines[0].Service != "Amazon Elastic Compute Cloud" {
		t.Errorf("test_cur.csv first line: %+v", *sink.lines[0])
	}
	if got := sink.lines[0]; !got.ChargeStart.Equal(time.Date(2018, 6, 1, 0, 0, 0, 0, time.UTC)) || !got.ChargeEnd.Equal(time.Date(2018, 7, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("usage period %v – %v", got.ChargeStart, got.ChargeEnd)
	}
	sum, sink = mustParse(t, "aws/2023-06-01.csv", Options{})
	if len(sum.Currencies) != 1 || sum.Currencies[0] != "NOK" || sink.lines[0].CommitmentStatus != "used" || sink.lines[0].InstanceType != "m5.large" {
		t.Errorf("2023-06-01.csv: %v %+v", sum.Currencies, *sink.lines[0])
	}
	_, sink = mustParse(t, "aws/2022-07-01-alt-columns.csv", Options{})
	if sink.lines[0].Tags["aws_created_by"] != "IAMUser:fake:and" || !sink.lines[0].ChargeEnd.Equal(time.Date(2022, 7, 1, 1, 0, 0, 0, time.UTC)) {
		t.Errorf("alt columns: %+v", *sink.lines[0])
	}
}

// azureCostColumn is each Azure sample's cost column, as its header spells it.
var azureFiles = []struct {
	file, cost string
	rows       int
}{
	{"azure/EA_ActualCost_Small.csv", "Cost", 11},
	{"azure/EA_AmortizedCost_Small.csv", "Cost", 28},
	{"azure/azure_version_2.csv", "CostInBillingCurrency", 5},
	{"azure/camel_azure_version_2.csv", "costInBillingCurrency", 4},
	{"azure/costreport_a243c6f2-199f-4074-9a2c-40e671cf1584.csv", "PreTaxCost", 3},
	{"azure/BOM.csv", "PreTaxCost", 1},
	{"azure/Enterprise.csv", "CostInBillingCurrency", 1},
	{"azure/EnterpriseCamel.csv", "costInBillingCurrency", 1},
	{"azure/German.csv", "PreTaxCost (PreTaxCost)", 1},
	{"azure/PayAsYouGo.csv", "PreTaxCost", 1},
	{"azure/YA.csv", "costInBillingCurrency", 1},
	{"azure/MissingBrackets.csv", "costinbillingcurrency", 1},
	{"azure/VirtualMachine.csv", "costinbillingcurrency", 1},
	{"azure/delivery/exports/gpu-costs/20260101-20260131/202601051200/run-1111/part_0_0001.csv", "CostInBillingCurrency", 1},
	{"azure/delivery/exports/gpu-costs/20260101-20260131/202601071200/run-2222/part_0_0001.csv", "CostInBillingCurrency", 3},
	{"azure/delivery/exports/gpu-costs/20260101-20260131/202601071200/run-2222/part_0_0002.csv", "CostInBillingCurrency", 3},
}

// TestAzureFiles: every header family imports; each line costs what its row
// says, and the file's total is the sum of its cost column.
func TestAzureFiles(t *testing.T) {
	for _, c := range azureFiles {
		t.Run(c.file, func(t *testing.T) {
			hdr, rows := csvTable(t, c.file)
			ci := column(hdr, c.cost)
			if ci < 0 {
				t.Fatalf("no column %q", c.cost)
			}
			var want decimal.Decimal
			for _, r := range rows {
				want = want.Add(decOr0(at(r, ci)))
			}
			// Microsoft's sample files (BOM, MissingBrackets, VirtualMachine)
			// leave the currency out: the user says it with --currency.
			sum, sink := mustParse(t, c.file, Options{Currency: "USD"})
			if sum.Format != FormatAzure || sum.Rows != c.rows || len(rows) != c.rows {
				t.Errorf("%s, %d rows (file %d), want azure, %d", sum.Format, sum.Rows, len(rows), c.rows)
			}
			if cost, _ := sumCost(sink.lines); !cost.Equal(want) || !sum.TotalCost.Equal(want) {
				t.Errorf("total %s (summary %s), want Σ %s = %s", cost, sum.TotalCost, c.cost, want)
			}
			for i, l := range sink.lines {
				cell := at(rows[i], ci)
				c, ok := l.Cost()
				if cell == "" && ok || cell != "" && (!ok || !c.Equal(decimal.RequireFromString(cell))) {
					t.Errorf("line %d costs %v (ok %v), the row says %q", l.Line, c, ok, cell)
				}
				if l.Provider != "Microsoft" || !l.ChargeEnd.Equal(l.ChargeStart.Add(24*time.Hour)) {
					t.Errorf("line %d: provider %q, period %v – %v", l.Line, l.Provider, l.ChargeStart, l.ChargeEnd)
				}
			}
		})
	}
}

func TestAzureDetails(t *testing.T) {
	// German headers: the English name in parentheses; "100 Hours" × 3.
	_, sink := mustParse(t, "azure/German.csv", Options{})
	l := sink.lines[0]
	if l.UsageQuantity.String() != "300" || l.UsageUnit != "Hours" || l.Service != "Load Balancer" || l.Currency != "USD" ||
		l.SubAccount != "11111111-12ab-34dc-56ef-123456abcdef" {
		t.Errorf("German: %+v", *l)
	}
	// MM/DD/YYYY dates, tags without braces, "10 Hours" multiplier.
	_, sink = mustParse(t, "azure/Enterprise.csv", Options{})
	l = sink.lines[0]
	if !l.ChargeStart.Equal(time.Date(2021, 2, 2, 0, 0, 0, 0, time.UTC)) || l.Tags["poolName"] != "defaultpool" || l.UsageQuantity.String() != "100" || l.Currency != "CAD" {
		t.Errorf("Enterprise: %+v", *l)
	}
	_, sink = mustParse(t, "azure/MissingBrackets.csv", Options{Currency: "USD"})
	if sink.lines[0].Tags["aksEngineVersion"] != "aks-release-v0.47.0-1-aks" {
		t.Errorf("MissingBrackets tags: %v", sink.lines[0].Tags)
	}
	_, sink = mustParse(t, "azure/camel_azure_version_2.csv", Options{})
	if l = sink.lines[1]; l.UsageQuantity.String() != "4" || l.UsageUnit != "" { // 0.0004 × 10K
		t.Errorf("10K multiplier: %v %q", l.UsageQuantity, l.UsageUnit)
	}
	// The EA actual export charges the reservation purchase; the amortized
	// one spreads it over covered usage.
	sum, sink := mustParse(t, "azure/EA_ActualCost_Small.csv", Options{})
	p := lineBy(t, sink.lines, func(l *finops.BillingLine) bool { return l.ChargeCategory == finops.ChargePurchase })
	if p.BilledCost.String() != "3.25" || p.EffectiveCost != nil {
		t.Errorf("actual purchase: billed %v effective %v", p.BilledCost, p.EffectiveCost)
	}
	if sum.Period != "azure:8611537:2023-09" || sum.Delivery != "actual" {
		t.Errorf("actual export key %q %q", sum.Period, sum.Delivery)
	}
	sum, sink = mustParse(t, "azure/EA_AmortizedCost_Small.csv", Options{})
	covered := lineBy(t, sink.lines, func(l *finops.BillingLine) bool { return l.CommitmentStatus == "used" })
	if !covered.BilledCost.IsZero() || covered.EffectiveCost.String() != "0.493152" || covered.PricingMode != finops.ModeCommitted {
		t.Errorf("amortized covered usage: %+v", *covered)
	}
	if sum.Period != "azure:8611537:2023-09" || sum.Delivery != "amortized" {
		t.Errorf("amortized export key %q %q", sum.Period, sum.Delivery)
	}
}

func TestAzureGPUs(t *testing.T) {
	const run2 = "azure/delivery/exports/gpu-costs/20260101-20260131/202601071200/run-2222/"
	_, sink := mustParse(t, run2+"part_0_0001.csv", Options{})
	want := map[string]string{"a100-train": "A100-80GB×1 hourly", "t4-batch": "T4×1 spot", "nd-cluster-0": "A100-40GB×8 committed"}
	for _, l := range sink.lines {
		got := l.GPUModel + "×" + string(rune('0'+l.GPUCount)) + " " + l.PricingMode
		if want[l.ResourceName] != got || !l.IsGPUUsage() {
			t.Errorf("%s: %s, want %s", l.ResourceName, got, want[l.ResourceName])
		}
	}
	if l := lineBy(t, sink.lines, func(l *finops.BillingLine) bool { return l.ResourceName == "t4-batch" }); l.UsageQuantity.String() != "24" {
		t.Errorf("10 Hours × 2.4 = %v", l.UsageQuantity)
	}
	_, sink = mustParse(t, run2+"part_0_0002.csv", Options{})
	h100 := lineBy(t, sink.lines, func(l *finops.BillingLine) bool { return l.ResourceName == "h100-conf" })
	if h100.GPUModel != "" || h100.Tags[UnknownGPUTag] != "NCC40ads H100 v5" {
		t.Errorf("unknown GPU size: %q %v", h100.GPUModel, h100.Tags)
	}
	disk := lineBy(t, sink.lines, func(l *finops.BillingLine) bool { return l.ResourceName == "data-0" })
	if disk.GPUModel != "" || disk.Tags[UnknownGPUTag] != "" {
		t.Errorf("a disk is no GPU: %+v", *disk)
	}
}

// TestAzureMixedLineEnds: CRLF and LF in one file, a BOM, quoted newlines.
func TestAzureMixedLineEnds(t *testing.T) {
	in := "\ufeffDate,MeterCategory,MeterName,CostInBillingCurrency,BillingCurrency,Tags\r\n" +
		"01/02/2026,Virtual Machines,NC24ads A100 v4,3.67,USD,\"{\"\"team\"\":\r\n\"\"ml\"\"}\"\n" +
		"01/03/2026,Virtual Machines,NC24ads A100 v4,3.68,USD,\r\n" +
		"01/04/2026,Storage,P30,0.05,USD,\n"
	sink := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "mixed.csv"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 3 || sum.TotalCost.String() != "7.4" || sink.lines[0].Tags["team"] != "ml" || sink.lines[2].Line != 5 {
		t.Errorf("rows %d total %s tags %v last line %d", sum.Rows, sum.TotalCost, sink.lines[0].Tags, sink.lines[2].Line)
	}
}

var creditAmount = regexp.MustCompile(`'amount': (-?[0-9.e+-]+)`)

// TestGCPCSV: koku's flattened exports; net cost = cost + Σ credits, where
// the credits are Python repr text.
func TestGCPCSV(t *testing.T) {
	for _, c := range []struct {
		file string
		rows int
	}{
		{"gcp/202011_30c31bca571d9b7f3b2c8459dd8bc34a_2020-11-08_2020-11-11.csv", 25},
		{"gcp/2022-08-01_5.csv", 9},
	} {
		t.Run(c.file, func(t *testing.T) {
			hdr, rows := csvTable(t, c.file)
			ci, cr := column(hdr, "cost"), column(hdr, "credits")
			var want, gross decimal.Decimal
			for _, r := range rows {
				want, gross = want.Add(decOr0(r[ci])), gross.Add(decOr0(r[ci]))
				for _, m := range creditAmount.FindAllStringSubmatch(r[cr], -1) {
					want = want.Add(decimal.RequireFromString(m[1]))
				}
			}
			sum, sink := mustParse(t, c.file, Options{})
			if sum.Format != FormatGCP || sum.Rows != c.rows || len(rows) != c.rows {
				t.Errorf("%s %d rows (file %d), want gcp %d", sum.Format, sum.Rows, len(rows), c.rows)
			}
			cost, billed := sumCost(sink.lines)
			if !cost.Equal(want) || !billed.Equal(gross) {
				t.Errorf("net %s gross %s, want %s and %s", cost, billed, want, gross)
			}
		})
	}
	_, sink := mustParse(t, "gcp/202011_30c31bca571d9b7f3b2c8459dd8bc34a_2020-11-08_2020-11-11.csv", Options{})
	l := sink.lines[0]
	if l.BilledCost.String() != "0.000005" || !l.EffectiveCost.IsZero() || l.UsageQuantity.String() != "0.000023198314011096954" ||
		!l.ChargeStart.Equal(time.Date(2020, 11, 9, 23, 0, 0, 0, time.UTC)) || l.Provider != "Google Cloud" {
		t.Errorf("first row: %+v", *l)
	}
	if l := sink.lines[3]; l.Tags["goog-resource-type"] != "bigquery_resource" {
		t.Errorf("system labels: %v", l.Tags)
	}
}

// gcpJSONTotals decodes a JSON export independently: Σ cost + Σ credits.
func gcpJSONTotals(t *testing.T, name string) (rows int, net decimal.Decimal) {
	t.Helper()
	b := bytes.TrimSpace(readFile(t, testdata(name)))
	var recs []map[string]any
	if b[0] == '[' {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&recs); err != nil {
			t.Fatal(err)
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			d := json.NewDecoder(strings.NewReader(sc.Text()))
			d.UseNumber()
			var m map[string]any
			if err := d.Decode(&m); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, m)
		}
	}
	for _, r := range recs {
		net = net.Add(decimal.RequireFromString(string(r["cost"].(json.Number))))
		for _, c := range r["credits"].([]any) {
			net = net.Add(decimal.RequireFromString(string(c.(map[string]any)["amount"].(json.Number))))
		}
	}
	return len(recs), net
}

func TestGCPJSON(t *testing.T) {
	for _, f := range []string{"gcp/gpu_billing.json", "gcp/gpu_billing_array.json"} {
		t.Run(f, func(t *testing.T) {
			rows, want := gcpJSONTotals(t, f)
			sum, sink := mustParse(t, f, Options{})
			if sum.Format != FormatGCP || sum.Rows != rows {
				t.Errorf("%s, %d rows; want gcp, %d", sum.Format, sum.Rows, rows)
			}
			if cost, _ := sumCost(sink.lines); !cost.Equal(want) || !sum.TotalCost.Equal(want) {
				t.Errorf("net total %s, want %s", cost, want)
			}
		})
	}
	_, sink := mustParse(t, "gcp/gpu_billing.json", Options{})
	checkGCPGPULines(t, sink.lines)
	checkGCPOtherLines(t, sink.lines)
}

// checkGCPGPULines checks the GPU lines of the GCP export: an A2 core line
// and its A100 SKU (7200 GPU-seconds an hour: 2 GPUs), L4 spot, T4 and an
// unknown GPU SKU.
func checkGCPGPULines(t *testing.T, lines []*finops.BillingLine) {
	t.Helper()
	bySKU := func(prefix string) *finops.BillingLine {
		return lineBy(t, lines, func(l *finops.BillingLine) bool { return strings.HasPrefix(l.SKU, prefix) })
	}
	core := bySKU("A2 Instance Core")
	if core.InstanceType != "a2-highgpu-2g" || core.GPUModel != "A100-40GB" || core.GPUCount != 2 || core.Tags["team"] != "research" ||
		core.EffectiveCost.String() != "1.1" || core.ResourceName != "train-1" {
		t.Errorf("a2 core line: %+v", *core)
	}
	gpu := bySKU("Nvidia Tesla A100")
	if gpu.GPUModel != "A100-40GB" || gpu.GPUCount != 2 || gpu.PricingMode != finops.ModeCommitted || gpu.EffectiveCost.String() != "4.36" ||
		gpu.ResourceID != core.ResourceID || gpu.Line != 2 {
		t.Errorf("A100 GPU SKU (7200 GPU-seconds in an hour = 2 GPUs): %+v", *gpu)
	}
	if l := bySKU("Nvidia L4"); l.PricingMode != finops.ModeSpot || l.GPUModel != "L4" || l.GPUCount != 1 {
		t.Errorf("L4 spot: %+v", *l)
	}
	if l := bySKU("Nvidia Tesla T4"); l.GPUCount != 1 || l.ResourceName != "ml-prod/Nvidia Tesla T4 GPU running in Americas" || l.Tags["team"] != "ml" {
		t.Errorf("T4 half an hour: %+v", *l)
	}
	if l := bySKU("Nvidia Tesla P4"); l.GPUModel != "" || l.Tags[UnknownGPUTag] != "Nvidia Tesla P4 GPU running in EMEA" {
		t.Errorf("unknown GPU SKU: %+v", *l)
	}
}

// checkGCPOtherLines checks the commitment fee, a cost in scientific
// notation, and the tax and rounding rows.
func checkGCPOtherLines(t *testing.T, lines []*finops.BillingLine) {
	t.Helper()
	bySKU := func(prefix string) *finops.BillingLine {
		return lineBy(t, lines, func(l *finops.BillingLine) bool { return strings.HasPrefix(l.SKU, prefix) })
	}
	if l := bySKU("Commitment v1"); l.ChargeCategory != finops.ChargePurchase || l.GPUModel != "" {
		t.Errorf("commitment fee: %+v", *l)
	}
	if l := bySKU("Network"); l.BilledCost.String() != "0.000025" {
		t.Errorf("scientific notation: %v", l.BilledCost)
	}
	if bySKU("Tax").ChargeCategory != finops.ChargeTax || bySKU("Rounding").ChargeCategory != finops.ChargeAdjustment {
		t.Error("tax and rounding rows")
	}
}

func TestParseLiteral(t *testing.T) {
	v, err := parseLiteral(`[{'name': 'FreeTrial:Credit', 'amount': -5e-06, 'full_name': None, 'ok': True, "json": null, 'esc': 'it\'s \u00e9'}]`)
	if err != nil {
		t.Fatal(err)
	}
	m := v.([]any)[0].(map[string]any)
	if m["amount"] != pyNumber("-5e-06") || m["full_name"] != nil || m["ok"] != true || m["esc"] != "it's é" || m["name"] != "FreeTrial:Credit" {
		t.Errorf("%#v", m)
	}
	for _, bad := range []string{"[", "[{'a': }]", "{'a' 1}", "[1,", strings.Repeat("[", 100) + strings.Repeat("]", 100), "'open"} {
		if _, err := parseLiteral(bad); err == nil {
			t.Errorf("parseLiteral(%q) accepted", bad)
		}
	}
}

// TestCloudBadInputs: bad cloud files name the file, line and field.
func TestCloudBadInputs(t *testing.T) {
	for _, c := range []struct {
		file, format string
		parts        []string
	}{
		{"cur_bad_cost.csv", "", []string{"cur_bad_cost.csv:3", `"lineItem/UnblendedCost"`, `"1,25"`, "decimal"}},
		{"cur_bad_date.csv", "", []string{"cur_bad_date.csv:2", `"lineItem/UsageStartDate"`, "2026-13-10"}},
		{"cur_cut_row.csv", "", []string{"cur_cut_row.csv:2", "cut off"}},
		{"cur2_bad_map.csv", "", []string{"cur2_bad_map.csv:3", `"resource_tags"`, "JSON object"}},
		{"azure_bad_date.csv", "", []string{"azure_bad_date.csv:3", `"Date"`, "21/09/2023", "MM/DD/YYYY"}},
		{"azure_bad_tags.csv", "", []string{"azure_bad_tags.csv:2", `"Tags"`}},
		{"azure_bad_cost.csv", "", []string{"azure_bad_cost.csv:2", `"CostInBillingCurrency"`, "3.67 USD"}},
		{"gcp_bad_credits.csv", "", []string{"gcp_bad_credits.csv:3", `"credits"`, "lots"}},
		{"gcp_bad_labels.csv", "", []string{"gcp_bad_labels.csv:2", `"labels"`}},
		{"gcp_bad_cost.json", "", []string{"gcp_bad_cost.json:2", `"cost"`, "abc"}},
		{"gcp_truncated.json", "", []string{"gcp_truncated.json:2", "cut off"}},
		{"gcp_end_before_start.json", "", []string{"gcp_end_before_start.json:3", "usage_end_time"}},
		{"cur_bad_cost.csv", FormatAzure, []string{"cur_bad_cost.csv:1", "not an Azure cost export", "AWS Cost and Usage Report"}},
		{"azure_bad_tags.csv", FormatGCP, []string{"azure_bad_tags.csv:1", "usage_start_time", "Azure"}},
	} {
		t.Run(c.file+"/"+c.format, func(t *testing.T) {
			_, _, err := parseFile(t, "bad/"+c.file, Options{Format: c.format, Currency: "USD"})
			t.Log(err)
			wantErrParts(t, err, c.parts...)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("%T is not a *ParseError", err)
			}
		})
	}
	// A bad row may be tolerated and counted when the policy allows it.
	sum, sink, err := parseFile(t, "bad/gcp_bad_cost.json", Options{MaxBadRows: 1})
	if err != nil || sum.Rows != 1 || len(sum.Rejected) != 1 || len(sink.lines) != 1 {
		t.Errorf("max-bad-rows 1: %v, %+v", err, sum)
	}
}

func TestDetectCloudFormats(t *testing.T) {
	for file, want := range map[string]string{
		"aws/test_cur.csv": FormatCUR, "aws/2022-07-01-alt-columns.csv": FormatCUR, cur2Data: FormatCUR2,
		"azure/German.csv": FormatAzure, "azure/YA.csv": FormatAzure, "azure/MissingBrackets.csv": FormatAzure,
		"gcp/2022-08-01_5.csv": FormatGCP,
	} {
		hdr, _ := csvTable(t, file)
		got, _, err := DetectFormat(hdr, BuiltinMappings())
		if got != want || err != nil {
			t.Errorf("%s: %q, %v; want %s", file, got, err, want)
		}
	}
}
