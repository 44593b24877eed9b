package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	_ "time/tzdata" // rental platforms in China bill in Asia/Shanghai; hosts may lack tzdata

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
	"github.com/shopspring/decimal"
)

const (
	rentalTimeExample   = "a time like 2026-11-02 09:00:00, 2026/11/02 09:00:00 or 2026-11-02T09:00:00+08:00"
	rentalAmountExample = "an amount like 1234.50, ¥1,234.50 or -3.00"
)

// BuiltinMappings returns the column mappings finops ships for rental
// platforms without a public export format. They are tried after the
// configured ones.
//
// The Chinese-header ones read GBK files as well as UTF-8 ones: consoles in
// China and Excel on Chinese Windows save CSVs in GBK, and a UTF-8 file is
// recognised as such. docs/INGEST.md says which header each was checked
// against and where that header comes from.
func BuiltinMappings() []ColumnMapping {
	return []ColumnMapping{{
		// AutoDL's console bill export (Chinese headers; amounts in CNY, times in China time).
		Name:     "autodl",
		Provider: "AutoDL",
		Currency: "CNY",
		Columns: map[string]string{
			"resource_id":   "实例ID",
			"resource_name": "实例名称",
			"gpu":           "GPU型号", // "RTX 4090 * 1"
			"pricing_mode":  "计费方式",  // 按量计费, 包日, 包周, 包月
			"start":         "开始时间",
			"end":           "结束时间",
			"cost":          "应付金额",
			"list_cost":     "原价",
		},
		Location:   chinaTime(),
		Encoding:   EncodingGB18030,
		documented: strings.Split(autodlHeader, ","),
	}, {
		// Alibaba Cloud's 计费项账单明细 (BillingItemDetail) CSV, China site:
		// amounts in CNY, times in China time. The GPU comes from 实例规格
		// (ecs.gn7i-c8g1.2xlarge → 1 × A10) through the catalog, else from the
		// free text of 实例配置. Tags are "key1:value1;key2:value2".
		Name:     "alibaba",
		Provider: "Alibaba Cloud",
		Currency: "CNY",
		Columns: map[string]string{
			"resource_id":     "实例ID",
			"resource_name":   "实例昵称",
			"start":           "账单开始时间",
			"end":             "账单结束时间",
			"cost":            "应付金额", // PretaxAmount: after discounts, before coupons and cash
			"list_cost":       "原价",   // PretaxGrossAmount
			"pricing_mode":    "计费方式", // 包年包月, 按量付费, 抢占式实例
			"sku":             "实例规格",
			"instance_config": "实例配置",
			"tags":            "实例标签",
			"region":          "地域",
			"account":         "账号ID",
			"service":         "产品",
			"usage_quantity":  "用量",
			"usage_unit":      "用量单位",
		},
		Location:   chinaTime(),
		Encoding:   EncodingGB18030,
		documented: strings.Split(alibabaHeader, ","),
	}, {
		// Tencent Cloud International's bill CSV with English headers, as
		// delivered to COS and exported for partner customers: the field names
		// of Tencent's "Bill Fields Description" (tencentcloud.com document
		// 1085/43050), read by name in public COS bill processors. The amount
		// is "Total Amount After Discount (Excluding Tax)" (RealTotalCost:
		// after discounts, before vouchers and tax), the currency its own
		// column. The bill names no GPU model or instance type, so its lines
		// are not GPU lines; times carry no offset and are read in --tz.
		Name:     "tencent",
		Provider: "Tencent Cloud",
		Columns: map[string]string{
			"resource_id":    "InstanceID",
			"resource_name":  "InstanceName",
			"start":          "Usage Start Time",
			"end":            "Usage End Time",
			"cost":           "Total Amount After Discount (Excluding Tax)",
			"list_cost":      "OriginalCost",
			"currency":       "Currency",
			"pricing_mode":   "BillingMode", // Monthly subscription, Pay-as-You-Go resources, Standard RI
			"region":         "Region",
			"account":        "Owner Account ID",
			"service":        "ProductName",
			"usage_quantity": "Component Usage",
			"usage_unit":     "Component Usage Unit",
		},
		documented: strings.Split(tencentHeader, ","),
	}}
}

