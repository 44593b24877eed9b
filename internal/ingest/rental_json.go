package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// JSON billing formats of GPU rental platforms.
const (
	FormatRunPod = "runpod" // RunPod billing API (GET /v1/billing/pods|endpoints|networkvolumes): a JSON array
	FormatVast   = "vast"   // Vast.ai billing API: /api/v0/charges/ pages, legacy /users/me/invoices, /api/v1/invoices/
)

// isJSONFormat reports whether opt.Format is read a JSON record at a time
// (its entry in the registry Parse uses, registryOf, has records).
func isJSONFormat(opt Options) bool {
	e, ok := registryOf(opt).lookup(opt.Format)
	return ok && e.records != nil
}

// Bounds on JSON input. A billing record is a few hundred bytes and a few
// levels deep (Vast.ai charges nest items in items); the bounds keep a
// hostile or broken file from costing more than that.
const (
	maxJSONDepth       = 32
	maxJSONRecordBytes = maxRecordBytes // enforced by recordLimiter
)

// recordKeys are the keys of a wrapping object whose array holds the records:
// Vast.ai's {"results": [...]} pages and {"invoices": [...]}.
var recordKeys = map[string]bool{"results": true, "invoices": true, "charges": true}

// jsonRecordParser turns one record of a JSON array into billing lines.
type jsonRecordParser interface {
	// record parses the record at path (e.g. "[3]" or "results[3]"),
	// which starts on line.
	record(raw []byte, path string, line int) ([]*finops.BillingLine, *ParseError)
}

// parseJSON streams the records of a RunPod or Vast.ai billing file. The
// records are read one at a time with json.Decoder (Token/More), so a file
// of any length needs the memory of one record.
func parseJSON(ctx context.Context, r io.Reader, opt Options, sink Sink) (*Summary, error) {
	name := opt.Name
	if opt.Format != "" && !isJSONFormat(opt) {
		return nil, &ParseError{File: name, Line: 1, Msg: fmt.Sprintf(
			"this is a JSON file, but --format %s reads CSV; drop --format to detect a RunPod or Vast.ai billing file", opt.Format)}
	}
	jr := newJSONReader(r, name)
	sum := newSummarizer(opt.Format, KindBilling)
	var p jsonRecordParser
	maxBad := max(opt.MaxBadRows, 0)
	b := &jsonBilling{name: name, sink: sink, sum: sum, maxBad: maxBad, pathFields: true}
	n := 0
	err := jr.records(func(raw []byte, path string, line int) error {
		if n++; n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if p == nil {
			format := opt.Format
			if format == "" {
				format = detectJSONRecord(registryOf(opt), raw)
			}
			if f, ok := registryOf(opt).lookup(format); ok && f.records != nil {
				p = f.records(opt)
				sum.sum.Supersede = f.Supersede
			} else {
				return &ParseError{File: name, Line: line, Field: path, Msg: "expected a RunPod billing record " +
					`({"amount": …, "gpuTypeId": …, "podId": …, "time": …, "timeBilledMs": …}) or a Vast.ai charge or invoice ` +
					`({"type": …, "source": …, "amount": …, "start": …, "end": …}), found ` + found(string(raw))}
			}
			sum.sum.Format = format
			b.lines = newLineChecker(opt, fieldsOf(p), sum)
		}
		return b.record(raw, path, line, func() ([]*finops.BillingLine, *ParseError, bool) {
			ls, perr := p.record(raw, path, line)
			return ls, perr, false
		})
	})
	if err != nil {
		return sum.finish(), err
	}
	if sum.sum.Format == "" {
		// No records: a month without usage. RunPod answers a bare array,
		// Vast.ai a page object.
		switch {
		case opt.Format != "":
			sum.sum.Format = opt.Format
		case jr.page:
			sum.sum.Format = FormatVast
		default:
			sum.sum.Format = FormatRunPod
		}
	}
	s := sum.finish()
	if perr := noGoodRow(name, s); perr != nil {
		return s, perr
	}
	return s, nil
}

