package ingest

import (
	"strings"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/sanitize"
)

// Identifiers are one line of visible text. Every field a reader reads is
// checked as read for the characters no text holds (checkText: everything
// sanitize.UnsafeRune refuses but TAB, LF and CR); an identifier, a name or
// a team — what the reports group by, the watch acts on and chat messages
// quote — holds not even those three (sanitize.FindUnsafe with nothing
// kept), whichever reader produced the record: a JSON string, a Parquet
// map or a column joined to another reach the record decoded.

// idField is one identifying field of a record: the name an error gives it
// (the FOCUS column, or the record's field) and its value.
type idField struct{ name, value string }

// billingIDs are a line's identifying fields; its ResourceName is display
// text, which may hold a line break (every writer keeps or replaces it), as
// a description may.
// They come as an array, not a slice, so a row's check allocates nothing.
func billingIDs(l *finops.BillingLine) [13]idField {
	return [...]idField{{"ProviderName", l.Provider}, {"BillingAccountId", l.BillingAccount}, {"SubAccountId", l.SubAccount},
		{"CommitmentDiscountId", l.CommitmentID}, {"ResourceId", l.ResourceID},
		{"ResourceType", l.ResourceType}, {"ServiceName", l.Service}, {"SkuId", l.SKU}, {"InstanceType", l.InstanceType},
		{"RegionId", l.Region}, {"GPUModel", l.GPUModel}, {"BillingCurrency", l.Currency}, {"PricingUnit", l.UsageUnit}}
}

func sampleIDs(s *finops.GPUSample) [4]idField {
	return [...]idField{{"hostname", s.Host}, {"uuid", s.UUID}, {"pci.bus_id", s.BusID}, {"name", s.Model}}
}

func taskIDs(t *finops.TaskRun) []idField {
	f := []idField{{"Task", t.Task}, {"Team", t.Team}, {"Kind", t.Kind}, {"Resource", t.Resource}, {"Unit", t.Unit}}
	for _, g := range t.GPUs {
		f = append(f, idField{"GPUs", g})
	}
	return f
}

// checkIDs refuses the first field of fields that holds a character
// sanitize.UnsafeRune refuses, naming the field and the code point.
func checkIDs(file string, line int, fields []idField) *ParseError {
	perr, _ := checkIDValues(file, line, fields)
	return perr
}

// checkIDValues is checkIDs, also returning the value refused.
func checkIDValues(file string, line int, fields []idField) (*ParseError, string) {
	for _, f := range fields {
		if i, r := sanitize.FindUnsafe(f.value, ""); i >= 0 {
			return &ParseError{File: file, Line: line, Field: f.name,
				Msg: idMsg(r) + " (found " + found(f.value) + ")"}, f.value
		}
	}
	return nil, ""
}

func idMsg(r rune) string {
	if r == '\t' || r == '\n' || r == '\r' {
		return "an identifier or name holds a line break or tab (" + sanitize.RuneName(r) + "): it is one line of text; fix the export"
	}
	return controlMsg(r)
}

// checkParsedIDs checks the identifying fields of the record a row
// produced; for a CSV row (rec not nil) the field is named by the column
// whose cell holds the character, the record's field otherwise.
func checkParsedIDs(file string, line int, header, rec []string, out parsed) *ParseError {
	var fields []idField
	switch {
	case out.billing != nil:
		ids := billingIDs(out.billing)
		fields = ids[:]
	case out.sample != nil:
		ids := sampleIDs(out.sample)
		fields = ids[:]
	case out.task != nil:
		fields = taskIDs(out.task)
	}
	perr, value := checkIDValues(file, line, fields)
	if perr != nil && rec != nil {
		// The cell the value came from: it holds the value (a parser may
		// have trimmed it) and the refused character.
		for i, c := range rec {
			if strings.Contains(c, strings.TrimSpace(value)) {
				if j, _ := sanitize.FindUnsafe(c, ""); j >= 0 {
					perr.Field = columnName(header, i)
					break
				}
			}
		}
	}
	return perr
}

// CheckSample refuses a sample whose host, uuid, bus id or model holds a
// control or invisible formatting character (sanitize.UnsafeRune), for the
// telemetry readers outside this package (dcgm scrapes, Prometheus): the
// same rule as a log's. field names where the text came from (a label).
func CheckSample(file string, s *finops.GPUSample, field func(name string) string) *ParseError {
	ids := sampleIDs(s)
	perr := checkIDs(file, s.Line, ids[:])
	if perr != nil && field != nil {
		perr.Field = field(perr.Field)
	}
	return perr
}

// CheckTask is CheckSample for a task run.
func CheckTask(file string, t *finops.TaskRun) *ParseError {
	return checkIDs(file, t.Line, taskIDs(t))
}

// ExporterLabel names the exporter labels a sample's text comes from (dcgm
// scrapes and Prometheus answers share the label names), for CheckSample's
// refusal of a control or invisible character.
func ExporterLabel(field string) string {
	switch field {
	case "hostname":
		return "the Hostname (hostname, node, instance) label"
	case "uuid":
		return "the UUID (uuid, gpu_uuid) label"
	case "name":
		return "the modelName (name) label"
	}
	return field
}