// The headers the built-in mappings were written for (docs/INGEST.md says
// where each comes from). A matching file's other columns that change what a
// row means are warned about.
const (
	autodlHeader  = "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价"
	alibabaHeader = "账期,财务单元,账号ID,账号,Owner账号,产品Code,产品,产品明细Code,产品明细,消费类型,消费时间,账单开始时间,账单结束时间,服务时长,订单号/账单号,账单类型,计费方式,实例ID,实例昵称,资源组,实例标签,实例配置,实例规格,公网IP,私网IP,地域,可用区,计费项,单价,单价单位,用量,用量单位,资源包抵扣,原价,优惠金额,优惠券抵扣,应付金额,现金支付,代金券抵扣,储值卡支付金额,欠费金额"
	tencentHeader = "Payer Account ID,Owner Account ID,Operator Account ID,ProductName,BillingMode,ProjectName,Region,Availability Zone,InstanceID,InstanceName,SubproductName,TransactionType,TransactionID,TransactionTime,Usage Start Time,Usage End Time,ComponentType,ComponentName,Component List Price,Component Contracted Price,Component Price Measurement Unit,Component Usage,Component Usage Unit,Usage Duration,Duration Unit,Reserved Instances,OriginalCost,DiscountRate,Currency,Total Amount After Discount (Excluding Tax),Voucher Deduction,Amount Before Tax,TaxRate,TaxAmount,Total Cost (Including Tax)"
)

// chinaTime is Asia/Shanghai; without tzdata it is the same fixed UTC+8 (China
// has had no daylight saving time since 1991).
func chinaTime() *time.Location {
	if loc, err := time.LoadLocation("Asia/Shanghai"); err == nil {
		return loc
	}
	return time.FixedZone("CST", 8*3600)
}

// builtinModes maps the billing-mode words of rental platforms (lower case)
// to Mode* constants.
func builtinModes() map[string]string {
	return map[string]string{
		"按量": finops.ModeHourly, "按量计费": finops.ModeHourly, "按量付费": finops.ModeHourly, "按时": finops.ModeHourly, "按小时": finops.ModeHourly, "后付费": finops.ModeHourly,
		"包日": finops.ModeDaily, "按日": finops.ModeDaily,
		"包周": finops.ModeWeekly, "按周": finops.ModeWeekly,
		"包月": finops.ModeMonthly, "包年包月": finops.ModeMonthly, "按月": finops.ModeMonthly, "预付费": finops.ModeMonthly,
		"竞价": finops.ModeSpot, "竞价实例": finops.ModeSpot, "抢占式": finops.ModeSpot, "抢占式实例": finops.ModeSpot,
		"hourly": finops.ModeHourly, "hour": finops.ModeHourly, "on-demand": finops.ModeHourly, "ondemand": finops.ModeHourly,
		"on demand": finops.ModeHourly, "payg": finops.ModeHourly, "pay-as-you-go": finops.ModeHourly, "postpaid": finops.ModeHourly,
		"payasyougo": finops.ModeHourly, "subscription": finops.ModeMonthly, "preemptible instance": finops.ModeSpot,
		"pay-as-you-go resources": finops.ModeHourly, "monthly subscription": finops.ModeMonthly, "standard ri": finops.ModeCommitted,
		"daily": finops.ModeDaily, "day": finops.ModeDaily,
		"weekly": finops.ModeWeekly, "week": finops.ModeWeekly,
		"monthly": finops.ModeMonthly, "month": finops.ModeMonthly, "prepaid": finops.ModeMonthly,
		"spot": finops.ModeSpot, "preemptible": finops.ModeSpot, "interruptible": finops.ModeSpot,
		"committed": finops.ModeCommitted, "reserved": finops.ModeCommitted,
		"per_task": finops.ModePerTask, "per task": finops.ModePerTask,
	}
}

// rentalParser reads a rental platform's CSV through a ColumnMapping.
type rentalParser struct {
	file     string
	mapping  string
	hdr      []string
	cat      *gpu.Catalog
	loc      *time.Location
	in       *interner
	provider string
	currency string
	modes    map[string]string

	cols map[string]int // mapping field → column, only fields present in the header
	// autoCount is the column read as gpu_count by its name (GPU数量,
	// num_gpus …) when the mapping maps none; -1 when none is.
	autoCount int
	// builtin is the built-in mapping the file is read through, nil for a
	// configured one (headerWarning).
	builtin *ColumnMapping

	ambiguous int // lines read with a first-pass guess at a DST fall-back (resolveSpan)
}

func (p *rentalParser) finishSummary(s *Summary) {
	warnAmbiguous(s, p.file, p.ambiguous, p.loc, "lines")
}

