package demo

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Resource ids (AutoDL 实例ID / FOCUS ResourceId) and hosts of the fleet.
const (
	ResA100 = "autodl-a100x2"
	Res4090 = "autodl-4090-01"
	ResL40S = "autodl-l40s-batch"
	ResA10G = "i-0a10g00000000001"

	HostA100 = "a100-box"
	Host4090 = "r4090-01"
	HostL40S = "l40s-01"
	HostA10G = "ip-10-0-1-23"
)

// AutoDL billing: exact amounts in CNY.
var (
	a100Monthly  = decimal.RequireFromString("14000.00") // per 30 days, both cards
	a100List     = decimal.RequireFromString("17500.00") // 原价: monthly discount of 20%
	r4090PerHour = decimal.RequireFromString("2.00")
	l40sPerHour  = decimal.RequireFromString("4.50")
)

// AutoDLHeader is the header of billing/autodl.csv (the built-in "autodl" mapping).
var AutoDLHeader = []string{"实例ID", "实例名称", "GPU型号", "计费方式", "开始时间", "结束时间", "应付金额", "原价"}

const (
	autodlTime = "2006-01-02 15:04:05"
	focusTime  = "2006-01-02 15:04:05"
)

// writeAutoDL writes billing/autodl.csv: one row per A100 rental period and one
// row per day for each hourly instance, oldest first.
func (g *gen) writeAutoDL() error {
	type row struct {
		start, end time.Time
		rec        []string
	}
	var rows []row
	add := func(id, name, gpu, mode string, s, e time.Time, cost, list decimal.Decimal) {
		rows = append(rows, row{s, e, []string{id, name, gpu, mode,
			s.In(g.loc).Format(autodlTime), e.In(g.loc).Format(autodlTime),
			cost.StringFixed(2), list.StringFixed(2)}})
	}
	for _, p := range g.a100 {
		add(ResA100, "nlp-lora-a100x2", "A100-SXM4-80GB * 2", "包月", p.start, p.end, a100Monthly, a100List)
	}
	for _, d := range g.days() {
		s, e := d.Add(9*time.Hour), d.Add(19*time.Hour)
		c := r4090PerHour.Mul(decimal.NewFromInt(10))
		add(Res4090, "cv-train-4090", "RTX 4090 * 1", "按量", s, e, c, c)
		s, e = d.Add(8*time.Hour), d.Add(20*time.Hour)
		c = l40sPerHour.Mul(decimal.NewFromInt(12))
		add(ResL40S, "search-batch-l40s", "NVIDIA L40S * 1", "按量", s, e, c, c)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if !rows[i].start.Equal(rows[j].start) {
			return rows[i].start.Before(rows[j].start)
		}
		return rows[i].rec[0] < rows[j].rec[0]
	})

	f, err := g.create("billing", "autodl.csv")
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	w := csv.NewWriter(bw)
	_ = w.Write(AutoDLHeader)
	for _, r := range rows {
		_ = w.Write(r.rec)
	}
	w.Flush()
	return closeAll(f, bw, w.Error())
}

// FOCUSHeader is the 44-column header of the FOCUS 1.0 sample data
// (FOCUS-Sample-Data focus_sample.csv) plus the custom column x_InstanceType.
var FOCUSHeader = []string{"AvailabilityZone", "BilledCost", "BillingAccountId", "BillingAccountName",
	"BillingCurrency", "BillingPeriodEnd", "BillingPeriodStart", "ChargeCategory", "ChargeClass",
	"ChargeDescription", "ChargeFrequency", "ChargePeriodEnd", "ChargePeriodStart",
	"CommitmentDiscountCategory", "CommitmentDiscountId", "CommitmentDiscountName",
	"CommitmentDiscountStatus", "CommitmentDiscountType", "ConsumedQuantity", "ConsumedUnit",
	"ContractedCost", "ContractedUnitPrice", "EffectiveCost", "InvoiceIssuerName", "ListCost",
	"ListUnitPrice", "PricingCategory", "PricingQuantity", "PricingUnit", "ProviderName",
	"PublisherName", "RegionId", "RegionName", "ResourceId", "ResourceName", "ResourceType",
	"ServiceCategory", "Id", "ServiceName", "SkuId", "SkuPriceId", "SubAccountId", "SubAccountName",
	"Tags", "x_InstanceType"}

// A FOCUS cell: a quoted string, a bare number, or NULL (written bare, as in
// the sample data).
type cell struct {
	v    string
	kind byte // 's' quoted string, 'n' bare number, 0 NULL
}

func str(s string) cell { return cell{s, 's'} }
func num(s string) cell { return cell{s, 'n'} }

// focusRow builds rows keyed by column name.
type focusRow map[string]cell