// detectJSONRecord names the format of a record from its keys: the first
// format of the registry whose record detection recognises it.
func detectJSONRecord(formats registry, raw []byte) string {
	for _, f := range formats {
		if f.record != nil && f.record(raw) {
			return f.Name
		}
	}
	return ""
}

// jsonKeys are the keys of a JSON object, nil when raw is none.
func jsonKeys(raw []byte) map[string]json.RawMessage {
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw, &keys) != nil {
		return nil
	}
	return keys
}

// isRunPodRecord recognises a RunPod billing record by its keys.
func isRunPodRecord(raw []byte) bool {
	keys := jsonKeys(raw)
	has := func(k string) bool { _, ok := keys[k]; return ok }
	return has("timeBilledMs") || has("gpuTypeId") || has("podId") || has("endpointId") || has("networkVolumeId")
}

// isVastRecord recognises a Vast.ai charge or invoice by its keys; a
// RunPod record (isRunPodRecord, tried first) may have them too.
func isVastRecord(raw []byte) bool {
	keys := jsonKeys(raw)
	has := func(k string) bool { _, ok := keys[k]; return ok }
	return (has("amount") || has("amount_cents")) &&
		(has("source") || has("items") || has("timestamp") || has("when") || has("instance_id") || has("start"))
}

// isVastPage reports whether the start of a file is a JSON object with a
// "results", "invoices" or "charges" array: a Vast.ai billing page. Other
// JSON objects (a GCP newline-delimited export, say) are left to the
// CSV-side formats.
func isVastPage(prefix []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(prefix, []byte("\xef\xbb\xbf"))))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return false
		}
		vt, err := dec.Token()
		if err != nil {
			return false
		}
		d, ok := vt.(json.Delim)
		if !ok {
			continue
		}
		if key, _ := kt.(string); d == '[' && recordKeys[key] {
			return true
		}
		for depth := 1; depth > 0; { // skip the value
			tok, err := dec.Token()
			if err != nil {
				return false
			}
			switch tok {
			case json.Delim('['), json.Delim('{'):
				depth++
			case json.Delim(']'), json.Delim('}'):
				depth--
			}
		}
	}
	return false
}

// jsonReader walks a JSON billing file: a top-level array of records, or an
// object whose "results", "invoices" or "charges" arrays hold them (other
// keys, such as next_token or metadata, are skipped).
type jsonReader struct {
	page  bool // the records came in an object (a Vast.ai page), not a bare array
	name  string
	dec   *json.Decoder
	lim   *recordLimiter
	lines *lineCounter
}

func newJSONReader(r io.Reader, name string) *jsonReader {
	lines := &lineCounter{r: r, line: 1}
	lim := &recordLimiter{r: lines}
	dec := json.NewDecoder(lim)
	dec.UseNumber()
	return &jsonReader{name: name, dec: dec, lim: lim, lines: lines}
}

// records calls fn with each record, its path and the line it starts on.
func (j *jsonReader) records(fn func(raw []byte, path string, line int) error) error {
	tok, err := j.dec.Token()
	if err != nil {
		return j.fail(err, "")
	}
	switch tok {
	case json.Delim('['):
		if err := j.array("", fn); err != nil {
			return err
		}
	case json.Delim('{'):
		j.page = true
		found := false
		for j.dec.More() {
			kt, err := j.dec.Token()
			if err != nil {
				return j.fail(err, "")
			}
			key, _ := kt.(string)
			vt, err := j.dec.Token()
			if err != nil {
				return j.fail(err, key)
			}
			j.lim.mark = j.dec.InputOffset()
			d, isDelim := vt.(json.Delim)
			switch {
			case isDelim && d == '[' && recordKeys[key]:
				if err := j.array(key, fn); err != nil {
					return err
				}
				found = true
			case isDelim:
				if err := j.skip(key); err != nil {
					return err
				}
			}
		}
		if _, err := j.dec.Token(); err != nil { // }
			return j.fail(err, "")
		}
		if !found {
			return &ParseError{File: j.name, Line: 1, Msg: `expected a JSON array of billing records, or an object with a "results" or "invoices" array (a Vast.ai page); found an object without one`}
		}
	default:
		return &ParseError{File: j.name, Line: 1, Msg: fmt.Sprintf("expected a JSON array of billing records, found %v", tok)}
	}
	if _, err := j.dec.Token(); err != io.EOF {
		if err == nil {
			return &ParseError{File: j.name, Line: j.line(), Msg: "more JSON after the billing records; a file holds one array (or one page object)"}
		}
		return j.fail(err, "")
	}
	return nil
}

