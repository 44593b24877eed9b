package ingest

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// gbkColumnSums decodes a GBK CSV with x/text and encoding/csv, independently
// of the parser, and sums the named columns with decimals.
func gbkColumnSums(t *testing.T, gbk []byte, columns ...string) (map[string]decimal.Decimal, int) {
	t.Helper()
	utf, err := simplifiedchinese.GBK.NewDecoder().Bytes(gbk)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(utf)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]decimal.Decimal{}
	for _, c := range columns {
		i := -1
		for j, h := range recs[0] {
			if h == c {
				i = j
			}
		}
		if i < 0 {
			t.Fatalf("no column %s", c)
		}
		for _, r := range recs[1:] {
			sums[c] = sums[c].Add(decimal.RequireFromString(r[i]))
		}
	}
	return sums, len(recs) - 1
}

func TestRentalAlibabaGBK(t *testing.T) {
	const name = "rental/alibaba_billing_item_detail_gbk.csv"
	raw := readFile(t, testdata(name))
	if bytes.Contains(raw, []byte("应付金额")) {
		t.Fatal("the fixture must be GBK, not UTF-8")
	}
	want, rows := gbkColumnSums(t, raw, "应付金额", "原价")
	// By hand, 应付金额: 8.01 + 0.03 + 171360.00 + 0.52 + 12.34 − 4.00 + 3.00 + 0.66 = 171380.56
	if !want["应付金额"].Equal(decimal.RequireFromString("171380.56")) {
		t.Fatalf("fixture total %s, want 171380.56", want["应付金额"])
	}

	sum, sink := mustParse(t, name, Options{})
	if sum.Format != FormatRental || sum.Mapping != "alibaba" || sum.Encoding != EncodingGB18030 {
		t.Errorf("format %q mapping %q encoding %q", sum.Format, sum.Mapping, sum.Encoding)
	}
	if sum.Rows != rows || !sum.TotalCost.Equal(want["应付金额"]) {
		t.Errorf("rows %d total %s; want %d and %s", sum.Rows, sum.TotalCost, rows, want["应付金额"])
	}
	var list decimal.Decimal
	for _, l := range sink.lines {
		list = list.Add(*l.ListCost)
	}
	if !list.Equal(want["原价"]) {
		t.Errorf("Σ ListCost %s, want %s", list, want["原价"])
	}
	if strings.Join(sum.Currencies, ",") != "CNY" || sum.GPULines != 6 {
		t.Errorf("currencies %v, GPU lines %d (want CNY, 6)", sum.Currencies, sum.GPULines)
	}
	utc := func(mo, d, h, mi int) time.Time { return time.Date(2026, time.Month(mo), d, h, mi, 0, 0, time.UTC) }
	cases := []alibabaLineWant{
		// China time: 2026-11-02 09:00 is 01:00 UTC.
		{"i-bp1a10infer0001", utc(11, 2, 1, 0), utc(11, 2, 2, 0), finops.ModeHourly, "A10", 1, "8.01",
			map[string]string{"team": "ml", "project": "llm-serving"}, "云服务器 ECS"},
		{"i-bp1a10infer0001", utc(11, 2, 1, 0), utc(11, 2, 2, 0), finops.ModeHourly, "A10", 1, "0.03",
			map[string]string{"team": "ml", "project": "llm-serving"}, "云服务器 ECS"},
		{"i-bp1a100train08", utc(10, 31, 16, 0), utc(11, 30, 16, 0), finops.ModeMonthly, "A100-80GB", 8, "171360.00",
			map[string]string{"team": "research"}, "云服务器 ECS"},
		{"i-bp1t4batch0003", utc(11, 2, 18, 0), utc(11, 2, 19, 0), finops.ModeSpot, "T4", 1, "0.52",
			map[string]string{"team": "vision"}, "云服务器 ECS"},
		// PAI DLC: 按量付费, but the payType tag says spot; 64 vCPUs / 32 = 2 A10s.
		{"dlc1a2b3c4d5e6", utc(11, 4, 2, 30), utc(11, 4, 4, 0), finops.ModeSpot, "A10", 2, "12.34",
			map[string]string{"acs:pai:dlc:payType": "spot", "team": "ml"}, "人工智能平台 PAI"},
		{"i-bp1t4batch0003", utc(11, 2, 18, 0), utc(11, 2, 19, 0), finops.ModeSpot, "T4", 1, "-4.00",
			map[string]string{"team": "vision"}, "云服务器 ECS"},
		// An Alibaba GPU family the catalog does not know: reported, not a GPU line.
		{"i-bp1newgpu0009", utc(11, 5, 16, 0), utc(11, 5, 17, 0), finops.ModeHourly, "", 0, "3.00",
			map[string]string{UnknownGPUTag: "ecs.gn9z-c16g1.4xlarge"}, "云服务器 ECS"},
		{"ml-datasets", utc(11, 5, 16, 0), utc(11, 6, 16, 0), finops.ModeHourly, "", 0, "0.66",
			map[string]string{"team": "ml"}, "对象存储 OSS"},
	}
	if len(sink.lines) != len(cases) {
		t.Fatalf("%d lines, want %d", len(sink.lines), len(cases))
	}
	for i, w := range cases {
		checkAlibabaLine(t, i, sink.lines[i], w)
	}
	if l := sink.lines[0]; l.InstanceType != "ecs.gn7i-c8g1.2xlarge" || l.Region != "华东1（杭州）" || l.ResourceName != "推理A10" ||
		!l.UsageQuantity.Equal(decimal.NewFromInt(1)) || l.UsageUnit != "小时" {
		t.Errorf("line 2 details: %+v", *l)
	}

	checkAlibabaUTF8Copies(t, raw, sum, sink)
}

