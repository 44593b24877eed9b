package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/finops-oss/finops"
)

// The GCP billing export as BigQuery writes it to JSON: newline-delimited
// objects (bq extract --destination_format NEWLINE_DELIMITED_JSON) or one
// array of them (bq query --format=json). Nested records (service, sku,
// usage, project, location, resource, invoice) are flattened to the dotted
// names of the CSV; repeated records (credits, labels) are read as lists.

// isGCPJSONInput reports whether an input is a GCP billing export in JSON:
// it starts with { or [ and is forced with --format gcp, or its first record
// names usage_start_time and cost.
func isGCPJSONInput(r io.Reader, opt Options) bool {
	br, ok := r.(*bufio.Reader)
	if !ok || opt.Format != "" && opt.Format != FormatGCP {
		return false
	}
	b, _ := br.Peek(br.Buffered())
	if c := firstNonSpace(b); c != '{' && c != '[' {
		return false
	}
	return opt.Format == FormatGCP ||
		bytes.Contains(b, []byte(`"usage_start_time"`)) && bytes.Contains(b, []byte(`"cost"`))
}

// parseGCPJSON streams the records of a JSON export to sink, one at a time.
func parseGCPJSON(ctx context.Context, r io.Reader, opt Options, sink Sink) (*Summary, error) {
	name := opt.Name
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	prefix, _ := br.Peek(4096)
	array := firstNonSpace(prefix) == '['
	j := newJSONReader(br, name)
	b := newGCPBuilder(opt)
	sum := newSummarizer(FormatGCP, KindBilling)
	jb := &jsonBilling{name: name, sink: sink, sum: sum, maxBad: max(opt.MaxBadRows, 0),
		lines: newLineChecker(opt, gcpLineFields, sum)}
	if array {
		if _, err := j.dec.Token(); err != nil {
			return sum.finish(), j.fail(err, "")
		}
	}
	for n := 1; ; n++ {
		if n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return sum.finish(), err
			}
		}
		if array && !j.dec.More() {
			break
		}
		path := fmt.Sprintf("record %d", n)
		raw, line, err := j.next(path)
		if !array && errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sum.finish(), j.fail(err, path)
		}
		err = jb.record(raw, path, line, func() ([]*finops.BillingLine, *ParseError, bool) {
			return gcpJSONLine(name, &b, line, raw, n == 1)
		})
		if err != nil {
			return sum.finish(), err
		}
	}
	if array {
		if err := endArray(j, name); err != nil {
			return sum.finish(), err
		}
	}
	if sum.sum.Rows == 0 && len(sum.sum.Rejected) == 0 {
		return sum.finish(), &ParseError{File: name, Msg: "the JSON holds no billing records: nothing to ingest; check the export's query and time range"}
	}
	if perr := noGoodRow(name, sum.sum); perr != nil {
		return sum.finish(), perr
	}
	return sum.finish(), nil
}

// gcpJSONLine builds one record's billing line. A first record that has
// neither a start nor a cost is no GCP export at all: its error says so
// and stops the file (true).
func gcpJSONLine(name string, b *gcpBuilder, line int, raw []byte, first bool) ([]*finops.BillingLine, *ParseError, bool) {
	rec, perr := newGCPJSONFields(name, line, raw)
	var l *finops.BillingLine
	if perr == nil {
		l, perr = b.build(rec, line)
	}
	if perr == nil {
		return []*finops.BillingLine{l}, nil, false
	}
	if first && rec != nil && rec.text(gcpStart) == "" && rec.text(gcpCost) == "" {
		perr.Msg = "not a GCP billing export record: expected usage_start_time, usage_end_time and cost (" + perr.Msg + ")"
		return nil, perr, true
	}
	return nil, perr, false
}

// endArray reads the "]" closing an array of records and refuses anything
// after it: a file holds one array or one record per line.
func endArray(j *jsonReader, name string) error {
	if _, err := j.dec.Token(); err != nil { // ]
		return j.fail(err, "")
	}
	if _, err := j.dec.Token(); err != io.EOF {
		if err == nil {
			return &ParseError{File: name, Line: j.line(), Msg: "more JSON after the array of records; a file holds one array or one record per line"}
		}
		return j.fail(err, "")
	}
	return nil
}

// newGCPJSONFields reads one record: into the export's own schema when it
// fits (fast), else into a generic map with nested records flattened (a
// query that renamed or flattened columns).
func newGCPJSONFields(file string, line int, raw []byte) (gcpFields, *ParseError) {
	var t gcpJSONTyped
	if json.Unmarshal(raw, &t) == nil && t.UsageStartTime != "" {
		t.file, t.line = file, line
		return &t, nil
	}
	r, perr := newGCPJSONRecord(file, line, raw)
	if r == nil {
		return nil, perr
	}
	return r, perr
}

