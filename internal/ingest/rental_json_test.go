package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// jsonAmounts sums a field over a JSON array with encoding/json and decimals,
// independently of the parser (numbers or numeric strings).
func jsonAmounts(t *testing.T, raw []byte, field string) (decimal.Decimal, int) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var recs []map[string]any
	if err := dec.Decode(&recs); err != nil {
		t.Fatal(err)
	}
	var sum decimal.Decimal
	for _, r := range recs {
		sum = sum.Add(decimal.RequireFromString(fmt.Sprint(r[field])))
	}
	return sum, len(recs)
}

func TestRunPod(t *testing.T) {
	const name = "rental/runpod_billing_pods.json"
	want, n := jsonAmounts(t, readFile(t, testdata(name)), "amount")
	// By hand: 29.9 + 71.76 + 3.45 + 3.58 + 0.2 + 0.63 = 109.52
	if !want.Equal(decimal.RequireFromString("109.52")) || n != 6 {
		t.Fatalf("fixture: Σ amount %s over %d records", want, n)
	}
	sum, sink := mustParse(t, name, Options{})
	if sum.Format != FormatRunPod || sum.Kind != KindBilling || sum.Rows != 6 || !sum.TotalCost.Equal(want) ||
		// Five GPU lines: the sixth record billed no time (an instant), no GPU usage.
		strings.Join(sum.Currencies, ",") != "USD" || sum.GPULines != 5 {
		t.Errorf("summary %+v", sum)
	}
	at := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, time.UTC) }
	cases := []struct {
		line       int
		id, kind   string
		start, end time.Time
		model      string
		cost       string
	}{
		// json.dumps(indent=2): a record takes 9 lines after the "[".
		{2, "xedezhzb9la3ye", "pod", at(2, 0, 0), at(2, 10, 0), "H100", "29.9"}, // 36,000,000 ms = 10 h
		{11, "xedezhzb9la3ye", "pod", at(3, 0, 0), at(4, 0, 0), "H100", "71.76"},
		{20, "k2lfy0wq8ajz1m", "pod", at(2, 0, 0), at(2, 5, 0), "RTX 4090", "3.45"},
		{29, "p9bw6000x1", "pod", at(2, 0, 0), at(2, 2, 0), "NVIDIA RTX PRO 6000 Blackwell Server Edition", "3.58"},
		{38, "stopped-a100", "pod", at(3, 0, 0), at(3, 0, 0), "A100-80GB", "0.2"}, // nothing billed by time: an instant
		{47, "ep-7fq2l40s", "endpoint", at(3, 0, 0), at(3, 0, 20).Add(34567 * time.Millisecond), "L40S", "0.63"},
	}
	for i, w := range cases {
		l := sink.lines[i]
		if l.Line != w.line || l.ResourceID != w.id || l.ResourceType != w.kind || !l.ChargeStart.Equal(w.start) ||
			!l.ChargeEnd.Equal(w.end) || l.GPUModel != w.model || l.GPUCount != 1 ||
			!l.BilledCost.Equal(decimal.RequireFromString(w.cost)) || l.Provider != "RunPod" || l.PricingMode != finops.ModeHourly {
			t.Errorf("record %d: got %+v\nwant %+v", i, *l, w)
		}
	}
	if got := sink.lines[3].Tags[UnknownGPUTag]; got != "NVIDIA RTX PRO 6000 Blackwell Server Edition" {
		t.Errorf("unknown GPU reported as %q", got)
	}
	if sink.lines[0].Tags["disk_gb"] != "50" || !sink.lines[0].UsageQuantity.Equal(decimal.NewFromInt(10)) {
		t.Errorf("record 0: tags %v quantity %v", sink.lines[0].Tags, sink.lines[0].UsageQuantity)
	}
}