// TestRentalGBK encodes the AutoDL sample to GB18030 in the test (GBK has no
// "¥", GB18030 encodes every character): the built-in mapping reads both, to
// the same lines.
func TestRentalGBK(t *testing.T) {
	utf := bytes.TrimPrefix(readFile(t, testdata("autodl_sample.csv")), []byte("\xef\xbb\xbf"))
	gbk, err := simplifiedchinese.GB18030.NewEncoder().Bytes(utf)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(gbk, utf) {
		t.Fatal("the sample has no Chinese text")
	}
	a, b := &recSink{}, &recSink{}
	sumU, err := Parse(t.Context(), bytes.NewReader(utf), Options{Name: "utf8.csv"}, a)
	if err != nil {
		t.Fatal(err)
	}
	sumG, err := Parse(t.Context(), bytes.NewReader(gbk), Options{Name: "gbk.csv"}, b)
	if err != nil {
		t.Fatal(err)
	}
	// 12.60 + 1,234.50 + 899.00 − 3.60 + 0.50 = 2143.00 either way.
	if !sumG.TotalCost.Equal(decimal.RequireFromString("2143.00")) || !sumU.TotalCost.Equal(sumG.TotalCost) ||
		sumG.Encoding != EncodingGB18030 || sumG.Mapping != "autodl" || sumU.Encoding != "" {
		t.Errorf("UTF-8 %+v\nGBK %+v", sumU, sumG)
	}
	for i := range a.lines {
		x, y := a.lines[i], b.lines[i]
		if x.ResourceName != y.ResourceName || x.PricingMode != y.PricingMode || x.GPUModel != y.GPUModel ||
			!x.ChargeStart.Equal(y.ChargeStart) || x.Tags["gpu"] != y.Tags["gpu"] {
			t.Errorf("line %d: UTF-8 %+v\nGBK %+v", x.Line, *x, *y)
		}
	}
	if b.lines[1].ResourceName != "推理机" || b.lines[4].Tags["gpu"] != "无卡模式" {
		t.Errorf("GBK text decoded as %q, %q", b.lines[1].ResourceName, b.lines[4].Tags["gpu"])
	}
	// The old fixture of a GBK header is such a file.
	sum, _ := mustParse(t, "bad/not_utf8_header.csv", Options{})
	if sum.Mapping != "autodl" || sum.Rows != 1 {
		t.Errorf("bad/not_utf8_header.csv: %+v", sum)
	}
}