// array reads the elements of an array whose [ was just read.
func (j *jsonReader) array(key string, fn func([]byte, string, int) error) error {
	for i := 0; j.dec.More(); i++ {
		path := fmt.Sprintf("%s[%d]", key, i)
		raw, line, err := j.next(path)
		if err != nil {
			return j.fail(err, path)
		}
		if err := fn(raw, path, line); err != nil {
			return err
		}
	}
	if _, err := j.dec.Token(); err != nil { // ]
		return j.fail(err, key)
	}
	return nil
}

// skip reads to the end of the array or object whose opening delimiter was
// just read, token by token, refusing nesting deeper than maxJSONDepth.
func (j *jsonReader) skip(key string) error {
	for depth := 1; depth > 0; {
		tok, err := j.dec.Token()
		if err != nil {
			return j.fail(err, key)
		}
		j.lim.mark = j.dec.InputOffset()
		switch tok {
		case json.Delim('['), json.Delim('{'):
			if depth++; depth > maxJSONDepth {
				return &ParseError{File: j.name, Line: j.line(), Field: key,
					Msg: fmt.Sprintf("JSON nested more than %d levels deep; is this a billing export?", maxJSONDepth)}
			}
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
	return nil
}

func (j *jsonReader) line() int { return j.lines.lineAt(j.dec.InputOffset()) }

// fail turns a decoder error into an error naming the file, line and place.
func (j *jsonReader) fail(err error, path string) error {
	var syn *json.SyntaxError
	where := ""
	if path != "" {
		where = " in " + path
	}
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		of := ""
		if path != "" {
			of = " of " + path
		}
		return &ParseError{File: j.name, Line: j.lines.lineAt(j.lines.read), Field: path,
			Msg: "the JSON ends in the middle" + of + "; the file is cut off: download or export it again"}
	case errors.Is(err, errRecordTooLong) && j.lim.blank():
		return &ParseError{File: j.name, Line: j.line(), Field: path,
			Msg: fmt.Sprintf("more than %d MiB of blank lines and no JSON value in them: the file is padding, not an export; check the file", maxJSONRecordBytes>>20)}
	case errors.Is(err, errRecordTooLong):
		return &ParseError{File: j.name, Line: j.line(), Field: path,
			Msg: fmt.Sprintf("a JSON record longer than %d MiB; is this a billing export?", maxJSONRecordBytes>>20)}
	case errors.As(err, &syn):
		return &ParseError{File: j.name, Line: j.lines.lineAt(syn.Offset), Field: path,
			Msg: "malformed JSON" + where + ": " + syn.Error()}
	}
	var perr *ParseError
	if errors.As(err, &perr) {
		return err
	}
	if stopped(err) {
		return fmt.Errorf("%s:%d: %w", j.name, j.line(), err)
	}
	return &ParseError{File: j.name, Line: j.line(), Field: path, Msg: "reading the JSON failed: " + err.Error()}
}

// jsonDepth is the deepest nesting of arrays and objects in a JSON value.
func jsonDepth(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			depth--
		}
	}
	return deepest
}