func TestVastCharges(t *testing.T) {
	raw := readFile(t, testdata("rental/vast_charges.json"))
	var page struct {
		Results json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		t.Fatal(err)
	}
	want, _ := jsonAmounts(t, page.Results, "amount")
	// By hand: 0.333 + 1.25 + 0.4 − 0.05 = 1.933
	if !want.Equal(decimal.RequireFromString("1.933")) {
		t.Fatalf("fixture total %s", want)
	}
	sum, sink := mustParse(t, "rental/vast_charges.json", Options{})
	if sum.Format != FormatVast || !sum.TotalCost.Equal(want) || sum.Rows != 8 || sum.GPULines != 1 || sum.Skipped != 0 {
		t.Errorf("summary %+v", sum)
	}
	day := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		id, sku    string
		start, end time.Time
		cost       string
		model      string
		count      int
		unknown    bool
	}{
		// A daily row (start = end = midnight) covers the day; its four items are four lines.
		{"instance-55062389", "gpu", day, day.Add(24 * time.Hour), "0.107", "", 0, true},
		{"instance-55062389", "disk", day, day.Add(24 * time.Hour), "0.012", "", 0, false},
		{"instance-55062389", "bwd", day, day.Add(24 * time.Hour), "0.206", "", 0, false},
		{"instance-55062389", "bwu", day, day.Add(24 * time.Hour), "0.008", "", 0, false},
		// The GPU from the metadata; 1.25 − 1.16 = 0.09 the items leave out.
		{"instance-55070001", "gpu", day.Add(10 * time.Hour), day.Add(12 * time.Hour), "1.16", "RTX 4090", 2, false},
		{"instance-55070001", "other", day.Add(10 * time.Hour), day.Add(12 * time.Hour), "0.09", "", 0, false},
		{"volume-881", "", day, day.Add(24 * time.Hour), "0.4", "", 0, false},
		{"endpoint-77", "", day.Add(500 * time.Millisecond), day.Add(4000 * time.Second), "-0.05", "", 0, false},
	}
	for i, w := range cases {
		l := sink.lines[i]
		if l.ResourceID != w.id || l.SKU != w.sku || !l.ChargeStart.Equal(w.start) || !l.ChargeEnd.Equal(w.end) ||
			!l.BilledCost.Equal(decimal.RequireFromString(w.cost)) || l.GPUModel != w.model || l.GPUCount != w.count ||
			(l.Tags[UnknownGPUTag] != "") != w.unknown || l.Currency != "USD" || l.Line != 1 {
			t.Errorf("line %d: got %+v\nwant %+v", i, *l, w)
		}
	}
	if l := sink.lines[2]; !l.UsageQuantity.Equal(decimal.RequireFromString("79.1")) || l.UsageUnit != "GB" || l.Tags["label"] != "pr-55062389" {
		t.Errorf("bandwidth line: %+v", *l)
	}
}

func TestVastInvoices(t *testing.T) {
	sum, sink := mustParse(t, "rental/vast_invoices_legacy.json", Options{})
	// Charges only: "1.000" + "0.024" + 120 cents = 2.224; the payment is skipped.
	if sum.Format != FormatVast || !sum.TotalCost.Equal(decimal.RequireFromString("2.224")) || sum.Rows != 3 || sum.Skipped != 1 {
		t.Errorf("summary %+v", sum)
	}
	ts := time.Unix(1633036800, 0).UTC()
	l := sink.lines[0]
	if l.ResourceID != "instance-123" || !l.ChargeStart.Equal(ts) || !l.ChargeEnd.Equal(ts.Add(10*time.Hour)) ||
		l.Tags[UnknownGPUTag] == "" || l.UsageUnit != "Hours" || l.Line != 3 {
		t.Errorf("GPU charge: %+v", *l)
	}
	if l := sink.lines[1]; !l.ChargeEnd.Equal(l.ChargeStart) || l.Tags != nil {
		t.Errorf("storage charge: %+v", *l)
	}
	if l := sink.lines[2]; l.ResourceID != "instance-456" || !l.BilledCost.Equal(decimal.RequireFromString("1.20")) ||
		l.ChargeEnd.Sub(l.ChargeStart).Round(time.Second) != 150*time.Minute {
		t.Errorf("amount_cents charge: %+v", *l)
	}

	// /api/v1/invoices/: payments are skipped, a reserved-instance prepayment is a purchase.
	page := `{"results": [{"id": 1, "when": 1793577600, "service": "stripe_payments", "amount_cents": 5000, "is_credit": true},
		{"id": 2, "when": 1793581200.0, "service": "instance_prepay", "amount_cents": 12345, "metadata": {"instance_id": 987}}],
		"next_token": null}`
	s := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(page), Options{Name: "v1.json"}, s)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 1 || sum.Skipped != 1 || !sum.TotalCost.Equal(decimal.RequireFromString("123.45")) ||
		s.lines[0].ChargeCategory != finops.ChargePurchase || s.lines[0].ResourceID != "instance-987" {
		t.Errorf("v1 invoices: %+v %+v", sum, s.lines)
	}
}