// A configured mapping with encoding: gbk, Chinese headers, a GPU only in
// free text, and the errors of a file in the wrong encoding.
func TestRentalConfiguredGBK(t *testing.T) {
	m := ColumnMapping{
		Name: "hengyuan", Provider: "恒源云", Currency: "CNY", Location: chinaTime(), Encoding: "GBK",
		Columns: map[string]string{"resource_id": "实例", "start": "开始", "end": "结束", "cost": "金额",
			"instance_config": "配置", "tags": "标签", "pricing_mode": "计费"},
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	utf := "实例,配置,计费,开始,结束,金额,标签\r\n" +
		"hy-1,CPU：16核；内存：64GB；GPU：NVIDIA V100 * 4,按量,2026-11-02 08:00,2026-11-02 10:00,￥40.00,部门=算法;owner:张三\r\n" +
		"hy-2,CPU：8核；GPU：摩尔线程 MTT S4000 GPU * 1,包日,2026-11-02 00:00,2026-11-03 00:00,￥96.00,\r\n" +
		"hy-3,存储,按量,2026-11-02 00:00,2026-11-03 00:00,1.20,\r\n"
	gbk, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(utf))
	if err != nil {
		t.Fatal(err)
	}
	sink := &recSink{}
	sum, err := Parse(t.Context(), bytes.NewReader(gbk), Options{Name: "hy.csv", Mappings: []ColumnMapping{m}}, sink)
	if err != nil {
		t.Fatal(err)
	}
	// 40.00 + 96.00 + 1.20 = 137.20
	if !sum.TotalCost.Equal(decimal.RequireFromString("137.20")) || sum.Encoding != EncodingGBK || sum.GPULines != 1 {
		t.Errorf("summary %+v", sum)
	}
	l := sink.lines
	if l[0].GPUModel != "V100" || l[0].GPUCount != 4 || l[0].Tags["部门"] != "算法" || l[0].Tags["owner"] != "张三" ||
		l[0].Provider != "恒源云" {
		t.Errorf("line 2: %+v", *l[0])
	}
	if l[1].GPUModel != "" || l[1].Tags[UnknownGPUTag] != "摩尔线程 MTT S4000 GPU * 1" || l[1].PricingMode != finops.ModeDaily {
		t.Errorf("line 3 (unknown GPU in the config text): %+v", *l[1])
	}
	if l[2].GPUModel != "" || len(l[2].Tags) != 0 {
		t.Errorf("line 4: %+v", *l[2])
	}

	// The same GBK bytes through a mapping that does not say gbk: the error
	// names the file, line and field and says what to do.
	plain := m
	plain.Encoding = ""
	hdrUTF := []byte("实例,配置,计费,开始,结束,金额,标签\n")
	rowGBK, _ := simplifiedchinese.GBK.NewEncoder().Bytes([]byte("hy-1,GPU：V100 * 4,按量,2026-11-02 08:00,2026-11-02 10:00,40.00,\n"))
	_, err = Parse(t.Context(), bytes.NewReader(append(hdrUTF, rowGBK...)), Options{Name: "mixed.csv", Mappings: []ColumnMapping{plain}}, &recSink{})
	wantErrParts(t, err, "mixed.csv:2", `"配置"`, "not UTF-8", "encoding")
	_, err = Parse(t.Context(), bytes.NewReader(gbk), Options{Name: "hy.csv", Mappings: []ColumnMapping{plain}}, &recSink{})
	wantErrParts(t, err, "hy.csv:1", "header is not UTF-8", `mapping "hengyuan"`, "encoding: gbk")

	// Bytes that are not GBK at all under a gbk mapping: refused, not guessed.
	broken := append(bytes.Clone(gbk[:bytes.IndexByte(gbk, '\n')+1]), "hy-9,\x81\x20bad,x,2026-11-02 08:00,2026-11-02 10:00,1.00,\r\n"...)
	_, err = Parse(t.Context(), bytes.NewReader(broken), Options{Name: "broken.csv", Mappings: []ColumnMapping{m}}, &recSink{})
	wantErrParts(t, err, "broken.csv:2", `"配置"`, "not valid GBK")

	bad := m
	bad.Encoding = "latin1"
	wantErrParts(t, bad.Validate(), `encoding "latin1"`, "gbk")
}

