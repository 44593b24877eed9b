package ingest

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/finops-oss/finops"
)

// requiredMappingFields are the mapping fields a rental CSV cannot do without.
func requiredMappingFields() []string { return []string{"resource_id", "start", "end", "cost"} }

// knownMappingFields are the ColumnMapping.Columns keys the rental parser reads.
func knownMappingFields() []string {
	return []string{
		"resource_id", "resource_name", "start", "end", "cost", "list_cost", "currency",
		"gpu", "gpu_model", "gpu_count", "pricing_mode", "region", "sku", "team", "task",
		"usage_quantity", "usage_unit",
		"account", "service", "tags", "instance_config",
	}
}

// DetectFormat names the format of a CSV from its header: FOCUS (BilledCost
// and ChargePeriodStart), nvidia-smi (timestamp and one of utilization.gpu,
// utilization.memory, uuid, index or pci.bus_id, in any order), a finops
// tasks file (task, resource, start, end), a cloud billing export (AWS CUR
// or CUR 2.0, GCP, Azure: detectCloudFormat), or the first of
// mappings whose required columns are all present (format FormatRental; the
// mapping is returned). Parse passes the configured mappings followed by
// BuiltinMappings. A header no mapping reads with resource_id for resource
// is a tasks file; an Oracle Cloud cost or usage report of OCI's own format
// is refused naming it (ociNativeReport).
//
// The formats and their order are the registry's (formats_builtin.go):
// each format's Detect, by Precedence, then each Fallback.
func DetectFormat(header []string, mappings []ColumnMapping) (format string, mapping *ColumnMapping, err error) {
	return detectIn(builtinFormats(), header, mappings)
}

// detectIn is DetectFormat over the formats of a registry.
func detectIn(formats registry, header []string, mappings []ColumnMapping) (format string, mapping *ColumnMapping, err error) {
	h := cleanHeader(header)
	hv := newHeader(h, mappings)
	idx := hv.idx
	ds := formats.detectors()
	for _, f := range ds {
		if f.Detect != nil && f.Detect(hv) {
			return f.Name, hv.mapping, nil
		}
	}
	for _, f := range ds {
		if f.Fallback != nil && f.Fallback(hv) {
			return f.Name, hv.mapping, nil
		}
	}
	if msg := ociNativeReport(idx); msg != "" {
		return "", nil, errors.New(msg)
	}
	return "", nil, errors.New(unrecognisedHeader(formats, h, idx, mappings))
}

// unrecognisedHeader says what a header nothing recognised lacks. It lists
// every format of the registry that detects a header, in detection order,
// so a format added to the registry is named here without another edit.
func unrecognisedHeader(formats registry, h []string, idx *columns, mappings []ColumnMapping) string {
	shown := h
	if len(shown) > 6 {
		shown = shown[:6]
	}
	msg := fmt.Sprintf("unrecognised header (%s", strings.Join(shown, ", "))
	if len(h) > len(shown) {
		msg += ", ..."
	}
	var expected []string
	for _, f := range formats.detectors() {
		e := f.Describe
		if f.Columns != "" {
			e += " (" + f.Columns + ")"
		}
		expected = append(expected, e)
	}
	msg += "): expected one of " + strings.Join(expected, "; ") + "; pass --format or add a mapping to the config"
	if hint := foreignHint(idx); hint != "" {
		msg += "; " + hint
	}
	// The mapping that came closest says what the file lacks.
	best, bestMissing := -1, []string(nil)
	for i := range mappings {
		miss := mappings[i].missingColumns(idx)
		if len(miss) < len(requiredMappingFields()) && (best < 0 || len(miss) < len(bestMissing)) {
			best, bestMissing = i, miss
		}
	}
	if best >= 0 {
		msg += fmt.Sprintf("; mapping %q lacks column(s) %s", mappings[best].Name, strings.Join(bestMissing, ", "))
	}
	return msg
}

// foreignHint recognises exports finops does not read, to say what to export instead.
func foreignHint(idx *columns) string {
	switch {
	case idx.col("lineItem/UnblendedCost", "line_item_unblended_cost") >= 0:
		return "this looks like an AWS Cost and Usage Report but lacks lineItem/LineItemType: include the line item columns in the report, or export FOCUS (AWS Data Exports, FOCUS 1.0)"
	case idx.col("CostInBillingCurrency", "PreTaxCost", "costInBillingCurrency") >= 0:
		return "this looks like an Azure cost export but lacks the Date (or UsageDateTime) or MeterCategory column: export the full cost details, or the FOCUS dataset"
	case idx.col("cost", "sku.description", "sku_description") >= 0 && idx.col("usage_start_time") >= 0:
		return "this looks like a GCP billing export but lacks usage_end_time or sku.description: export every column of the billing table, or a FOCUS view of it"
	case smiLike(idx.hdr):
		return "this looks like an nvidia-smi log but names none of " + strings.Join(smiHeaderFields(), ", ") +
			": add utilization.gpu and index (or uuid) to the logger's --query-gpu list"
	}
	return ""
}