const (
	awsAccount  = "123456789012"
	awsIssuer   = "Amazon Web Services, Inc."
	awsRegion   = "us-west-2"
	awsRegionNm = "US West (Oregon)"
	awsTags     = `{"team":"platform","service":"chat-api"}`
	ec2Service  = "Amazon Elastic Compute Cloud"
)

var g5Hourly = decimal.RequireFromString("1.006") // USD per instance-hour

func fixed(d decimal.Decimal) string { return d.StringFixed(11) }

// base fills the columns every AWS row shares.
func (g *gen) focusBase(s, e time.Time) focusRow {
	s, e = s.UTC(), e.UTC()
	bps := time.Date(s.Year(), s.Month(), 1, 0, 0, 0, 0, time.UTC)
	r := focusRow{
		"BillingAccountId":   str(awsAccount),
		"BillingAccountName": str("Example AI Ltd"),
		"BillingCurrency":    str("USD"),
		"BillingPeriodStart": str(bps.Format(focusTime)),
		"BillingPeriodEnd":   str(bps.AddDate(0, 1, 0).Format(focusTime)),
		"ChargePeriodStart":  str(s.Format(focusTime)),
		"ChargePeriodEnd":    str(e.Format(focusTime)),
		"InvoiceIssuerName":  str(awsIssuer),
		"ProviderName":       str("AWS"),
		"PublisherName":      str(awsIssuer),
		"SubAccountId":       str(awsAccount),
		"SubAccountName":     str("ml-prod"),
	}
	return r
}

func setCosts(r focusRow, cost decimal.Decimal) {
	c := num(fixed(cost))
	r["BilledCost"], r["EffectiveCost"], r["ListCost"], r["ContractedCost"] = c, c, c, c
}