// TestJSONBadFiles: broken JSON gives errors naming the file, line and
// record, and nothing past the error reaches the sink.
func TestJSONBadFiles(t *testing.T) {
	good := readFile(t, testdata("rental/runpod_billing_pods.json"))
	deep := "[" + strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40) + "]"
	cases := []struct {
		name, in string
		opt      Options
		parts    []string
	}{
		{"truncated", string(good[:len(good)/2]), Options{}, []string{"truncated.json:", "cut off"}},
		{"truncated in a string", `[{"amount": 1, "podId": "ab`, Options{}, []string{"truncated in a string.json:1", "[0]", "cut off"}},
		{"nested record", deep, Options{}, []string{"nested record.json:1", "[0]", "nested 40 levels"}},
		{"nested page", `{"next_token": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `, "results": []}`, Options{},
			[]string{"nested page.json:1", "next_token", "nested more than 32"}},
		{"deep arrays", strings.Repeat("[", 100000), Options{}, []string{"deep arrays.json:1"}},
		{"syntax", "[\n{\"amount\": 1,\n\"podId\": \"x\" \"time\": 2}\n]", Options{}, []string{"syntax.json:3", "malformed JSON"}},
		{"wrong type", "[\n  {\"amount\": 1, \"podId\": 7, \"time\": \"2026-11-02T00:00:00Z\"}\n]", Options{},
			[]string{"wrong type.json:2", `"[0].podId"`, "expected a string, found a JSON number"}},
		{"bad amount", `[{"amount": "ten", "podId": "p", "time": "2026-11-02T00:00:00Z", "timeBilledMs": 1}]`, Options{},
			[]string{`"[0].amount"`, `"\"ten\""`}},
		{"bad time", `[{"amount": 1, "podId": "p", "time": "yesterday"}]`, Options{}, []string{`"[0].time"`, "RFC 3339"}},
		{"negative ms", `[{"amount": 1, "podId": "p", "time": "2026-11-02T00:00:00Z", "timeBilledMs": -5}]`, Options{},
			[]string{`"[0].timeBilledMs"`}},
		{"vast end before start", `{"results": [{"type": "instance", "source": "instance-1", "amount": 1, "start": 1793577600, "end": 1793570000}]}`,
			Options{}, []string{`"results[0].end"`, "after the start"}},
		{"vast bad item", `{"results": [{"type": "instance", "source": "instance-1", "amount": 1, "start": 1793577600, "end": 1793581200, "items": [{"type": "gpu", "amount": "x"}]}]}`,
			Options{}, []string{`"results[0].items[0].amount"`}},
		{"unknown records", `[{"hello": "world"}]`, Options{}, []string{"unknown records.json:1", "[0]", "RunPod", "Vast.ai"}},
		{"no records", `{"results": 3}`, Options{Format: FormatVast}, []string{"no records.json:1", "results"}},
		{"scalar", `"hello"`, Options{Format: FormatRunPod}, []string{"scalar.json:1", "array"}},
		{"two arrays", `[] []`, Options{}, []string{"two arrays.json:1", "more JSON"}},
		{"json as focus", `[{"amount": 1}]`, Options{Format: FormatFOCUS}, []string{"json as focus.json:1", "reads CSV"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sink := &recSink{}
			opt := c.opt
			opt.Name = c.name + ".json"
			_, err := Parse(t.Context(), strings.NewReader(c.in), opt, sink)
			t.Log(err)
			wantErrParts(t, err, c.parts...)
		})
	}
}

// TestJSONEmpty: an export of a month without usage holds no records; it is
// read, not refused.
func TestJSONEmpty(t *testing.T) {
	for in, format := range map[string]string{"[]": FormatRunPod, " [\n] ": FormatRunPod,
		`{"success": true, "count": 0, "total": 0, "next_token": null, "results": []}`: FormatVast} {
		sum, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "empty.json"}, &recSink{})
		if err != nil || sum.Rows != 0 || sum.Format != format || sum.Kind != KindBilling {
			t.Errorf("%s: %+v, %v", in, sum, err)
		}
	}
}

// TestJSONMaxBadRows: bad records are counted and skipped up to the limit.
func TestJSONMaxBadRows(t *testing.T) {
	in := `[{"amount": 1, "podId": "a", "time": "2026-11-02T00:00:00Z", "timeBilledMs": 3600000},
{"amount": "x", "podId": "b", "time": "2026-11-02T00:00:00Z"},
{"amount": 2, "podId": "c", "time": "2026-11-02T00:00:00Z", "timeBilledMs": 3600000}]`
	sum, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "r.json", MaxBadRows: 1}, &recSink{})
	if err != nil || sum.Rows != 2 || len(sum.Rejected) != 1 || sum.Rejected[0].Line != 2 || !sum.TotalCost.Equal(decimal.NewFromInt(3)) {
		t.Fatalf("%+v %v", sum, err)
	}
}

// TestJSONStreams feeds a 20,000-record RunPod array through a pipe: the
// records come out one at a time, never as one decoded array.
func TestJSONStreams(t *testing.T) {
	const n = 20000
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("["))
		for i := range n {
			sep := ","
			if i == n-1 {
				sep = ""
			}
			fmt.Fprintf(pw, `{"amount":0.01,"gpuTypeId":"NVIDIA A40","podId":"p%d","time":"2026-11-02T00:00:00Z","timeBilledMs":60000}%s`+"\n", i, sep)
		}
		pw.Write([]byte("]"))
		pw.Close()
	}()
	sink := &countSink{}
	sum, err := Parse(t.Context(), pr, Options{Name: "big.json"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if sink.n != n || sum.Rows != n || !sum.TotalCost.Equal(decimal.NewFromInt(200)) {
		t.Errorf("%d records, summary %+v", sink.n, sum)
	}
}
