package ingest

import (
	"slices"
	"strings"

	"github.com/finops-oss/finops"
)

// Format is one file format ingest reads, with every fact the rest of
// finops needs about it, so that a format is added in one place: a new file
// in this package that defines its entry (and its parser), one line in
// builtinFormats, and a sample under testdata. The registry test
// (TestFormatRegistryFacts) refuses an entry that lacks any fact.
//
// Detection and parsing of a CSV header go through Detect and Rows (or, for
// the formats built into this package, setup, which may use the parsers'
// unexported machinery). JSON billing formats read a record at a time
// (record, records).
type Format struct {
	// Name is what --format and a billing source's format: key say.
	Name string
	// Kind is what the format's files hold: KindBilling, KindUtilization or KindTasks.
	Kind string
	// Describe names the format in messages: "an AWS Cost and Usage Report".
	Describe string
	// Columns says, for a header no format recognises, what this format's
	// header has: "BilledCost, ChargePeriodStart, ...". Formats without a
	// CSV header (JSON records) leave it empty.
	Columns string
	// Doc is the docs page and anchor that says how the format is read,
	// relative to the repository root: "docs/INGEST.md#aws-cur".
	Doc string
	// Sample is a file under testdata/ingest that detection recognises as
	// this format and that parses without a bad row.
	Sample string
	// ConfigKeys are the keys of a billing source (config billing[]) that a
	// source of this format may set; nil for formats a billing source
	// cannot name (telemetry logs and tasks files have their own sections).
	ConfigKeys []string
	// Supersede is how the store treats a file of this format whose
	// records meet another file's (store/scope.go, store/import.go).
	Supersede Supersede
	// Identity lists the format's own columns (or JSON keys) a charge's
	// identity is read from: its resource, period, SKU and kind of charge.
	// Two files holding a charge of the same identity hold the same charge
	// (store/scope.go compares them so). Empty for formats without charges.
	Identity []string

	// Precedence orders header detection: the detector with the lowest
	// precedence that recognises a header names its format (a CUR 2.0
	// header is also a CUR header; a rental mapping may match anything).
	Precedence int
	// Detect reports whether a CSV header is this format's; nil for formats
	// that are not recognised by a header.
	Detect func(h *Header) bool
	// Fallback is a second, weaker detection tried only when no Detect of
	// any format recognised the header (a tasks file calling its resource
	// resource_id, as the mappings do).
	Fallback func(h *Header) bool
	// Norm is how the parser matches column names; nil is strings.ToLower.
	Norm func(string) string
	// Rows sets up the row parser of a header; formats defined outside this
	// package use it. missing names the required columns the header lacks.
	Rows func(h *Header, opt Options) (p RowParser, missing []string)

	// setup is Rows for the formats of this package, whose parsers use its
	// unexported machinery (cost fallbacks, width checks, summaries).
	setup func(s setupInput) (parserSetup, *ParseError)
	// record recognises one record of a JSON billing file as this format's,
	// and records makes its parser.
	record  func(raw []byte) bool
	records func(opt Options) jsonRecordParser
}

// Supersede is how the store treats a file whose records meet another
// file's: the de-duplication rule of a format.
type Supersede int

// Supersede rules. The zero value is no rule: an entry that forgets to say
// fails the registry test instead of silently changing de-duplication.
const (
	supersedeUnset Supersede = iota
	// SupersedeNever: the records are no charges (GPU samples, task runs);
	// the store never compares the file with others.
	SupersedeNever
	// SupersedeByCharge: the file's billing lines are compared, per scope
	// (provider, account, UTC month), with every other file's by charge
	// identity; a file holding every charge of another replaces it, one
	// adding none is left out, and anything else is refused (OverlapError).
	SupersedeByCharge
	// SupersedeByPeriod: as SupersedeByCharge, and the parser names the
	// file's billing period and delivery from its data (Summary.Period and
	// Delivery: Azure's scope, month and cost basis), so a delivery of the
	// period replaces the period's other deliveries whole.
	SupersedeByPeriod
)

// String names the rule as the docs do.
func (s Supersede) String() string {
	switch s {
	case SupersedeNever:
		return "never compared"
	case SupersedeByCharge:
		return "by charge"
	case SupersedeByPeriod:
		return "by period, then by charge"
	}
	return "unset"
}

// ComparesCharges reports whether the store compares a file under this
// rule with the files whose charges overlap it.
func (s Supersede) ComparesCharges() bool { return s == SupersedeByCharge || s == SupersedeByPeriod }

// SupersedeOf is the rule the store applies to a parsed file: the one its
// format's entry gave the summary, else the built-in entry of its format,
// else (a summary from a parser that is no registered format) the rule its
// kind and period imply.
func SupersedeOf(s *Summary) Supersede {
	if s.Supersede != supersedeUnset {
		return s.Supersede
	}
	if f, ok := LookupFormat(s.Format); ok && f.Kind == s.Kind {
		return f.Supersede
	}
	switch {
	case s.Kind != KindBilling:
		return SupersedeNever
	case s.Period != "":
		return SupersedeByPeriod
	}
	return SupersedeByCharge
}