// writeFOCUS writes billing/aws-focus.csv: the g5.xlarge every hour of the
// history, daily S3 and EBS rows, and one tax and one credit row in the
// report week.
func (g *gen) writeFOCUS() error {
	r := newRand(g.seed, streamFOCUS)
	var rows []focusRow

	for t := g.hist.Start.UTC(); t.Before(g.hist.End); t = t.Add(time.Hour) {
		row := g.focusBase(t, t.Add(time.Hour))
		setCosts(row, g5Hourly)
		row["AvailabilityZone"] = str(awsRegion + "a")
		row["ChargeCategory"] = str("Usage")
		row["ChargeDescription"] = str("$1.006 per On Demand Linux g5.xlarge Instance Hour")
		row["ChargeFrequency"] = str("Usage-Based")
		row["ConsumedQuantity"] = num("1.000000000000000")
		row["ConsumedUnit"] = str("Hours")
		row["ContractedUnitPrice"] = num(fixed(g5Hourly))
		row["ListUnitPrice"] = str("1.006")
		row["PricingCategory"] = str("Standard")
		row["PricingQuantity"] = num("1.00000000000")
		row["PricingUnit"] = str("Hours")
		row["RegionId"] = str(awsRegion)
		row["RegionName"] = str(awsRegionNm)
		row["ResourceId"] = str(ResA10G)
		row["ResourceName"] = str("chat-api-gpu-1")
		row["ResourceType"] = str("g5.xlarge")
		row["ServiceCategory"] = str("Compute")
		row["ServiceName"] = str(ec2Service)
		row["SkuId"] = str("8WGAEXSBPDHVNDQT")
		row["SkuPriceId"] = str("8WGAEXSBPDHVNDQT.JRTCKXETXF.6YS6EN2CT7")
		row["Tags"] = str(awsTags)
		row["x_InstanceType"] = str("g5.xlarge")
		rows = append(rows, row)
	}

	// Daily non-GPU rows for every whole UTC day in the history.
	first := g.hist.Start.UTC().Truncate(24 * time.Hour)
	if first.Before(g.hist.Start) {
		first = first.Add(24 * time.Hour)
	}
	ebsDaily := decimal.RequireFromString("16").Div(decimal.NewFromInt(30)).Round(11) // 200 GB gp3 at $0.08/GB-month
	for d := first; !d.Add(24 * time.Hour).After(g.hist.End); d = d.Add(24 * time.Hour) {
		e := d.Add(24 * time.Hour)

		s3 := g.focusBase(d, e)
		gb := decimal.New(int64(10000+r.IntN(1000)), -1) // 1,000–1,100 GB stored: ≈ $0.80 a day
		cost := gb.Mul(decimal.RequireFromString("0.023")).Div(decimal.NewFromInt(30)).Round(11)
		setCosts(s3, cost)
		s3["ChargeCategory"] = str("Usage")
		s3["ChargeDescription"] = str("$0.023 per GB - first 50 TB / month of storage used")
		s3["ChargeFrequency"] = str("Usage-Based")
		s3["ConsumedQuantity"] = num(gb.Div(decimal.NewFromInt(30)).StringFixed(15))
		s3["ConsumedUnit"] = str("GB-Mo")
		s3["ContractedUnitPrice"] = num(fixed(decimal.RequireFromString("0.023")))
		s3["ListUnitPrice"] = str("0.023")
		s3["PricingCategory"] = str("Standard")
		s3["PricingQuantity"] = num(fixed(gb.Div(decimal.NewFromInt(30))))
		s3["PricingUnit"] = str("GB-Mo")
		s3["RegionId"] = str(awsRegion)
		s3["RegionName"] = str(awsRegionNm)
		s3["ResourceId"] = str("arn:aws:s3:::example-chat-api-artifacts")
		s3["ResourceName"] = str("example-chat-api-artifacts")
		s3["ResourceType"] = str("Bucket")
		s3["ServiceCategory"] = str("Storage")
		s3["ServiceName"] = str("Amazon Simple Storage Service")
		s3["SkuId"] = str("WP9ANXZGBYYSGJEA")
		s3["SkuPriceId"] = str("WP9ANXZGBYYSGJEA.JRTCKXETXF.PGHJ3S3EYE")
		s3["Tags"] = str(awsTags)
		rows = append(rows, s3)

		ebs := g.focusBase(d, e)
		setCosts(ebs, ebsDaily)
		ebs["AvailabilityZone"] = str(awsRegion + "a")
		ebs["ChargeCategory"] = str("Usage")
		ebs["ChargeDescription"] = str("$0.08 per GB-month of General Purpose (gp3) provisioned storage - US West (Oregon)")
		ebs["ChargeFrequency"] = str("Usage-Based")
		ebs["ConsumedQuantity"] = num(decimal.NewFromInt(200).Div(decimal.NewFromInt(30)).StringFixed(15))
		ebs["ConsumedUnit"] = str("GB-Mo")
		ebs["ContractedUnitPrice"] = num(fixed(decimal.RequireFromString("0.08")))
		ebs["ListUnitPrice"] = str("0.08")
		ebs["PricingCategory"] = str("Standard")
		ebs["PricingQuantity"] = num(fixed(decimal.NewFromInt(200).Div(decimal.NewFromInt(30))))
		ebs["PricingUnit"] = str("GB-Mo")
		ebs["RegionId"] = str(awsRegion)
		ebs["RegionName"] = str(awsRegionNm)
		ebs["ResourceId"] = str("vol-0c0ffee0123456789")
		ebs["ResourceName"] = str("chat-api-gpu-1-root")
		ebs["ResourceType"] = str("Volume")
		ebs["ServiceCategory"] = str("Storage")
		ebs["ServiceName"] = str(ec2Service)
		ebs["SkuId"] = str("HY3BZPP2B6K8MSJF")
		ebs["SkuPriceId"] = str("HY3BZPP2B6K8MSJF.JRTCKXETXF.6YS6EN2CT7")
		ebs["Tags"] = str(awsTags)
		rows = append(rows, ebs)
	}

	// Tax and credit: one each, for a UTC day inside the report week (its Wednesday).
	wed := g.week.Start.AddDate(0, 0, 2).UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	tax := g.focusBase(wed, wed.Add(24*time.Hour))
	setCosts(tax, decimal.RequireFromString("12.35"))
	tax["ChargeCategory"] = str("Tax")
	tax["ChargeDescription"] = str("Tax for product code AmazonEC2")
	tax["ChargeFrequency"] = str("One-Time")
	tax["ServiceCategory"] = str("Compute")
	tax["ServiceName"] = str(ec2Service)
	rows = append(rows, tax)

	credit := g.focusBase(wed, wed.Add(24*time.Hour))
	setCosts(credit, decimal.RequireFromString("-4.00"))
	credit["ChargeCategory"] = str("Credit")
	credit["ChargeDescription"] = str("AWS Activate promotional credit")
	credit["ChargeFrequency"] = str("One-Time")
	credit["ServiceCategory"] = str("Compute")
	credit["ServiceName"] = str(ec2Service)
	rows = append(rows, credit)

	sort.SliceStable(rows, func(i, j int) bool {
		return rows[i]["ChargePeriodStart"].v < rows[j]["ChargePeriodStart"].v
	})

	f, err := g.create("billing", "aws-focus.csv")
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	for i, h := range FOCUSHeader {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(quote(h))
	}
	bw.WriteByte('\n')
	for i, row := range rows {
		row["Id"] = num(strconv.Itoa(100001 + i))
		for j, h := range FOCUSHeader {
			if j > 0 {
				bw.WriteByte(',')
			}
			c := row[h]
			switch c.kind {
			case 's':
				bw.WriteString(quote(c.v))
			case 'n':
				bw.WriteString(c.v)
			default:
				bw.WriteString("NULL")
			}
		}
		bw.WriteByte('\n')
	}
	return closeAll(f, bw, nil)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// closeAll flushes bw, closes f and returns the first error.
func closeAll(f interface{ Close() error }, bw *bufio.Writer, err error) error {
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
