package ingest

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// parseRecords checks the header first (found on line), picks the row
// parser for it and streams src's records through it to sink: every format
// and every container (CSV, Parquet) goes through the same validation.
// textFound, when not nil, says whether the input held text after its first
// line (a CSV read as a header and no rows must not import as 0 rows).
// det, when not nil, is a detection made while opening the file.
//
// Its steps, each a function of its own: the header's text, the row parser
// for it (setupRecords), the summary that starts with the header's notes
// (headerSummary), the rows (recordStream.run, each through
// recordStream.handle) and the checks of the whole file (finishRecords).
func parseRecords(ctx context.Context, src recordSource, first []string, line int, encoding string, det *detection, textFound func() bool, opt Options, sink Sink) (*Summary, error) {
	hdr, perr := checkHeader(opt.Name, line, first, opt)
	if perr != nil {
		return nil, perr
	}
	setup, first, ahead, perr := setupRecords(src, hdr, first, line, det, opt)
	if perr != nil {
		return nil, perr
	}
	sum := headerSummary(setup, line, encoding, opt.Name)
	r := &recordStream{name: opt.Name, src: src, sink: sink, setup: setup, sum: sum, encoding: encoding,
		maxBad: max(opt.MaxBadRows, 0), serial: opt.oneGoroutine, lines: newLineChecker(opt, fieldsOf(setup.p), sum), ahead: ahead}
	if setup.headerIsData {
		if err := r.handle(first, line); err != nil {
			return sum.finish(), err
		}
	}
	if err := r.run(ctx); err != nil {
		return sum.finish(), err
	}
	return finishRecords(sum, setup, line, textFound)
}

// checkHeader refuses a header that is not text (bad UTF-8, an invisible
// character in a column's name) and returns its names cleaned and cloned.
func checkHeader(name string, line int, first []string, opt Options) ([]string, *ParseError) {
	if perr := checkUTF8(name, line, nil, first); perr != nil {
		perr.Field = ""
		perr.Msg = "header is " + perr.Msg + gbHint(first, opt)
		return nil, perr
	}
	// A BOM may hide in a quoted first name (cleanHeader drops it); any
	// other invisible character in a column's name is refused.
	hdr := cleanHeader(first)
	if perr := checkControl(name, line, nil, hdr); perr != nil {
		perr.Msg = "header: " + perr.Msg
		return nil, perr
	}
	for i := range hdr {
		hdr[i] = strings.Clone(hdr[i])
	}
	return hdr, nil
}

// setupRecords picks the row parser for the header; a headerless
// nvidia-smi log reads its first rows ahead to learn its fields, and
// returns them (ahead) with its first record cloned, to be parsed before
// the rest.
func setupRecords(src recordSource, hdr, first []string, line int, det *detection, opt Options) (parserSetup, []string, []aheadRecord, *ParseError) {
	setup, perr := newRowParser(det.of(hdr, opt), line, opt)
	var ahead []aheadRecord
	if perr == nil && setup.detectSMI {
		first = cloneRecord(first)
		ahead = readAhead(src, smiDetectRows-1)
		perr = detectSMISetup(&setup, first, line, ahead, opt)
	}
	return setup, first, ahead, perr
}

// headerSummary starts the file's summary with what its header says: the
// mapping and its warning, a parser's notes on the header, the encoding,
// the fields of a headerless nvidia-smi log.
func headerSummary(setup parserSetup, line int, encoding, name string) *summarizer {
	sum := newSummarizer(setup.format, setup.kind)
	sum.name = name
	sum.sum.Supersede = setup.supersede
	switch p := setup.p.(type) {
	case *rentalParser:
		sum.sum.Mapping = p.mapping
		if w := p.headerWarning(line); w != nil {
			sum.sum.Warn(w)
		}
	case *focusParser:
		p.noteHeader(sum.sum, line)
	case *smiParser:
		p.noteHeader(sum.sum, line)
	}
	if encoding != EncodingUTF8 {
		sum.sum.Encoding = encoding
	}
	if setup.format == FormatNvidiaSMI && setup.headerIsData {
		sum.sum.SMIFields = setup.header
	}
	return sum
}

// finishRecords closes the summary and refuses a file that delivered no
// good row, or that held text after its header and not one row.
func finishRecords(sum *summarizer, setup parserSetup, line int, textFound func() bool) (*Summary, error) {
	s := sum.finish()
	if f, ok := setup.p.(summaryFinisher); ok {
		f.finishSummary(s)
	}
	if perr := noGoodRow(sum.name, s); perr != nil {
		return s, perr
	}
	if s.Rows == 0 && len(s.Rejected) == 0 && s.Skipped == 0 && s.HeaderRepeats == 0 && !setup.headerIsData && textFound != nil && textFound() {
		return s, &ParseError{File: sum.name, Line: line + 1, Msg: "text after the header, but not one row was read from it: " +
			"finops refuses to import it as 0 rows; are the line ends something other than LF, CRLF or CR, or is the header's quoting broken?"}
	}
	return s, nil
}