func TestRentalTagsCell(t *testing.T) {
	p := &rentalParser{in: newInterner()}
	for in, want := range map[string]map[string]string{
		"key1:value1;key2:value2":               {"key1": "value1", "key2": "value2"},
		"acs:pai:dlc:payType:spot; team : ml ;": {"acs:pai:dlc:payType": "spot", "team": "ml"},
		"部门=算法；owner:张三":                        {"部门": "算法", "owner": "张三"},
		`{"team": "ml", " env": "prod"}`:        {"team": "ml", "env": "prod"},
		"empty:":                                {"empty": ""},
	} {
		got, ok := p.tags(in)
		if !ok || len(got) != len(want) {
			t.Errorf("tags(%q) = %v, %v; want %v", in, got, ok, want)
			continue
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("tags(%q)[%q] = %q, want %q", in, k, got[k], v)
			}
		}
	}
	for _, bad := range []string{"novalue", ":v", `{"a":`} {
		if got, ok := p.tags(bad); ok {
			t.Errorf("tags(%q) = %v, want refused", bad, got)
		}
	}
}

// alibabaLineWant is one expected line of the Alibaba GBK fixture.
type alibabaLineWant struct {
	id          string
	start, end  time.Time
	mode        string
	model       string
	count       int
	cost        string
	tags        map[string]string
	serviceName string
}

// checkAlibabaLine compares line i of the Alibaba fixture (file line i+2)
// with its expected fields, tags and the bill's provider, currency and
// account.
func checkAlibabaLine(t *testing.T, i int, l *finops.BillingLine, w alibabaLineWant) {
	t.Helper()
	if l.Line != i+2 || l.ResourceID != w.id || !l.ChargeStart.Equal(w.start) || !l.ChargeEnd.Equal(w.end) ||
		l.PricingMode != w.mode || l.GPUModel != w.model || l.GPUCount != w.count ||
		!l.BilledCost.Equal(decimal.RequireFromString(w.cost)) || l.Service != w.serviceName {
		t.Errorf("line %d: got %+v\nwant %+v", i+2, *l, w)
	}
	if len(l.Tags) != len(w.tags) {
		t.Errorf("line %d: tags %v, want %v", i+2, l.Tags, w.tags)
	}
	for k, v := range w.tags {
		if l.Tags[k] != v {
			t.Errorf("line %d: tag %s = %q, want %q (tags %v)", i+2, k, l.Tags[k], v, l.Tags)
		}
	}
	if l.Provider != "Alibaba Cloud" || l.Currency != "CNY" || l.BillingAccount != "1234567890123456" {
		t.Errorf("line %d: provider %q currency %q account %q", i+2, l.Provider, l.Currency, l.BillingAccount)
	}
}

// checkAlibabaUTF8Copies parses the same bill saved as UTF-8, with and
// without a BOM, and checks it reads the same as the GBK one.
func checkAlibabaUTF8Copies(t *testing.T, raw []byte, sum *Summary, sink *recSink) {
	t.Helper()
	// The same bill saved as UTF-8, with and without a BOM, reads the same:
	// the mapping says GBK, the file is evidently UTF-8.
	utf, err := simplifiedchinese.GBK.NewDecoder().Bytes(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range [][]byte{utf, append([]byte("\xef\xbb\xbf"), utf...)} {
		s := &recSink{}
		sum2, err := Parse(t.Context(), bytes.NewReader(in), Options{Name: "utf8.csv"}, s)
		if err != nil {
			t.Fatal(err)
		}
		if sum2.Encoding != "" || !sum2.TotalCost.Equal(sum.TotalCost) || len(s.lines) != len(sink.lines) ||
			s.lines[4].ResourceName != sink.lines[4].ResourceName || s.lines[4].GPUCount != 2 {
			t.Errorf("UTF-8 copy: %+v", sum2)
		}
	}
}