// gcpJSONTyped is a record of the standard or detailed export schema.
type gcpJSONTyped struct {
	file string
	line int

	BillingAccountID string `json:"billing_account_id"`
	Service          struct {
		Description string `json:"description"`
	} `json:"service"`
	SKU struct {
		ID          string `json:"id"`
		Description string `json:"description"`
	} `json:"sku"`
	UsageStartTime string `json:"usage_start_time"`
	UsageEndTime   string `json:"usage_end_time"`
	Project        struct {
		ID     string          `json:"id"`
		Labels json.RawMessage `json:"labels"`
	} `json:"project"`
	Labels       json.RawMessage `json:"labels"`
	SystemLabels json.RawMessage `json:"system_labels"`
	Location     struct {
		Location string `json:"location"`
		Region   string `json:"region"`
	} `json:"location"`
	Resource struct {
		Name       string `json:"name"`
		GlobalName string `json:"global_name"`
	} `json:"resource"`
	Cost       json.RawMessage `json:"cost"`
	CostAtList json.RawMessage `json:"cost_at_list"`
	Currency   string          `json:"currency"`
	CostType   string          `json:"cost_type"`
	Usage      struct {
		Amount               json.RawMessage `json:"amount"`
		Unit                 string          `json:"unit"`
		AmountInPricingUnits json.RawMessage `json:"amount_in_pricing_units"`
		PricingUnit          string          `json:"pricing_unit"`
	} `json:"usage"`
	Credits json.RawMessage `json:"credits"`
}

// rawText is a JSON scalar as text: a string's contents, a number as written.
func rawText(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return ""
	}
	if s[0] == '"' {
		var str string
		if json.Unmarshal(raw, &str) == nil {
			return strings.TrimSpace(str)
		}
	}
	return s
}

func (r *gcpJSONTyped) text(name string) string {
	switch name {
	case gcpStart:
		return r.UsageStartTime
	case gcpEnd:
		return r.UsageEndTime
	case gcpCost:
		return rawText(r.Cost)
	case gcpCurrency:
		return r.Currency
	case gcpCostType:
		return r.CostType
	case gcpAccount:
		return r.BillingAccountID
	case gcpProject:
		return r.Project.ID
	case gcpService:
		return r.Service.Description
	case gcpSKU:
		return r.SKU.Description
	case gcpSKUID:
		return r.SKU.ID
	case gcpRegion:
		return r.Location.Region
	case gcpLocation:
		return r.Location.Location
	case gcpResource:
		return r.Resource.Name
	case gcpGlobalName:
		return r.Resource.GlobalName
	case gcpUsage:
		return rawText(r.Usage.Amount)
	case gcpUsageUnit:
		return r.Usage.Unit
	case gcpPricingQty:
		return rawText(r.Usage.AmountInPricingUnits)
	case gcpPricingUnit:
		return r.Usage.PricingUnit
	case gcpListCost:
		return rawText(r.CostAtList)
	case gcpCredits:
		return string(r.Credits)
	case gcpLabels:
		return string(r.Labels)
	case gcpSysLabels:
		return string(r.SystemLabels)
	case gcpProjLabels:
		return string(r.Project.Labels)
	}
	return ""
}

func (r *gcpJSONTyped) literal(name string) (any, string) {
	var raw json.RawMessage
	switch name {
	case gcpCredits:
		raw = r.Credits
	case gcpLabels:
		raw = r.Labels
	case gcpSysLabels:
		raw = r.SystemLabels
	case gcpProjLabels:
		raw = r.Project.Labels
	}
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" || s == "[]" {
		return nil, ""
	}
	if s[0] == '"' { // a list serialized as a string
		return nil, rawText(raw)
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, s // refused again, by name, as literal text
	}
	return v, ""
}

func (r *gcpJSONTyped) bad(name, expected, value string) *ParseError {
	if value == "" {
		value = r.text(name)
	}
	return fieldErr(r.file, r.line, name, expected, value)
}

// gcpJSONRecord is one JSON record with nested records flattened.
type gcpJSONRecord struct {
	file   string
	line   int
	fields map[string]any // alnumLower(dotted name) → value
}

func newGCPJSONRecord(file string, line int, raw []byte) (*gcpJSONRecord, *ParseError) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil || obj == nil {
		return nil, &ParseError{File: file, Line: line, Msg: "expected a JSON object (one billing record), found " + found(string(raw))}
	}
	r := &gcpJSONRecord{file: file, line: line, fields: make(map[string]any, 48)}
	r.flatten("", obj)
	return r, nil
}

func (r *gcpJSONRecord) flatten(prefix string, obj map[string]any) {
	for k, v := range obj {
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		if m, ok := v.(map[string]any); ok && !strings.HasSuffix(name, "labels") {
			r.flatten(name, m)
			continue
		}
		r.fields[alnumLower(name)] = v
	}
}

func (r *gcpJSONRecord) text(name string) string {
	switch v := r.fields[alnumLower(name)].(type) {
	case nil:
		return ""
	case string:
		if isNull(v) {
			return ""
		}
		return strings.TrimSpace(v)
	case json.Number:
		return string(v)
	case bool:
		if v {
			return "true"
		}
		return "false"
	}
	return ""
}

func (r *gcpJSONRecord) literal(name string) (any, string) {
	v := r.fields[alnumLower(name)]
	if s, ok := v.(string); ok {
		return nil, strings.TrimSpace(s)
	}
	return v, ""
}

func (r *gcpJSONRecord) bad(name, expected, value string) *ParseError {
	if value == "" {
		if v, ok := r.fields[alnumLower(name)]; ok && v != nil {
			b, _ := json.Marshal(v)
			value = string(b)
		}
	}
	return fieldErr(r.file, r.line, name, expected, value)
}
