package ingest

import (
	"fmt"
	"slices"
	"strings"
)

// newSMISetup sets up an nvidia-smi log: by its header, by the field list
// given for headerless logs (Options.SMIFields), or, with neither, by
// detectSMISetup once the first rows are read.
func newSMISetup(hdr []string, cols *columns, opt Options, fileErr func(string) *ParseError, otherFormat bool, looksLike string) (parserSetup, *ParseError) {
	setup := parserSetup{format: FormatNvidiaSMI, kind: KindUtilization}
	if isNvidiaSMIHeader(hdr) {
		if len(opt.SMIFields) > 0 && !sameSMIFields(hdr, opt.SMIFields) {
			return parserSetup{}, fileErr(fmt.Sprintf("the header lists %s, the fields given are %s: a header says its own fields; "+
				"drop --fields (fields: in the config) for logs with a header, or make it match", strings.Join(hdr, ","), strings.Join(opt.SMIFields, ",")))
		}
		p := newSMIParser(cols, opt)
		if perr := p.oneGPU(opt, fileErr); perr != nil {
			return parserSetup{}, perr
		}
		p.header = hdr
		setup.p, setup.header = p, hdr
		return setup, nil
	}
	if otherFormat {
		return parserSetup{}, fileErr("not an nvidia-smi log: its header does not name timestamp and one of " +
			strings.Join(smiHeaderFields(), ", ") + looksLike)
	}
	setup.headerIsData = true
	if len(opt.SMIFields) == 0 {
		setup.detectSMI = true
		return setup, nil
	}
	setup.header = opt.SMIFields
	setup.p = newSMIParser(newColumns(setup.header, smiColumn), opt)
	return setup, nil
}

// sameSMIFields reports whether a header names the fields of a list, in order.
func sameSMIFields(hdr, fields []string) bool {
	return slices.EqualFunc(hdr, fields, func(h, f string) bool { return smiColumn(h) == smiColumn(f) })
}

// aheadRecord is a record read before the parser was chosen.
type aheadRecord struct {
	rec    []string
	line   int
	rowErr *ParseError
	err    error
}

// readAhead reads up to n records (copies: the reader reuses its buffer),
// stopping after the first that is not a plain record.
func readAhead(src recordSource, n int) []aheadRecord {
	var out []aheadRecord
	for len(out) < n {
		rec, line, rowErr, err := src.next(nil)
		out = append(out, aheadRecord{rec: cloneRecord(rec), line: line, rowErr: rowErr, err: err})
		if rowErr != nil || err != nil {
			break
		}
	}
	return out
}

func cloneRecord(rec []string) []string {
	out := make([]string, len(rec))
	for i, f := range rec {
		out[i] = strings.Clone(f)
	}
	return out
}

// detectSMISetup names the columns of a headerless nvidia-smi log from its
// first rows, or refuses the file saying how to name them.
func detectSMISetup(setup *parserSetup, first []string, line int, ahead []aheadRecord, opt Options) *ParseError {
	rows := [][]string{first}
	for _, a := range ahead {
		if a.rowErr == nil && a.err == nil && !blankRecord(a.rec) {
			rows = append(rows, a.rec)
		}
	}
	names, why := detectSMIFields(rows)
	if why != "" {
		return &ParseError{File: opt.Name, Line: line, Msg: "a log without a header whose fields finops cannot tell from the values: " +
			why + "; " + smiFieldsFix}
	}
	setup.header = names
	setup.p = newSMIParser(newColumns(names, smiColumn), opt)
	return nil
}
