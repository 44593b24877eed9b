package ingest

import (
	"bytes"
	"context"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// Headers of the built-in mappings as the providers deliver them, each from
// the source docs/INGEST.md ("Where the built-in headers come from") names.
// They are kept here column for column, so that a renamed column in a mapping
// fails these tests rather than a user's import.

// alibabaBillingItemDetailHeader is the 41-column header of Alibaba Cloud's
// 计费项账单明细 (BillingItemDetail) as aliyun/aliyun-log-java-sdk @ e661464d
// (IngestionFunctionTest.java) configures it for OSS-delivered bills.
var alibabaBillingItemDetailHeader = strings.Split("账期,财务单元,账号ID,账号,Owner账号,产品Code,产品,产品明细Code,产品明细,"+
	"消费类型,消费时间,账单开始时间,账单结束时间,服务时长,订单号/账单号,账单类型,计费方式,实例ID,实例昵称,资源组,实例标签,"+
	"实例配置,实例规格,公网IP,私网IP,地域,可用区,计费项,单价,单价单位,用量,用量单位,资源包抵扣,原价,优惠金额,优惠券抵扣,"+
	"应付金额,现金支付,代金券抵扣,储值卡支付金额,欠费金额", ",")

// tencentBillHeader is the field list of Tencent Cloud's "Bill Fields
// Description" (tencentcloud.com/document/product/1085/43050), in its order;
// the names finops reads also appear, spelled the same, in a public COS bill
// processor that reads such files by column name.
var tencentBillHeader = []string{
	"Payer Account ID", "Owner Account ID", "Operator Account ID", "ProductName", "BillingMode", "ProjectName",
	"Region", "Availability Zone", "InstanceID", "InstanceName", "SubproductName", "TransactionType",
	"TransactionID", "TransactionTime", "Usage Start Time", "Usage End Time", "ComponentType", "ComponentName",
	"Component List Price", "Component Contracted Price", "Component Price Measurement Unit", "Component Usage",
	"Component Usage Unit", "Usage Duration", "Duration Unit", "Reserved Instances", "OriginalCost", "DiscountRate",
	"Currency", "Total Amount After Discount (Excluding Tax)", "Voucher Deduction", "Amount Before Tax", "TaxRate",
	"TaxAmount", "Total Cost (Including Tax)",
}

// verifiedCSV writes a header and rows given by column name; columns a row
// leaves out are empty, as in the real files where a field does not apply.
func verifiedCSV(t *testing.T, header []string, rows []map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(header)
	known := map[string]bool{}
	for _, h := range header {
		known[h] = true
	}
	for _, r := range rows {
		rec := make([]string, len(header))
		for k := range r {
			if !known[k] {
				t.Fatalf("row names column %q, which the header lacks", k)
			}
		}
		for i, h := range header {
			rec[i] = r[h]
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return b.Bytes()
}

// TestRentalVerifiedHeaders parses a CSV with each real header through the
// built-in mappings: the mapping must be the one detected, and every amount,
// span, mode and GPU must come from the column the header gives it. The rows
// are made up; the expectations are added up by hand from them.
func TestRentalVerifiedHeaders(t *testing.T) {
	utc := func(y, mo, d, h int) time.Time { return time.Date(y, time.Month(mo), d, h, 0, 0, 0, time.UTC) }
	type line struct {
		id          string
		start, end  time.Time
		mode, model string
		count       int
		cost, list  string
	}
	cases := []struct {
		name        string
		header      []string
		rows        []map[string]string
		mapping     string
		provider    string
		currency    string
		total, list string // Σ cost and Σ list cost, by hand
		gpuLines    int
		lines       []line
	}{{
		name:   "alibaba BillingItemDetail (Chinese, OSS and console)",
		header: alibabaBillingItemDetailHeader,
		rows: []map[string]string{
			{"账期": "2026-11", "账号ID": "1234567890123456", "产品Code": "ecs", "产品": "云服务器 ECS", "消费类型": "消费",
				"账单开始时间": "2026-11-01 00:00:00", "账单结束时间": "2026-11-01 10:00:00", "计费方式": "按量付费",
				"实例ID": "i-bp1gpu0001", "实例昵称": "train-a10", "实例规格": "ecs.gn7i-c8g1.2xlarge", "地域": "华东1（杭州）",
				"计费项": "实例规格", "用量": "10", "用量单位": "小时", "原价": "88.40", "优惠金额": "8.84", "应付金额": "79.56", "现金支付": "79.56"},
			{"账期": "2026-11", "账号ID": "1234567890123456", "产品Code": "ecs", "产品": "云服务器 ECS", "消费类型": "消费",
				"账单开始时间": "2026-11-01 00:00:00", "账单结束时间": "2026-11-01 10:00:00", "计费方式": "按量付费",
				"实例ID": "i-bp1gpu0001", "实例昵称": "train-a10", "实例规格": "ecs.gn7i-c8g1.2xlarge", "地域": "华东1（杭州）",
				"计费项": "系统盘", "用量": "400", "用量单位": "GB*小时", "原价": "1.20", "应付金额": "1.20", "现金支付": "1.20"},
			{"账期": "2026-11", "账号ID": "1234567890123456", "产品Code": "ecs", "产品": "云服务器 ECS", "消费类型": "新购",
				"账单开始时间": "2026-11-01 00:00:00", "账单结束时间": "2026-12-01 00:00:00", "计费方式": "包年包月",
				"实例ID": "i-bp1gpu0002", "实例规格": "ecs.gn7e-c16g1.4xlarge", "实例标签": "team:nlp;env:prod", "地域": "华北2（北京）",
				"原价": "20000.00", "优惠金额": "3000.00", "应付金额": "17000.00", "现金支付": "17000.00"},
		},
		mapping: "alibaba", provider: "Alibaba Cloud", currency: "CNY",
		// 应付金额 79.56 + 1.20 + 17000.00; 原价 88.40 + 1.20 + 20000.00.
		total: "17080.76", list: "20089.60", gpuLines: 3,
		// China time: 2026-11-01 00:00 is 2026-10-31 16:00 UTC. gn7i-c8g1.2xlarge
		// has 8 vCPUs at one A10 per 8; gn7e-c16g1.4xlarge 16 at one A100-80GB per 16.
		lines: []line{
			{"i-bp1gpu0001", utc(2026, 10, 31, 16), utc(2026, 11, 1, 2), finops.ModeHourly, "A10", 1, "79.56", "88.40"},
			{"i-bp1gpu0001", utc(2026, 10, 31, 16), utc(2026, 11, 1, 2), finops.ModeHourly, "A10", 1, "1.20", "1.20"},
			{"i-bp1gpu0002", utc(2026, 10, 31, 16), utc(2026, 11, 30, 16), finops.ModeMonthly, "A100-80GB", 1, "17000.00", "20000.00"},
		},
	}, {
		name:   "tencent bill (English, COS-delivered)",
		header: tencentBillHeader,
		rows: []map[string]string{
			{"Payer Account ID": "100012345678", "Owner Account ID": "100012345678", "ProductName": "Cloud Virtual Machine",
				"BillingMode": "Pay-as-You-Go resources", "Region": "Singapore", "InstanceID": "ins-a1b2c3d4", "InstanceName": "gpu-train-1",
				"TransactionType": "Hourly settlement", "Usage Start Time": "2026-11-02 00:00:00", "Usage End Time": "2026-11-02 01:00:00",
				"ComponentType": "CPU", "Component Usage": "1", "Component Usage Unit": "Unit", "OriginalCost": "3.50", "DiscountRate": "0.9",
				"Currency": "USD", "Total Amount After Discount (Excluding Tax)": "3.15", "Amount Before Tax": "3.15", "Total Cost (Including Tax)": "3.15"},
			{"Payer Account ID": "100012345678", "Owner Account ID": "100012345678", "ProductName": "Cloud Virtual Machine",
				"BillingMode": "Pay-as-You-Go resources", "Region": "Singapore", "InstanceID": "ins-a1b2c3d4", "InstanceName": "gpu-train-1",
				"TransactionType": "Hourly settlement", "Usage Start Time": "2026-11-02 00:00:00", "Usage End Time": "2026-11-02 01:00:00",
				"ComponentType": "System disk", "Component Usage": "100", "Component Usage Unit": "GB", "OriginalCost": "0.02", "DiscountRate": "1",
				"Currency": "USD", "Total Amount After Discount (Excluding Tax)": "0.02", "Amount Before Tax": "0.02", "Total Cost (Including Tax)": "0.02"},
			{"Payer Account ID": "100012345678", "Owner Account ID": "100087654321", "ProductName": "Cloud Virtual Machine",
				"BillingMode": "Monthly subscription", "Region": "Silicon Valley", "InstanceID": "ins-e5f6g7h8",
				"TransactionType": "Purchase", "Usage Start Time": "2026-11-01 00:00:00", "Usage End Time": "2026-12-01 00:00:00",
				"OriginalCost": "1200.00", "DiscountRate": "0.9", "Currency": "USD", "Total Amount After Discount (Excluding Tax)": "1080.00",
				"Voucher Deduction": "80.00", "Amount Before Tax": "1000.00", "Total Cost (Including Tax)": "1000.00"},
		},
		mapping: "tencent", provider: "Tencent Cloud", currency: "USD",
		// Total Amount After Discount 3.15 + 0.02 + 1080.00; OriginalCost 3.50 + 0.02 + 1200.00.
		total: "1083.17", list: "1203.52", gpuLines: 0,
		// No offset in the file: read in Options.Location, UTC here.
		lines: []line{
			{"ins-a1b2c3d4", utc(2026, 11, 2, 0), utc(2026, 11, 2, 1), finops.ModeHourly, "", 0, "3.15", "3.50"},
			{"ins-a1b2c3d4", utc(2026, 11, 2, 0), utc(2026, 11, 2, 1), finops.ModeHourly, "", 0, "0.02", "0.02"},
			{"ins-e5f6g7h8", utc(2026, 11, 1, 0), utc(2026, 12, 1, 0), finops.ModeMonthly, "", 0, "1080.00", "1200.00"},
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sink := &recSink{}
			sum, err := Parse(context.Background(), bytes.NewReader(verifiedCSV(t, c.header, c.rows)), Options{Name: c.mapping + ".csv"}, sink)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if len(sum.Rejected) > 0 {
				t.Fatalf("rejected %v", sum.Rejected)
			}
			if sum.Format != FormatRental || sum.Mapping != c.mapping {
				t.Fatalf("format %q mapping %q, want rental %q", sum.Format, sum.Mapping, c.mapping)
			}
			if !sum.TotalCost.Equal(decimal.RequireFromString(c.total)) {
				t.Errorf("TotalCost %s, want %s", sum.TotalCost, c.total)
			}
			var list decimal.Decimal
			for _, l := range sink.lines {
				list = list.Add(*l.ListCost)
			}
			if !list.Equal(decimal.RequireFromString(c.list)) {
				t.Errorf("Σ ListCost %s, want %s", list, c.list)
			}
			if sum.Rows != len(c.rows) || sum.GPULines != c.gpuLines {
				t.Errorf("rows %d GPU lines %d, want %d and %d", sum.Rows, sum.GPULines, len(c.rows), c.gpuLines)
			}
			if got := strings.Join(sum.Currencies, ","); got != c.currency {
				t.Errorf("currencies %q, want %q", got, c.currency)
			}
			for i, w := range c.lines {
				l := sink.lines[i]
				if l.ResourceID != w.id || !l.ChargeStart.Equal(w.start) || !l.ChargeEnd.Equal(w.end) ||
					l.PricingMode != w.mode || l.GPUModel != w.model || l.GPUCount != w.count || l.Provider != c.provider {
					t.Errorf("line %d: got id %q %s..%s mode %q GPU %d × %q provider %q\nwant %+v", i, l.ResourceID,
						l.ChargeStart, l.ChargeEnd, l.PricingMode, l.GPUCount, l.GPUModel, l.Provider, w)
				}
				if !l.BilledCost.Equal(decimal.RequireFromString(w.cost)) || !l.ListCost.Equal(decimal.RequireFromString(w.list)) {
					t.Errorf("line %d: cost %s list %s, want %s and %s", i, l.BilledCost, l.ListCost, w.cost, w.list)
				}
			}
		})
	}
}