// Header is a CSV header as format detection sees it: names cleaned of a
// BOM and spaces, looked up case-insensitively.
type Header struct {
	names    []string
	idx      *columns
	mappings []ColumnMapping
	mapping  *ColumnMapping // the mapping the rental detection matched
}

func newHeader(names []string, mappings []ColumnMapping) *Header {
	return &Header{names: names, idx: headerIndex(names), mappings: mappings}
}

// Names returns the header's column names, cleaned.
func (h *Header) Names() []string { return slices.Clone(h.names) }

// Has reports whether the header names every one of names (case-insensitive).
func (h *Header) Has(names ...string) bool { return len(missing(h.idx, names...)) == 0 }

// Col returns the column of the first of names the header holds, or -1.
func (h *Header) Col(names ...string) int { return h.idx.col(names...) }

// Row is what a RowParser made of one CSV record: one of its fields set,
// or none for a row that is deliberately no record.
type Row struct {
	Billing *finops.BillingLine
	Sample  *finops.GPUSample
	Task    *finops.TaskRun
}

// RowParser turns the CSV records after a header into records, one at a
// time; the error of a bad row names the row's field (a *ParseError).
type RowParser interface {
	ParseRow(rec []string, line int) (*Row, *ParseError)
}

// setupInput is what a built-in format's setup is handed.
type setupInput struct {
	det       *detection // what detection found (format, mapping, error)
	cols      *columns   // the header, normalised by the format's Norm
	line      int        // the header's line
	opt       Options
	looksLike string // "; the header looks like …: drop --format …", or ""
}

func (s setupInput) fileErr(msg string) *ParseError {
	return &ParseError{File: s.opt.Name, Line: s.line, Msg: msg}
}

// missingErr is the usual refusal of a header without a required column.
func (s setupInput) missingErr(describe string, miss []string) *ParseError {
	return s.fileErr("not " + describe + ": missing column(s) " + strings.Join(miss, ", ") + s.looksLike)
}

// rowsSetup is the setup of a format defined through Rows.
func (f *Format) rowsSetup(s setupInput) (parserSetup, *ParseError) {
	h := &Header{names: s.cols.hdr, idx: s.cols, mappings: s.opt.Mappings}
	p, miss := f.Rows(h, s.opt)
	if len(miss) > 0 || p == nil {
		return parserSetup{}, s.missingErr(f.Describe, miss)
	}
	return parserSetup{p: rowAdapter{p}, format: f.Name, kind: f.Kind, header: s.cols.hdr, supersede: f.Supersede}, nil
}

// rowAdapter makes a RowParser one of this package's row parsers.
type rowAdapter struct{ p RowParser }

func (a rowAdapter) parse(rec []string, line int) (parsed, *ParseError) {
	r, perr := a.p.ParseRow(rec, line)
	if perr != nil || r == nil {
		return parsed{}, perr
	}
	return parsed{billing: r.Billing, sample: r.Sample, task: r.Task}, nil
}

// registry is the formats of one Parse: the built-in ones, or those an
// Options names.
type registry []Format

func registryOf(opt Options) registry {
	if opt.Formats != nil {
		return opt.Formats
	}
	return builtinFormats()
}

// lookup finds a format by name.
func (r registry) lookup(name string) (*Format, bool) {
	for i := range r {
		if r[i].Name == name {
			return &r[i], true
		}
	}
	return nil, false
}

// detectors are the formats with a header detection, in precedence order.
func (r registry) detectors() []*Format {
	var out []*Format
	for i := range r {
		if r[i].Detect != nil || r[i].Fallback != nil {
			out = append(out, &r[i])
		}
	}
	slices.SortStableFunc(out, func(a, b *Format) int { return a.Precedence - b.Precedence })
	return out
}

// names lists the formats' names in the registry's order, those of kind
// only when kind is not "".
func (r registry) names(kind string) []string {
	var out []string
	for _, f := range r {
		if kind == "" || f.Kind == kind {
			out = append(out, f.Name)
		}
	}
	return out
}

// BuiltinFormats returns the formats Parse reads, a fresh copy each call:
// append a format of one's own and pass the result as Options.Formats.
func BuiltinFormats() []Format { return builtinFormats() }

// LookupFormat finds a built-in format by name.
func LookupFormat(name string) (Format, bool) {
	f, ok := registry(builtinFormats()).lookup(name)
	if !ok {
		return Format{}, false
	}
	return *f, true
}

// Formats lists the formats Parse reads, for the checks of a --format flag
// and their messages.
func Formats() []string { return registry(builtinFormats()).names("") }

// BillingSourceFormats lists the formats a billing source of the config
// may name in its format: key (detected from the header when left out).
func BillingSourceFormats() []string {
	var out []string
	for _, f := range builtinFormats() {
		if f.ConfigKeys != nil {
			out = append(out, f.Name)
		}
	}
	return out
}