func newRentalParser(idx *columns, m ColumnMapping, opt Options) *rentalParser {
	hdr := idx.hdr
	p := &rentalParser{
		file: opt.Name, mapping: m.Name, hdr: hdr, cat: opt.Catalog, loc: m.Location, in: newInterner(),
		provider: m.Provider, currency: strings.ToUpper(strings.TrimSpace(m.Currency)),
		modes: builtinModes(), cols: map[string]int{}, autoCount: -1,
	}
	if p.loc == nil {
		p.loc = opt.Location
	}
	if len(m.documented) > 0 {
		p.builtin = &m
	}
	if p.provider == "" {
		p.provider = m.Name
	}
	for raw, mode := range m.Modes {
		p.modes[strings.ToLower(strings.TrimSpace(raw))] = mode
	}
	for field, name := range m.Columns {
		if i := idx.col(strings.TrimSpace(name)); i >= 0 && strings.TrimSpace(name) != "" {
			p.cols[field] = i
		}
	}
	if strings.TrimSpace(m.Columns["gpu_count"]) == "" {
		used := map[int]bool{}
		for _, i := range p.cols {
			used[i] = true
		}
		if i := findGPUCountColumn(hdr, used); i >= 0 {
			p.cols["gpu_count"], p.autoCount = i, i
		}
	}
	return p
}

// get returns the cell of a mapping field, "" when unmapped or null.
func (p *rentalParser) get(rec []string, field string) (string, int) {
	i, ok := p.cols[field]
	if !ok {
		return "", -1
	}
	v := cell(rec, i)
	if isNull(v) || v == "-" {
		return "", i
	}
	return v, i
}

func (p *rentalParser) err(line, col int, expected, value string) *ParseError {
	return fieldErr(p.file, line, columnName(p.hdr, col), expected, value)
}

func (p *rentalParser) amount(rec []string, field string, line int) (*decimal.Decimal, *ParseError) {
	v, i := p.get(rec, field)
	if v == "" {
		return nil, nil
	}
	d, err := parseAmount(v)
	if err != nil {
		return nil, withRange(p.err(line, i, rentalAmountExample, v), err, v)
	}
	return &d, nil
}

func (p *rentalParser) parse(rec []string, line int) (parsed, *ParseError) {
	id, idCol := p.get(rec, "resource_id")
	if id == "" {
		return parsed{}, p.err(line, idCol, "an instance id", cell(rec, idCol))
	}
	v, startCol := p.get(rec, "start")
	start, startLocal, err := parseTimeIn(v, p.loc)
	if err != nil {
		return parsed{}, p.err(line, startCol, timeExpect(err, rentalTimeExample, p.loc), v)
	}
	v, endCol := p.get(rec, "end")
	end, endLocal, err := parseTimeIn(v, p.loc)
	if err != nil {
		return parsed{}, p.err(line, endCol, timeExpect(err, rentalTimeExample+" (a running instance has no bill line yet)", p.loc), v)
	}
	start, end, ambiguous := resolveSpan(start, end, startLocal, endLocal, p.loc)
	if ambiguous {
		p.ambiguous++
	}
	if !end.After(start) {
		return parsed{}, p.err(line, endCol, "an end after the start "+start.Format(time.RFC3339), v)
	}
	cost, perr := p.amount(rec, "cost", line)
	if perr != nil {
		return parsed{}, perr
	}
	if cost == nil {
		_, i := p.get(rec, "cost")
		return parsed{}, p.err(line, i, rentalAmountExample, cell(rec, i))
	}
	l := &finops.BillingLine{
		Line:           line,
		Provider:       p.provider,
		ChargeStart:    start,
		ChargeEnd:      end,
		ChargeCategory: finops.ChargeUsage,
		ResourceID:     strings.Clone(id),
		BilledCost:     cost,
		EffectiveCost:  cost,
		Currency:       p.currency,
	}
	if l.ListCost, perr = p.amount(rec, "list_cost", line); perr != nil {
		return parsed{}, perr
	}
	if l.UsageQuantity, perr = p.amount(rec, "usage_quantity", line); perr != nil {
		return parsed{}, perr
	}
	if v, _ := p.get(rec, "currency"); v != "" {
		l.Currency = p.in.get(strings.ToUpper(v))
	}
	v, _ = p.get(rec, "resource_name")
	l.ResourceName = strings.Clone(v)
	v, _ = p.get(rec, "region")
	l.Region = p.in.get(v)
	v, _ = p.get(rec, "sku")
	l.SKU = p.in.get(v)
	v, _ = p.get(rec, "usage_unit")
	l.UsageUnit = p.in.get(v)
	v, _ = p.get(rec, "account")
	l.BillingAccount = p.in.get(v)
	v, _ = p.get(rec, "service")
	l.Service = p.in.get(v)
	if v, i := p.get(rec, "tags"); v != "" {
		tags, ok := p.tags(v)
		if !ok {
			return parsed{}, p.err(line, i, `tags like "key1:value1;key2:value2" or a JSON object`, v)
		}
		l.Tags = tags
	}
	for _, f := range []string{"team", "task"} {
		if v, _ := p.get(rec, f); v != "" {
			if l.Tags == nil {
				l.Tags = map[string]string{}
			}
			l.Tags[f] = p.in.get(v)
		}
	}
	if perr := p.mode(rec, l); perr != nil {
		return parsed{}, perr
	}
	p.paiMode(l)
	if perr := p.gpu(rec, line, l); perr != nil {
		return parsed{}, perr
	}
	return parsed{billing: l}, nil
}