// smiHeaderFields are the fields of which an nvidia-smi header names at
// least one besides timestamp: what finops reads a GPU's use by or tells
// the GPUs apart by.
func smiHeaderFields() []string {
	return []string{"utilization.gpu", "utilization.memory", "uuid", "index", "pci.bus_id"}
}

// isNvidiaSMIHeader reports an nvidia-smi --query-gpu header: one that names
// timestamp and at least one of smiHeaderFields, wherever they stand, since
// the logger's --query-gpu list decides the order (HPC guides log
// index,timestamp,…). A data row never qualifies: its cells are values.
func isNvidiaSMIHeader(h []string) bool {
	ts, known := false, false
	for _, c := range h {
		switch n := smiColumn(c); {
		case n == "timestamp":
			ts = true
		case slices.Contains(smiHeaderFields(), n):
			known = true
		}
	}
	return ts && known
}

// smiLike reports a header that names timestamp and is otherwise made of
// nvidia-smi --query-gpu fields: a log that lacks what finops reads.
func smiLike(h []string) bool {
	ts := false
	for _, c := range h {
		n := smiColumn(c)
		if canonicalSMIField(n) == "" {
			return false
		}
		ts = ts || n == "timestamp"
	}
	return ts && len(h) > 1
}

// smiColumn strips the unit from an nvidia-smi header name and reads an
// alias as its field: "power.draw [W]" → "power.draw", "gpu_uuid" → "uuid".
func smiColumn(h string) string {
	if i := strings.IndexByte(h, '['); i >= 0 {
		h = h[:i]
	}
	if c := canonicalSMIField(h); c != "" {
		h = c // an alias: gpu_uuid is uuid
	}
	return strings.ToLower(strings.TrimSpace(h))
}

// missing lists the names (as given) that the header lacks.
func missing(idx *columns, names ...string) []string {
	var out []string
	for _, n := range names {
		if idx.col(n) < 0 {
			out = append(out, n)
		}
	}
	return out
}

// missingColumns lists the file columns of the mapping's required fields that
// the header lacks (or the field itself, when the mapping does not map it).
func (m *ColumnMapping) missingColumns(idx *columns) []string {
	var out []string
	for _, f := range requiredMappingFields() {
		h := strings.TrimSpace(m.Columns[f])
		if h == "" {
			out = append(out, f)
			continue
		}
		if idx.col(h) < 0 {
			out = append(out, h)
		}
	}
	return out
}

// Validate checks a mapping as the config gives it: the required fields are
// mapped, every field is one the rental parser reads, and every mode maps to
// a Mode* constant.
func (m *ColumnMapping) Validate() error {
	var probs []string
	for _, f := range requiredMappingFields() {
		if strings.TrimSpace(m.Columns[f]) == "" {
			probs = append(probs, fmt.Sprintf("field %s is required: name its column", f))
		}
	}
	var fields []string
	for f := range m.Columns {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		if !slices.Contains(knownMappingFields(), f) {
			probs = append(probs, fmt.Sprintf("unknown field %q: use one of %s", f, strings.Join(knownMappingFields(), ", ")))
		}
	}
	if _, err := NormalizeEncoding(m.Encoding); err != nil {
		probs = append(probs, err.Error())
	}
	for raw, mode := range m.Modes {
		if !validMode(mode) {
			probs = append(probs, fmt.Sprintf("mode %q for %q: use hourly, daily, weekly, monthly, spot, committed or per_task", mode, raw))
		}
	}
	if len(probs) > 0 {
		sort.Strings(probs)
		return fmt.Errorf("mapping %q: %s", m.Name, strings.Join(probs, "; "))
	}
	return nil
}

func validMode(m string) bool {
	switch m {
	case finops.ModeHourly, finops.ModeDaily, finops.ModeWeekly, finops.ModeMonthly, finops.ModeSpot, finops.ModeCommitted, finops.ModePerTask:
		return true
	}
	return false
}
