package ingest

import (
	"encoding/json"
	"fmt"

	"github.com/finops-oss/finops"
)

// jsonBilling takes the records of a JSON billing file (RunPod, Vast.ai,
// GCP) through the same checks on their way to the sink: the record's text
// and keys (checkJSONRecord), the format's parser, each line (lineChecker)
// and the file's budget of bad records.
type jsonBilling struct {
	name   string
	sink   Sink
	sum    *summarizer
	lines  *lineChecker
	maxBad int
	// pathFields names a line's fields by the record's path ("[3].amount");
	// GCP's are named as the export's columns are.
	pathFields bool
}

// record checks the record at path, starting on line, and hands it to
// parse. A refused record is counted and skipped while the budget of bad
// records lasts; fatal from parse ends the file with that error. A record
// of no lines is counted as skipped.
func (b *jsonBilling) record(raw []byte, path string, line int, parse func() (ls []*finops.BillingLine, perr *ParseError, fatal bool)) error {
	perr := checkJSONRecord(b.name, line, path, raw)
	var ls []*finops.BillingLine
	if perr == nil {
		var fatal bool
		if ls, perr, fatal = parse(); fatal {
			return perr
		}
	}
	checkPath := ""
	if b.pathFields {
		checkPath = path
	}
	for _, l := range ls {
		if perr != nil {
			break
		}
		if perr = b.lines.check(l, checkPath); perr == nil {
			ids := billingIDs(l)
			if perr = checkIDs(b.name, l.Line, ids[:]); perr != nil && checkPath != "" {
				perr.Field = checkPath + "." + perr.Field
			}
		}
	}
	if perr != nil {
		return b.sum.reject(perr, b.maxBad)
	}
	if ls == nil {
		b.sum.sum.Skipped++
	}
	for _, l := range ls {
		if err := b.sink.Billing(l); err != nil {
			return fmt.Errorf("%s:%d: %w", b.name, line, err)
		}
		b.sum.billing(l)
	}
	return nil
}

// next decodes the next record, at path, and finds the line it starts on.
// A record nested deeper than maxJSONDepth is refused; decoder errors come
// back as the decoder gave them (io.EOF ends a newline-delimited file).
func (j *jsonReader) next(path string) (raw json.RawMessage, line int, err error) {
	if err := j.dec.Decode(&raw); err != nil {
		return nil, 0, err
	}
	end := j.dec.InputOffset()
	j.lim.mark = end
	line = j.lines.lineAt(end - int64(len(raw)))
	if d := jsonDepth(raw); d > maxJSONDepth {
		return nil, line, &ParseError{File: j.name, Line: line, Field: path,
			Msg: fmt.Sprintf("JSON nested %d levels deep, more than the %d a billing record needs; is this a billing export?", d, maxJSONDepth)}
	}
	return raw, line, nil
}