// recordStream is one file's rows on their way from src through the row
// parser to the sink.
type recordStream struct {
	name     string
	src      recordSource
	sink     Sink
	setup    parserSetup
	sum      *summarizer
	lines    *lineChecker
	encoding string
	maxBad   int
	ahead    []aheadRecord // rows read to detect a headerless log's fields: they come first
	serial   bool          // never runPiped (Options.oneGoroutine)
}

// run reads every record after the header (and the first row of a
// headerless file) and handles it; a bad record is counted while at most
// maxBad are.
func (r *recordStream) run(ctx context.Context) error {
	if r.piped() {
		return r.runPiped(ctx)
	}
	for n := 1; ; n++ {
		if n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, line, bad, err := r.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if bad != nil {
			if err := r.sum.reject(r.rowErr(bad), r.maxBad); err != nil {
				return err
			}
			continue
		}
		if err := r.handle(rec, line); err != nil {
			return err
		}
	}
}

func (r *recordStream) next() ([]string, int, *ParseError, error) {
	if len(r.ahead) == 0 {
		return r.src.next(r.setup.header)
	}
	a := r.ahead[0]
	r.ahead = r.ahead[1:]
	return a.rec, a.line, a.rowErr, a.err
}

// rowErr marks an error of a Parquet row as such, so it reads "row 17".
func (r *recordStream) rowErr(perr *ParseError) *ParseError {
	if perr != nil && r.src.numbersRows() {
		perr.Row = true
	}
	return perr
}

// handle checks and parses one record and hands what it holds to the
// sink; a bad row is counted (the error once more than maxBad are).
func (r *recordStream) handle(rec []string, line int) error {
	if blankRecord(rec) {
		return nil
	}
	out, perr := r.parse(rec, line)
	if perr != nil {
		return r.sum.reject(r.rowErr(perr), r.maxBad)
	}
	return r.deliverAt(out, line)
}

// deliverAt delivers what the record at line holds; a sink's error (the
// store's) is named by the file and line it came from.
func (r *recordStream) deliverAt(out parsed, line int) error {
	if err := r.deliver(out); err != nil {
		return fmt.Errorf("%s: %w", (&ParseError{File: r.name, Line: line, Row: r.src.numbersRows()}).location(), err)
	}
	return nil
}

// parse runs one record through the checks every format shares (text,
// encoding, width), its row parser and the checks of what it produced.
func (r *recordStream) parse(rec []string, line int) (parsed, *ParseError) {
	if perr := r.check(rec, line); perr != nil {
		return parsed{}, perr
	}
	return r.parseChecked(rec, line)
}

// check runs one record through the checks every format shares: its text,
// its encoding, its width.
func (r *recordStream) check(rec []string, line int) *ParseError {
	name, header := r.name, r.setup.header
	perr := checkText(name, line, header, rec)
	if perr == nil && r.encoding != EncodingUTF8 {
		perr = checkDecoded(name, line, header, rec, r.encoding)
	}
	if perr == nil {
		if wc, ok := r.setup.p.(widthChecker); ok {
			perr = wc.checkWidth(name, line, header, rec)
		} else {
			perr = checkWidth(name, line, header, rec)
		}
	}
	return perr
}

// parseChecked runs a checked record through its row parser and the checks
// of what it produced.
func (r *recordStream) parseChecked(rec []string, line int) (parsed, *ParseError) {
	out, perr := r.parseRow(rec, line)
	if perr == nil {
		perr = checkParsedIDs(r.name, line, r.setup.header, rec, out)
	}
	return out, perr
}

// parseRow runs a checked record through its row parser and, for a billing
// line, the checks every billing format's lines pass.
func (r *recordStream) parseRow(rec []string, line int) (parsed, *ParseError) {
	out, perr := r.setup.p.parse(rec, line)
	if perr == nil && out.billing != nil {
		perr = r.lines.check(out.billing, "")
	}
	return out, perr
}

// deliver hands a parsed row's record to the sink and counts it.
func (r *recordStream) deliver(out parsed) error {
	var err error
	switch {
	case out.dropped:
		r.sum.sum.SamplesDropped++
	case out.billing != nil:
		if err = r.sink.Billing(out.billing); err == nil {
			r.sum.billing(out.billing)
			r.sum.fallback(out.fallback, out.billing)
		}
	case out.sample != nil:
		if err = r.sink.Sample(out.sample); err == nil {
			r.sum.sample(out.sample)
		}
	case out.task != nil:
		if err = r.sink.TaskRun(out.task); err == nil {
			r.sum.task(out.task)
		}
	}
	return err
}
