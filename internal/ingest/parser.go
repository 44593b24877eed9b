package ingest

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/gpu"
)

// ctxCheckEvery is how many rows Parse reads between looks at its context.
const ctxCheckEvery = 4096

// rowParser turns one CSV record into one record for the sink.
type rowParser interface {
	parse(rec []string, line int) (parsed, *ParseError)
}

// parsed holds the one record a row produced.
type parsed struct {
	billing *finops.BillingLine
	sample  *finops.GPUSample
	task    *finops.TaskRun
	// dropped is a telemetry row that is no sample (finops.ValidUtil): counted, not refused.
	dropped bool
	// fallback: the billing line's effective cost is its billed cost because
	// the column that should hold it is empty; counted and warned per file.
	fallback *costFallback
}

// Parse reads one file (a FOCUS export, an nvidia-smi --query-gpu log, a
// tasks file or a rental CSV through a column mapping) and streams its
// records to sink one at a time. The format comes from opt.Format or, when
// that is empty, from the header.
//
// Errors are *ParseError values naming the file, line and field, except
// those of ctx and of the sink (wrapped with the file and line). A bad row is
// counted in Summary.Rejected and skipped while there are at most
// opt.MaxBadRows of them; the one beyond that ends the parse. On error the
// returned Summary, when not nil, describes what was delivered before it.
func Parse(ctx context.Context, r io.Reader, opt Options, sink Sink) (*Summary, error) {
	if opt.Name == "" {
		opt.Name = "<input>"
	}
	if opt.Catalog == nil {
		opt.Catalog = gpu.NewCatalog()
	}
	if opt.Location == nil {
		opt.Location = time.UTC
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := opt.Name
	if IsParquet(r) {
		return parseParquet(ctx, r.(randomAccess), opt, sink)
	}
	// The row loops look at ctx every ctxCheckEvery rows, which at up to
	// 8 MiB a row is gigabytes: the reader looks at every read.
	watch := &textWatch{r: ContextReader(ctx, r)}
	in := prepareInput(watch, opt)
	if in.utf16 != "" {
		return nil, &ParseError{File: name, Line: 1, Msg: "the file is " + in.utf16 + " text (Excel's \"Unicode text\"), " +
			"not UTF-8: re-export it as UTF-8 (Excel: Save As, CSV UTF-8) or convert it: iconv -f UTF-16 -t UTF-8"}
	}
	if in.parquet {
		return nil, &ParseError{File: name, Msg: "a Parquet file inside a gzip or zip archive: finops reads Parquet files as they are (their pages are compressed already); extract it and ingest the .parquet file"}
	}
	if isGCPJSONInput(in.r, opt) {
		return parseGCPJSON(ctx, in.r, opt, sink)
	}
	if in.json {
		return parseJSON(ctx, in.r, opt, sink)
	}
	cr := newCSVReader(in.r, name)
	first, line, rowErr, err := cr.next(nil)
	for err == nil && rowErr == nil && blankRecord(first) {
		first, line, rowErr, err = cr.next(nil)
	}
	switch {
	case err == io.EOF:
		return &Summary{Format: opt.Format}, &ParseError{File: name,
			Msg: "the file is empty: nothing to ingest; check that the export or log finished writing"}
	case err != nil:
		return nil, err
	case rowErr != nil:
		rowErr.Msg = "header: " + rowErr.Msg
		return nil, rowErr
	}
	return parseRecords(ctx, cr, first, line, in.encoding, in.detected, watch.found, opt, sink)
}

// recordSource yields a file's records after its header: CSV lines, or the
// rows of a Parquet file turned into the cells a CSV of it would have.
type recordSource interface {
	// next returns the next record and where it is; rowErr is a record that
	// can be skipped, fatal io.EOF or an error that ends the file.
	next(header []string) (rec []string, line int, rowErr *ParseError, fatal error)
	// numbersRows reports that line counts data rows, not lines of text.
	numbersRows() bool
}

// checkWidth refuses a row with fewer fields than the header (a cut-off
// line) or with extra non-empty ones (an unquoted comma in a value).
func checkWidth(file string, line int, header, rec []string) *ParseError {
	if len(rec) < len(header) {
		return &ParseError{File: file, Line: line, Field: columnName(header, len(rec)),
			Msg: fmt.Sprintf("expected %d fields as in the header, found %d; the line is cut off or a value lost its quotes", len(header), len(rec))}
	}
	for i := len(header); i < len(rec); i++ {
		if strings.TrimSpace(rec[i]) != "" {
			return &ParseError{File: file, Line: line, Field: columnName(header, i),
				Msg: fmt.Sprintf("expected %d fields as in the header, found %d (extra value %s); quote values that contain commas", len(header), len(rec), found(rec[i]))}
		}
	}
	return nil
}

// parserSetup is a row parser chosen for a header.
type parserSetup struct {
	p            rowParser
	format, kind string
	header       []string // column names for errors (assumed ones when headerless)
	headerIsData bool     // the first record is a row, not a header
	detectSMI    bool     // a headerless nvidia-smi log: p and header come from its values (detectSMISetup)
	supersede    Supersede
}

// newRowParser picks the parser for a header, detected as det, found on
// line headerLine. A column the parser reads that the header holds twice
// refuses the file.
func newRowParser(det *detection, headerLine int, opt Options) (setup parserSetup, perr *ParseError) {
	fileErr := func(msg string) *ParseError { return &ParseError{File: opt.Name, Line: headerLine, Msg: msg} }
	hdr, detected, mapping, derr := det.header, det.format, det.mapping, det.err
	reg := registryOf(opt)
	looksLike := func() string {
		if detected == "" {
			return ""
		}
		return "; the header looks like " + reg.describe(detected, mapping) + ": drop --format to read it as that"
	}
	format := opt.Format
	if format == "" && len(opt.SMIFields) > 0 {
		format = FormatNvidiaSMI
	}
	if format == "" {
		if derr != nil {
			return parserSetup{}, fileErr(derr.Error())
		}
		format = detected
	}
	f, ok := reg.lookup(format)
	if !ok || f.setup == nil && f.Rows == nil {
		return parserSetup{}, &ParseError{File: opt.Name, Msg: fmt.Sprintf("unknown format %q: use one of %s",
			opt.Format, strings.Join(reg.names(""), ", "))}
	}
	norm := f.Norm
	if norm == nil {
		norm = strings.ToLower
	}
	cols := newColumns(hdr, norm)
	defer func() {
		if perr == nil {
			if perr = cols.duplicate(opt.Name, headerLine); perr != nil {
				setup = parserSetup{}
			}
		}
	}()
	in := setupInput{det: det, cols: cols, line: headerLine, opt: opt, looksLike: looksLike()}
	if f.setup != nil {
		setup, perr = f.setup(in)
	} else {
		setup, perr = f.rowsSetup(in)
	}
	setup.supersede = f.Supersede
	return setup, perr
}

// describe names a format in messages: its entry's Describe, with the
// mapping a rental CSV matched.
func (r registry) describe(format string, m *ColumnMapping) string {
	if format == FormatRental && m != nil {
		return fmt.Sprintf("a rental CSV (mapping %q)", m.Name)
	}
	if f, ok := r.lookup(format); ok && f.Describe != "" {
		return f.Describe
	}
	return format
}

// fieldErr builds the usual row error: what was expected, what was found.
func fieldErr(file string, line int, field, expected, value string) *ParseError {
	return &ParseError{File: file, Line: line, Field: field, Msg: "expected " + expected + ", found " + found(value)}
}