// mode sets the pricing mode and the FOCUS-style fields that follow from it.
// An unknown mode word is kept in Tags["pricing_mode"] rather than refused:
// the line's cost is still right, and data quality can show the word.
func (p *rentalParser) mode(rec []string, l *finops.BillingLine) *ParseError {
	raw, _ := p.get(rec, "pricing_mode")
	if raw == "" {
		return nil
	}
	mode, ok := p.modes[strings.ToLower(raw)]
	if !ok {
		if l.Tags == nil {
			l.Tags = map[string]string{}
		}
		l.Tags["pricing_mode"] = p.in.get(raw)
		return nil
	}
	setMode(l, mode)
	return nil
}

// setMode sets a line's pricing mode and the FOCUS charge frequency and
// pricing category that go with it.
func setMode(l *finops.BillingLine, mode string) {
	l.PricingMode = mode
	switch mode {
	case finops.ModeHourly, finops.ModeSpot, finops.ModePerTask:
		l.ChargeFrequency = "usage-based"
	default:
		l.ChargeFrequency = "recurring"
	}
	switch mode {
	case finops.ModeSpot:
		l.PricingCategory = "dynamic"
	case finops.ModeCommitted:
		l.PricingCategory = "committed"
	default:
		l.PricingCategory = "standard"
	}
}

// paiPayTypeTag is the tag Alibaba PAI puts on DLC jobs: "spot" or
// "postpaid". Both bill as 按量付费, so only the tag tells spot apart.
const paiPayTypeTag = "acs:pai:dlc:payType"

func (p *rentalParser) paiMode(l *finops.BillingLine) {
	for k, v := range l.Tags {
		if strings.EqualFold(k, paiPayTypeTag) {
			if mode, ok := p.modes[strings.ToLower(strings.TrimSpace(v))]; ok {
				setMode(l, mode)
			}
		}
	}
}

// tags reads a tags cell: "key1:value1;key2:value2" (Alibaba's 实例标签;
// keys such as acs:pai:dlc:payType hold colons, so a pair splits at its last
// colon, or at "=" when it has one) or a JSON object.
func (p *rentalParser) tags(v string) (map[string]string, bool) {
	if strings.HasPrefix(v, "{") {
		return parseTagsJSON(v)
	}
	tags := map[string]string{}
	for _, pair := range strings.FieldsFunc(v, func(r rune) bool { return r == ';' || r == '；' }) {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		sep := strings.IndexByte(pair, '=')
		if sep < 0 {
			sep = strings.LastIndexByte(pair, ':')
		}
		if sep <= 0 {
			return nil, false
		}
		k := strings.TrimSpace(pair[:sep])
		if k == "" {
			return nil, false
		}
		tags[p.in.get(k)] = p.in.get(strings.TrimSpace(pair[sep+1:]))
	}
	if len(tags) == 0 {
		return nil, true
	}
	return tags, true
}

// gpu fills the GPU model and count from the gpu cell ("RTX 4090 * 2"), else
// gpu_model and gpu_count, else an instance type in the sku column, else the
// instance_config text. GPU text the catalog does not know but that looks
// like a GPU ("RTX 5090 * 2") still makes a GPU line under its own name, and
// is reported in Tags[UnknownGPUTag]; an unknown GPU instance type
// (ecs.gn9x-…) is reported the same way but makes no GPU line, as its count
// is unknown.
func (p *rentalParser) gpu(rec []string, line int, l *finops.BillingLine) *ParseError {
	if v, gi := p.get(rec, "gpu"); v != "" {
		p.gpuText(l, v)
		return p.gpuCount(rec, line, l, v, gi)
	}
	if v, _ := p.get(rec, "gpu_model"); v != "" {
		p.gpuText(l, v)
	}
	if perr := p.gpuCount(rec, line, l, "", -1); perr != nil {
		return perr
	}
	if l.GPUModel == "" && l.SKU != "" {
		if m, n, ok := p.cat.Instance(l.SKU); ok {
			l.InstanceType, l.GPUModel, l.GPUCount = l.SKU, m, n
		} else if gpu.LooksLike(l.SKU) {
			p.tag(l, UnknownGPUTag, l.SKU)
		}
	}
	if l.GPUModel == "" && l.Tags[UnknownGPUTag] == "" {
		if v, _ := p.get(rec, "instance_config"); v != "" {
			p.gpuFromConfig(l, v)
		}
	}
	if l.GPUModel == "" {
		l.GPUCount = 0
	}
	return nil
}