// lineCounter counts the lines of what a decoder reads, so that a byte
// offset the decoder reports can be turned into a line number. Offsets are
// asked for in increasing order; it keeps only the bytes read past the last
// offset asked for (the decoder's look-ahead, bounded by recordLimiter).
type lineCounter struct {
	r    io.Reader
	read int64  // bytes read
	base int64  // offset of pending[0]
	line int    // line of offset base
	buf  []byte // bytes from base to read
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.buf = append(c.buf, p[:n]...)
	c.read += int64(n)
	return n, err
}

// lineAt is the 1-based line of byte offset off.
func (c *lineCounter) lineAt(off int64) int {
	if off > c.read {
		off = c.read
	}
	if off <= c.base {
		return c.line
	}
	k := int(off - c.base)
	c.line += bytes.Count(c.buf[:k], []byte{'\n'})
	c.base = off
	rest := len(c.buf) - k
	if rest < cap(c.buf)/4 && cap(c.buf) > 1<<16 {
		c.buf = append(make([]byte, 0, max(2*rest, 1<<12)), c.buf[k:]...)
	} else {
		copy(c.buf, c.buf[k:])
		c.buf = c.buf[:rest]
	}
	return c.line
}

// Helpers for the record parsers.

// jsonErr is a field error of a JSON record.
func jsonErr(file string, line int, path, field, expected string, value []byte) *ParseError {
	f := path
	if field != "" {
		f += "." + field
	}
	v := string(value)
	if v == "" {
		v = "nothing"
	}
	return &ParseError{File: file, Line: line, Field: f, Msg: "expected " + expected + ", found " + found(v)}
}

// unmarshalRecord decodes a record into v, turning a type mismatch into an
// error that names the field.
func unmarshalRecord(file string, line int, path string, raw []byte, v any) *ParseError {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &ParseError{File: file, Line: line, Field: path + "." + te.Field,
			Msg: fmt.Sprintf("expected a %s, found a JSON %s", jsonKind(te.Type.Kind().String()), te.Value)}
	}
	return &ParseError{File: file, Line: line, Field: path, Msg: "expected a JSON object, found " + found(string(raw))}
}

func jsonKind(k string) string {
	switch k {
	case "string":
		return "string"
	case "slice":
		return "list"
	case "map", "struct":
		return "object"
	}
	return k
}

// jsonDecimal reads a number written as a JSON number or a string ("1.000",
// as Vast.ai's legacy invoices write them). ok is false when absent or null.
func jsonDecimal(raw json.RawMessage) (d decimal.Decimal, present bool, err error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return decimal.Decimal{}, false, nil
	}
	if strings.HasPrefix(s, `"`) {
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return decimal.Decimal{}, true, errNotNumber
		}
		s = strings.TrimSpace(str)
		if s == "" {
			return decimal.Decimal{}, false, nil
		}
	}
	d, err = parseDecimal(s)
	return d, true, err
}

// unixTime reads unix seconds, whole or fractional, as a number or string.
func unixTime(raw json.RawMessage) (t time.Time, present bool, err error) {
	d, present, err := jsonDecimal(raw)
	if !present || err != nil {
		return time.Time{}, present, err
	}
	// 0001-01-01 … 9999-12-31: beyond that a "timestamp" is milliseconds or garbage.
	if d.LessThan(decimal.NewFromInt(-62135596800)) || d.GreaterThan(decimal.NewFromInt(253402300799)) {
		return time.Time{}, true, errNotTime
	}
	sec := d.IntPart()
	nsec := d.Sub(decimal.NewFromInt(sec)).Shift(9).IntPart()
	return time.Unix(sec, nsec).UTC(), true, nil
}

// jsonText is a string or number field as text ("" when absent or null).
func jsonText(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return ""
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return strings.TrimSpace(str)
	}
	if strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") {
		return ""
	}
	return s
}