// gpuCount reads the gpu_count cell, when there is one, as the line's GPU
// count. GPU text of column textCol that gave a count of its own ("RTX 4090
// * 2") must agree with it: finops cannot tell which of two counts is right.
// A count of 0 makes the line no GPU line.
func (p *rentalParser) gpuCount(rec []string, line int, l *finops.BillingLine, text string, textCol int) *ParseError {
	v, i := p.get(rec, "gpu_count")
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimRight(v, "卡张个")))
	if err != nil || n < 0 || n > gpu.MaxPerMachine {
		expected := "a GPU count like 2"
		if i == p.autoCount {
			expected += " (the column is read as the GPU count by its name; if it holds something else, " +
				"map gpu_count to the right column in a mapping of the config)"
		}
		return p.err(line, i, expected, v)
	}
	if text != "" && l.GPUModel != "" && l.GPUCount > 1 && l.GPUCount != n {
		return &ParseError{File: p.file, Line: line, Field: columnName(p.hdr, i), Msg: fmt.Sprintf(
			"expected the GPU count of column %q (%q: %d GPUs), found %q: finops cannot tell which of the two is right; "+
				"correct the export, or read it through a mapping in the config that maps only one of the columns", columnName(p.hdr, textCol), text, l.GPUCount, v)}
	}
	l.GPUCount = n
	if n == 0 {
		l.GPUModel = ""
	}
	return nil
}

// gpuText reads GPU text with an optional count into the line.
func (p *rentalParser) gpuText(l *finops.BillingLine, v string) {
	if m, n, ok := p.cat.GPUName(v); ok {
		l.GPUModel, l.GPUCount = p.in.get(m), n
		return
	}
	m, n, ok := p.cat.GPUText(v)
	if !ok {
		// Text that names no GPU ("无卡模式", CPU only) is kept, not reported.
		p.tag(l, "gpu", v)
		return
	}
	l.GPUModel, l.GPUCount = p.in.get(m), n
	p.tag(l, UnknownGPUTag, v)
}

// gpuFromConfig reads free text that describes a machine, such as
// "CPU:8核;内存:30GB;GPU:NVIDIA A10 * 1": an instance type in it, else the
// first part that names a GPU.
func (p *rentalParser) gpuFromConfig(l *finops.BillingLine, v string) {
	if t, m, n, ok := p.cat.FindInstance(v); ok {
		l.InstanceType, l.GPUModel, l.GPUCount = p.in.get(t), m, n
		return
	}
	parts := strings.FieldsFunc(v, func(r rune) bool {
		return r == ';' || r == '；' || r == ',' || r == '，' || r == '|' || r == '\n'
	})
	var unknown string
	for _, part := range parts {
		part = strings.TrimSpace(part)
		if k, rest, ok := cutLabel(part); ok && (strings.EqualFold(k, "gpu") || k == "显卡" || k == "GPU型号") {
			part = rest
		}
		if m, n, ok := p.cat.GPUName(part); ok {
			l.GPUModel, l.GPUCount = p.in.get(m), n
			return
		}
		if unknown == "" && gpu.LooksLike(part) {
			unknown = part
		}
	}
	if unknown != "" {
		p.tag(l, UnknownGPUTag, unknown)
	}
}

// cutLabel splits "GPU: A10" or "GPU：A10" into its label and value.
func cutLabel(s string) (label, value string, ok bool) {
	for _, sep := range []string{":", "："} {
		if k, v, found := strings.Cut(s, sep); found {
			return strings.TrimSpace(k), strings.TrimSpace(v), true
		}
	}
	return "", s, false
}

func (p *rentalParser) tag(l *finops.BillingLine, k, v string) {
	if l.Tags == nil {
		l.Tags = map[string]string{}
	}
	l.Tags[k] = p.in.get(v)
}
